"""Citable posts: a "Cite this post" block with BibTeX, and citation meta tags.

Each post's page ends with a short reference line and a BibTeX ``@misc`` entry that readers
copy into their papers; its head carries the ``citation_*`` tags that Google Scholar and
reference managers (Zotero) read. Both come from the catalog's record of the post, so they
agree with the listings: same title, authors and dates.
"""

from __future__ import annotations

import re
import unicodedata
from html import escape
from urllib.parse import urljoin

from sphinx.application import Sphinx

from ..core.html import focusable
from ..core.parts import render_part
from ..core.posts import Post
from ..core.state import build_state
from ..core.urls import site_url
from .entries import format_date
from .postpage import add_post_part, post_page

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
SMALL_WORDS = {"a", "an", "the", "on", "of", "in", "and", "for", "to", "with"}

#: LaTeX's special characters, as BibTeX must receive them in a field's text.
_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_LATEX_SPECIAL = re.compile("|".join(re.escape(c) for c in _LATEX_SPECIALS))


def latex_escape(text: str) -> str:
    return _LATEX_SPECIAL.sub(lambda m: _LATEX_SPECIALS[m.group()], text)


def _ascii_word(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", folded.lower())


def citation_key(post: Post) -> str:
    """``<surname of the first author><year><first title word>``: ``raman2026flashattention4``."""
    surname = _ascii_word(post.authors[0].name.split()[-1]) if post.authors else ""
    words = [_ascii_word(w) for w in post.title.split()]
    first = next((w for w in words if w and w not in SMALL_WORDS), "")
    return f"{surname or 'post'}{post.date.year}{first}"


def post_url(app: Sphinx, post: Post) -> str:
    """Where a citation sends readers: the full article (external posts) or our page."""
    if post.external_link:
        return post.external_link
    base = site_url(app)
    return urljoin(base, app.builder.get_target_uri(post.docname)) if base else ""


def _site_name(app: Sphinx) -> str:
    settings = build_state(app).settings
    return settings.site_name if settings is not None else app.config.project


def bibtex_entry(app: Sphinx, post: Post) -> str:
    """The post as a BibTeX ``@misc`` entry; field text is LaTeX-escaped, the URL verbatim."""
    if post.authors:
        authors = " and ".join(latex_escape(a.name) for a in post.authors)
    else:
        # A group without a person's name: inner braces keep BibTeX from splitting it.
        authors = "{" + latex_escape(app.config.author) + "}"
    fields = [
        ("author", f"{{{authors}}}"),
        ("title", f"{{{{{latex_escape(post.title)}}}}}"),  # inner braces keep its capitals
        ("year", f"{{{post.date.year}}}"),
        ("month", MONTHS[post.date.month - 1]),  # a BibTeX macro, unbraced: styles localise it
    ]
    if not post.external_link:
        fields.append(("howpublished", f"{{{latex_escape(_site_name(app))}}}"))
    url = post_url(app, post)
    if url:
        fields.append(("url", f"{{{url}}}"))
    fields.append(("note", "{Blog post}"))
    body = ",\n".join(f"  {name} = {value}" for name, value in fields)
    return f"@misc{{{citation_key(post)},\n{body}\n}}"


def reference_line(app: Sphinx, post: Post) -> str:
    """A plain-text reference: authors, title, site, date, URL."""
    names = [a.name for a in post.authors] or [app.config.author]
    who = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]
    where = "" if post.external_link else f" {_site_name(app)},"
    url = post_url(app, post)
    return f"{who}. “{post.title}”.{where} {format_date(post.date)}." + (f" {url}" if url else "")


def cite_block_html(app: Sphinx, post: Post) -> str:
    # The entry as plain text in the markup of a code block (the template
    # ``kb/parts/cite.html``), so sphinx-copybutton gives it a button and it looks like one;
    # not coloured by Pygments, whose spans around each token made a ten-line entry 1.6 KB
    # of every post page. The block scrolls on a phone: focusable (kb.markup.scrolling).
    return render_part(
        app,
        "cite",
        post=post,
        reference=reference_line(app, post),
        bibtex=bibtex_entry(app, post),
        pre_attributes_html=focusable("BibTeX entry"),
    )


def citation_meta_tags(app: Sphinx, post: Post) -> str:
    """Highwire Press tags, as Google Scholar documents them: one ``citation_author`` each."""
    tags = [("citation_title", post.title)]
    names = [a.name for a in post.authors] or [app.config.author]
    tags += [("citation_author", name) for name in names]
    tags.append(("citation_publication_date", post.date.strftime("%Y/%m/%d")))
    url = post_url(app, post)
    if url:
        tags.append(("citation_public_url", url))
    return "".join(
        f'<meta name="{name}" content="{escape(value, quote=True)}" />\n' for name, value in tags
    )


def _html_page_context(app: Sphinx, pagename, templatename, context, doctree) -> None:
    post = post_page(app, pagename, doctree)
    if post is not None:
        context["metatags"] = context.get("metatags", "") + citation_meta_tags(app, post)


def _cite_block(app: Sphinx, post: Post, prefix: str) -> str:
    return cite_block_html(app, post)


def setup_citation(app: Sphinx) -> None:
    add_post_part(app, "end", 10, _cite_block)
    app.connect("html-page-context", _html_page_context)
