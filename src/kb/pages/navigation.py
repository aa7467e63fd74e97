"""The site's navigation tree, rendered once per folder instead of once per page.

furo draws the sidebar's navigation from the root's toctree on every page (its
``_compute_navigation_tree`` calls the page context's ``toctree()``). Since pages live in that
tree, resolving it costs about 7 ms a page: at 1000 posts, 2000 pages, most of what a clean
build gained over the blog alone (a profile of CPU time, 300 posts: 0.07 s before pages, 4.5 s
after). A page the tree does not hold -- every post, every listing -- gets the same tree as any
other such page of its folder: nothing in it is marked current, and its links are relative to
the folder. So the page context's ``toctree`` is wrapped, before furo reads it, by one that
renders each (folder, arguments) once per build; a page the tree holds is rendered as Sphinx
renders it, with its own place marked, and so is the 404 page, whose links sphinx-notfound-page
makes absolute (it is served at any depth).
"""

from __future__ import annotations

from sphinx.application import Sphinx

from ..core import events
from ..core.state import build_state
from ..core.urls import is_notfound_page, link_folder
from .evergreen import navigation


def _builder_inited(app: Sphinx) -> None:
    state = build_state(app)
    state.navigation_in_tree, state.navigation_rendered = None, {}


def _shared_toctree(app: Sphinx, pagename: str, templatename, context, doctree) -> None:
    toctree = context.get("toctree")
    if toctree is None:
        return
    state = build_state(app)
    if state.navigation_in_tree is None:  # every document is read by now
        state.navigation_in_tree = {docname for docname, _, _ in navigation(app.env)}
    in_tree = state.navigation_in_tree
    if pagename in in_tree or is_notfound_page(app.config, pagename):
        return
    folder, rendered = link_folder(app, pagename), state.navigation_rendered

    def shared(**options) -> str:
        key = (folder, tuple(sorted(options.items())))
        if key not in rendered:
            rendered[key] = toctree(**options)
        return rendered[key]

    context["toctree"] = shared


def setup_navigation(app: Sphinx) -> None:
    app.connect("builder-inited", _builder_inited)
    app.connect("html-page-context", _shared_toctree, priority=events.SHARED_NAVIGATION)
