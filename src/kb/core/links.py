"""The links between documents, as the build reads them: what backlinks and the glossary show.

An :class:`~sphinx.environment.collectors.EnvironmentCollector` keeps, for each document it
reads, what its own text links to (never the parts kb adds when a page is written): the
documents named by Markdown links and ``{doc}`` roles, the labels of ``{ref}`` roles (resolved
to their documents on every build, since a label can move to another document without this one
changing), and the ``{term}`` targets, casefolded as Sphinx matches them. Purged and merged by
Sphinx's collector machinery, so a parallel or incremental read keeps it right.

An incremental build uses it too: Sphinx resolves a document's cross-references only when it
writes the document's page, which it does when that document's own source changed. The pages
whose links lead to a document that is removed, added, or read again showing another title or
other anchors (a label moved) are written again as well (:func:`links_before`, before the
reading; :func:`linking_again`, after), with the excerpts of those that are posts, or they
keep a link to a page that is gone where a clean build shows the text unlinked and warns.
"""

from __future__ import annotations

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.environment.collectors import EnvironmentCollector
from sphinx.util import docname_join

from .records import LinkedBefore, Outgoing
from .state import env_state


def term_key(term: str) -> str:
    """A glossary term or ``{term}`` target as links are matched: blanks collapsed, casefolded
    (Sphinx keeps a term as the glossary writes it, "TMA", and matches a link to it in any
    case)."""
    return " ".join(term.split()).casefold()


def _label_place(std: dict, label: str) -> tuple | None:
    """Where the std domain puts a label: ``(docname, anchor, …)``, or None."""
    return std.get("labels", {}).get(label) or std.get("anonlabels", {}).get(label)


def read_links(doctree: nodes.document, docname: str) -> Outgoing:
    docs, labels, terms = set(), set(), set()
    for ref in doctree.findall(addnodes.pending_xref):
        domain, kind, target = ref.get("refdomain"), ref.get("reftype"), ref.get("reftarget", "")
        if not target:
            continue
        if kind == "myst" and domain == "doc":  # [text](other.md): already a docname
            docs.add(target)
        elif kind == "myst" and not domain:  # [text](label): any domain; a label at most
            labels.add(target.lower())
        elif domain == "std" and kind == "doc":
            docs.add(docname_join(ref.get("refdoc", docname), target))
        elif domain == "std" and kind == "ref":
            labels.add(target.lower())
        elif domain == "std" and kind == "term":
            terms.add(term_key(target))
    docs.discard(docname)
    return Outgoing(frozenset(docs), frozenset(labels), frozenset(terms))


class LinkCollector(EnvironmentCollector):
    def clear_doc(self, app: Sphinx, env: BuildEnvironment, docname: str) -> None:
        _table(env).pop(docname, None)

    def merge_other(self, app, env, docnames, other) -> None:
        theirs = _table(other)
        for docname in docnames:
            if docname in theirs:
                _table(env)[docname] = theirs[docname]

    def process_doc(self, app: Sphinx, doctree: nodes.document) -> None:
        _table(app.env)[app.env.docname] = read_links(doctree, app.env.docname)


def _table(env: BuildEnvironment) -> dict[str, Outgoing]:
    return env_state(env).links


def outgoing(env: BuildEnvironment) -> dict[str, Outgoing]:
    """Every read document's links, by docname."""
    return _table(env)


def linked_documents(env: BuildEnvironment, docname: str) -> set[str]:
    """The documents ``docname``'s text links to (labels resolved now), never itself."""
    found = _table(env).get(docname)
    if found is None:
        return set()
    targets = set(found.docs)
    if found.labels:  # looked up, never copied: the site's labels are many, a post's few
        std = env.domaindata.get("std", {})
        for label in found.labels:
            place = _label_place(std, label)
            if place:
                targets.add(place[0])
    targets.discard(docname)
    return targets & env.found_docs


def links_before(env: BuildEnvironment, changed: set[str]) -> LinkedBefore:
    """Before Sphinx purges the documents ``changed`` (to be read again, added or removed):
    where the links that may lead elsewhere once they are read lead now: the documents that
    link to one of them by name, to a label or glossary term one of them defines, or to one
    that none defines."""
    if not changed:
        return LinkedBefore()
    std = env.domaindata.get("std", {})
    terms = {term_key(term): place for term, place in std.get("terms", {}).items()}
    before = LinkedBefore(changed=set(changed))
    for docname, links in _table(env).items():
        if docname in changed or not (links.docs or links.labels or links.terms):
            continue
        places = {("label", name): _label_place(std, name) for name in links.labels}
        places |= {("term", term): terms.get(term) for term in links.terms}
        if links.docs & changed or any(p is None or p[0] in changed for p in places.values()):
            before.candidates.add(docname)
            before.places |= {key: p[0] if p else None for key, p in places.items()}
    if before.candidates:
        before.faces = _faces(env, changed)
    return before


def linking_again(env: BuildEnvironment, before: LinkedBefore | None, read: set[str]) -> set[str]:
    """Once the documents are read: those of ``before.candidates`` not read whose links now
    lead to another page, title or anchor than their written page shows (a document they name
    is gone, new, or shows another title or other anchors; a label or term they name is
    defined elsewhere, or its document shows other ones). Their pages are written again
    (and their excerpts rendered again, :func:`kb.core.catalog.render_excerpts_again`):
    Sphinx resolves their links anew, as a clean build does, and warns where one now leads
    nowhere. An edit that leaves a document's title and anchors as they were (most edits)
    writes none of the pages that link to it."""
    if before is None or not before.candidates:
        return set()
    std = env.domaindata.get("std", {})
    terms = {term_key(term): place for term, place in std.get("terms", {}).items()}
    faces = _faces(env, before.changed)

    def shows_otherwise(docname: str | None) -> bool:
        return docname in before.changed and faces.get(docname) != before.faces.get(docname)

    def moved(kind: str, name: str, place) -> bool:
        now = place[0] if place else None
        return now != before.places.get((kind, name)) or shows_otherwise(now)

    table = _table(env)
    again = set()
    for docname in before.candidates - read:
        links = table.get(docname)
        if links is None:
            continue
        if (
            any(shows_otherwise(target) for target in links.docs)
            or any(moved("label", label, _label_place(std, label)) for label in links.labels)
            or any(moved("term", term, terms.get(term)) for term in links.terms)
        ):
            again.add(docname)
    return again & env.found_docs


def _faces(env: BuildEnvironment, docnames: set[str]) -> dict[str, tuple]:
    """What each of ``docnames`` shows to the links that lead to it: its title, its labels
    (with their anchors and section titles), its glossary terms and MyST's heading anchors.
    None for one that is not there."""
    std = env.domaindata.get("std", {})
    shown: dict[str, list] = {docname: [] for docname in docnames if docname in env.titles}
    for kind in ("labels", "anonlabels", "terms"):
        for name, place in std.get(kind, {}).items():
            if place[0] in shown:
                shown[place[0]].append((kind, name, *place[1:]))
    faces = {}
    for docname, anchors in shown.items():
        slugs = env.metadata.get(docname, {}).get("myst_slugs", {})
        title = env.titles[docname].astext()
        faces[docname] = (title, tuple(sorted(anchors)), repr(sorted(slugs.items())))
    return faces


def setup_links(app: Sphinx) -> None:
    app.add_env_collector(LinkCollector)
