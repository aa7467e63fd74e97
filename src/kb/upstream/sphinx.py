"""Sphinx's internals that kb relies on: build state Sphinx keeps but does not document."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

#: The event to connect a handler to that runs before Sphinx reads each document, once the last
#: one is wholly read (its doctree pickled, and kept for the writing phase or not) and before
#: Sphinx makes the next one's doctree (at ``source-read`` it exists already). No event is
#: documented there: ``env-purge-doc`` is, in Sphinx's serial reading
#: (``Builder._read_serial``), emitted right before each ``read_doc``, and also for each
#: document removed. Its handlers get ``(app, env, docname)``.
BEFORE_EACH_READ = "env-purge-doc"


def doctrees_waiting_to_be_written(env) -> dict | None:
    """The doctrees Sphinx read in this build and keeps in memory until it writes their pages
    (``env._write_doc_doctree_cache``, docname -> doctree, since Sphinx 7.3), or None when
    Sphinx no longer keeps them there.

    A page whose doctree is not there is written from the doctree pickled on disk
    (``get_doctree``), which is what every incremental build does; dropping entries only costs
    the unpickling. At 10,000 posts the kept doctrees were most of a clean build's 2.5 GB
    (:mod:`kb.incremental.doctrees`).
    """
    waiting = getattr(env, "_write_doc_doctree_cache", None)
    return waiting if isinstance(waiting, dict) else None


def html_settings_hashes(builder) -> list[str]:
    """Sphinx's own hashes of the HTML settings and tags (``builder.build_info``, a
    ``BuildInfo`` of the private module ``sphinx.builders.html._build_info``), or nothing for a
    builder without them.

    Sphinx rewrites every page when they change; kb's signature of generated pages
    (:mod:`kb.incremental.freshness`) changes with them, so that kb rewrites its pages too.
    """
    build_info = getattr(builder, "build_info", None)
    if build_info is None:
        return []
    return [build_info.config_hash, build_info.tags_hash]


def newest_template_mtime(builder) -> float | None:
    """When the newest template the builder can load last changed
    (``builder.templates.newest_template_mtime()``, undocumented), or None.

    Sphinx rewrites every page when a template is newer than the last build; so does kb
    (:mod:`kb.incremental.freshness`).
    """
    newest = getattr(getattr(builder, "templates", None), "newest_template_mtime", None)
    return None if newest is None else newest()


def configuration_changed(env) -> bool:
    """Whether Sphinx found the configuration or the extensions changed since the saved
    environment (``env.config_status`` is not ``CONFIG_OK``, undocumented), and so started a
    fresh environment: kb's record of what the last build wrote no longer vouches for anything
    (:mod:`kb.incremental.freshness`)."""
    from sphinx.environment import CONFIG_OK

    return env.config_status != CONFIG_OK


def has_saved_environment(app) -> bool:
    """Whether this build starts from a saved environment (``ENV_PICKLE_FILENAME`` in the
    doctree folder, as ``Sphinx._init_env`` looks for it).

    :mod:`kb.core.finding` relies on when Sphinx finds the source files, which Sphinx does not
    document: a build with a saved environment finds them in ``Builder.read``, after
    ``builder-inited`` and right before the first ``env-get-outdated`` handler; a build
    without one finds them also in ``Sphinx._post_init_env``, before ``builder-inited``.
    """
    from sphinx.application import ENV_PICKLE_FILENAME

    return (Path(app.doctreedir) / ENV_PICKLE_FILENAME).is_file()


#: What a builder's translator reads of the page being written, beyond the document itself,
#: and what each is before the builder has written a page.
_PAGE_STATE: dict[str, object] = {
    "current_docname": None,
    "imgpath": "",
    "dlpath": "",
    "secnumbers": {},
    "fignumbers": {},
}


@contextlib.contextmanager
def writing_as(builder, docname: str) -> Iterator[None]:
    """The HTML builder set up as while it writes ``docname``'s own page, and left as it was
    afterwards.

    A fragment of a post written outside its page (an excerpt, a feed's full text:
    :mod:`kb.core.fragments`) must get the page's relative image and download paths and its
    section and figure numbers. The translator reads them from the builder's undocumented
    ``current_docname``, ``imgpath``, ``dlpath``, ``secnumbers`` and ``fignumbers``, which
    ``write_doc`` sets; there is no public way to set them for one document.
    """
    from sphinx.util.osutil import relative_uri

    target = builder.get_target_uri(docname)
    saved = {name: getattr(builder, name, unset) for name, unset in _PAGE_STATE.items()}
    builder.current_docname = docname
    builder.imgpath = relative_uri(target, "_images")
    builder.dlpath = relative_uri(target, "_downloads")
    builder.secnumbers = builder.env.toc_secnumbers.get(docname, {})
    builder.fignumbers = builder.env.toc_fignumbers.get(docname, {})
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(builder, name, value)


def listeners(app, event: str) -> list[tuple[int, Callable]]:
    """The handlers connected to ``event``, each with the id ``app.disconnect`` takes
    (``app.events.listeners``, undocumented): kb unplugs ablog's page and feed writers, which
    it replaces, and cannot get their ids from ``app.connect`` (:mod:`kb.core.ablog`)."""
    return [(listener.id, listener.handler) for listener in app.events.listeners.get(event, ())]


def has_translation_handlers(app, node_class: type, format: str = "html") -> bool:
    """Whether a node has visitors for ``format`` registered already
    (``app.registry.translation_handlers``, undocumented): kb registers MyST-NB's folded-cell
    node only for the first page that needs it, with kb's own visitors
    (:mod:`kb.notebooks.outputs`)."""
    return node_class.__name__ in app.registry.translation_handlers.get(format, {})


def html_assets_policy(app) -> str:
    """``"always"`` when an extension asked for its assets on every page
    (``app.set_html_assets_policy``), else ``"per_page"``: Sphinx offers a setter, but no
    getter (``app.registry.html_assets_policy``). kb's math stylesheet follows the same rule as
    MathJax's script (:mod:`kb.markup.math`)."""
    return app.registry.html_assets_policy


