"""An evergreen page's checks (``pages/about.md``): pure functions over its text.

A page needs only a title, its first ``# heading`` (a ``##`` one is no title, as in a post):
furo's navigation and search show it. Front matter is optional; when there is some, YAML must
read it, since MyST would drop it all. Its links, its raw HTML and its ``{term}`` links are
checked as a post's are (:mod:`.sitechecks`, :mod:`.rawhtml`, :mod:`.glossary`), by the same
functions, so ``kb check`` and the build say the same. A file is a page when it is not a
post: ablog's ``blog_post_pattern`` does not match it, its front matter does not say
``blogpost: true`` and it has no ``post`` directive.
"""

from __future__ import annotations

from .frontmatter import read_front_matter
from .messages import say
from .model import PostFacts, Problem
from .postbody import heading_problems, read_body
from .postforms import post_directive_lines


def check_page(text: str) -> tuple[PostFacts, list[Problem]]:
    """What the checks across documents need of a page (its title and links), and problems."""
    problems: list[Problem] = []
    body_line = 1
    if text.split("\n", 1)[0].strip() == "---":
        fields, body_line, problems = read_front_matter(text)
        problems += [
            Problem(item.line, say("bad_yaml", problem=item.error), key)
            for key, item in fields.items()
            if item.error
        ]
    body = read_body(text, body_line)
    facts = PostFacts(title=body.title, title_line=body.title_line or body_line, links=body.links)
    if not body.title:
        problems.append(Problem(body_line, say("page_no_title")))
    problems += heading_problems(body.title_level, body.title_line)
    return facts, sorted(problems, key=lambda p: p.line)


def says_blogpost(text: str, rst: bool = False) -> bool:
    """Whether a file's text makes it a post wherever it is: front matter that says
    ``blogpost: true``, or a ``post`` directive, which ablog takes in any document."""
    if post_directive_lines(text, rst):
        return True
    if text.split("\n", 1)[0].strip() != "---":
        return False
    fields, _, _ = read_front_matter(text)
    item = fields.get("blogpost")
    return item is not None and item.value is True
