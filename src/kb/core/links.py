"""The links between documents, as the build reads them: what backlinks and the glossary show.

An :class:`~sphinx.environment.collectors.EnvironmentCollector` keeps, for each document it
reads, what its own text links to (never the parts kb adds when a page is written): the
documents named by Markdown links and ``{doc}`` roles, the labels of ``{ref}`` roles (resolved
to their documents on every build, since a label can move to another document without this one
changing), and the ``{term}`` targets, casefolded as Sphinx matches them. Purged and merged by
Sphinx's collector machinery, so a parallel or incremental read keeps it right.
"""

from __future__ import annotations

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.environment.collectors import EnvironmentCollector
from sphinx.util import docname_join

from .records import Outgoing
from .state import env_state


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
            terms.add(" ".join(target.split()).casefold())
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
        labels, anonymous = std.get("labels", {}), std.get("anonlabels", {})
        for label in found.labels:
            place = labels.get(label) or anonymous.get(label)
            if place:
                targets.add(place[0])
    targets.discard(docname)
    return targets & env.found_docs


def setup_links(app: Sphinx) -> None:
    app.add_env_collector(LinkCollector)