def builtin_extensions() -> tuple[str, ...]:
    """The extensions every Sphinx application loads (``sphinx.application.builtin_extensions``,
    undocumented): ``kb serve``'s warm worker imports them once, before it forks a build
    (:mod:`kb.cli.buildworker`)."""
    import sphinx.application

    return tuple(sphinx.application.builtin_extensions)


def give_parser_its_build(parser, env) -> None:
    """Give a parser kb makes itself what Sphinx's registry gives every parser it makes
    (``SphinxComponentRegistry.create_source_parser`` sets the private ``parser._config`` and
    ``parser._env``, which ``parser.config`` and ``parser.env`` read): kb makes MyST-NB's
    parser only when a notebook is read (:mod:`kb.notebooks.render`)."""
    parser._config, parser._env = env.config, env


def is_sphinx_asset_tag(function, name: str) -> bool:
    """Whether ``function`` is the page context's ``css_tag`` or ``js_tag`` as Sphinx's HTML
    builder made it for the page (a function local to ``handle_page``, undocumented), not one
    an extension put in its place."""
    return getattr(function, "__module__", "") == "sphinx.builders.html" and getattr(
        function, "__qualname__", ""
    ).endswith(f"handle_page.<locals>.{name}")


def page_being_written(builder) -> str:
    """The docname of the page the builder is writing (``builder.current_docname``,
    undocumented), for a visitor that links relative to it (:mod:`kb.notebooks.download`)."""
    return builder.current_docname


def downloads_path(builder) -> str:
    """The path from the page being written to its downloaded files, ``_downloads/`` as that
    page reaches it (``builder.dlpath``, undocumented), for a visitor that links a file Sphinx
    copied (:mod:`kb.markup.players`)."""
    return builder.dlpath


def copied_files(env) -> set[str]:
    """The files the HTML builder copies for the documents of ``env``, relative to the output
    folder: each image under ``_images/`` and each download under ``_downloads/`` by the name
    Sphinx gave it (``env.images`` and ``env.dlfiles``, path -> (docnames, name); their layout
    is undocumented). A document's entries go when it is removed, not the copies."""
    images = {f"_images/{name}" for _, name in env.images.values()}
    downloads = {f"_downloads/{name}" for _, name in env.dlfiles.values()}
    return images | downloads
