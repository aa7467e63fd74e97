"""Incremental builds that match clean ones, and skip what did not change.

Sphinx rewrites a page only when its own source changed; it cannot know that the home page,
every sidebar or a series box shows other posts. After the catalog is built we sign what
each page shows of the catalog, compare with the signatures of the last successful build
(kept in the doctree folder), and:

* return the documents whose signature changed, so Sphinx rewrites them (no re-read);
* let generated pages (archives, feeds) be skipped when their signature and file are unchanged.

Other modules add what a page depends on through :func:`add_signer`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.environment import CONFIG_OK

from .catalog import _digest

STATE_FILE = "kb-state.json"

Signer = Callable[[Sphinx, str], str]


def add_signer(app: Sphinx, signer: Signer) -> None:
    """Register ``signer(app, docname) -> str``: what ``docname`` shows of other posts."""
    app.kb_signers.append(signer)


def _state_path(app: Sphinx) -> Path:
    return Path(app.doctreedir) / STATE_FILE


def _load_state(app: Sphinx) -> dict:
    try:
        return json.loads(_state_path(app).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"docs": {}, "pages": {}}


def _build_signature(app: Sphinx) -> str:
    """Changes when our package, any template or the HTML settings change: every generated
    page is then rewritten, as Sphinx rewrites every document in those cases."""
    templates = Path(__file__).parent
    mtimes = sorted(f"{p.name}:{p.stat().st_mtime_ns}" for p in templates.rglob("*") if p.is_file())
    parts = [app.config.html_theme, *mtimes]
    build_info = getattr(app.builder, "build_info", None)  # Sphinx's hash of html settings
    if build_info is not None:
        parts += [build_info.config_hash, build_info.tags_hash]
    newest_template = getattr(app.builder.templates, "newest_template_mtime", None)
    if newest_template is not None:
        parts.append(repr(newest_template()))
    return _digest(parts)


def _env_updated(app: Sphinx, env) -> list[str]:
    if app.builder.format != "html":
        return []
    # The blog sidebar is on every page but is not part of a page's signature: when only the
    # sidebar changed (a recent post retitled, a post added), pages that are otherwise current
    # get it replaced in place, which costs a file read and write instead of a page render.
    sidebar = getattr(env, "kb_sidebar_html", "")
    base = _digest([_build_signature(app), "with sidebar" if sidebar else "no sidebar"])
    # A changed configuration or extension set makes Sphinx start a fresh environment; our
    # record of what the last build wrote no longer vouches for anything.
    fresh_env = env.config_status != CONFIG_OK
    app.kb_state_old = {"docs": {}, "pages": {}} if fresh_env else _load_state(app)
    docs = {}
    for docname in env.found_docs:
        extra = [signer(app, docname) for signer in app.kb_signers]
        docs[docname] = _digest([base, *extra])
    sidebar_signature = _digest([sidebar])
    old_sidebar = app.kb_state_old.get("sidebar")
    app.kb_sidebar_changed = old_sidebar is not None and old_sidebar != sidebar_signature
    app.kb_state_new = {"docs": docs, "pages": {}, "sidebar": sidebar_signature}
    app.kb_base_signature = base
    old_docs = app.kb_state_old.get("docs", {})
    changed = {d for d, sig in docs.items() if d in old_docs and old_docs[d] != sig}
    if app.kb_sidebar_changed:
        from .sidebars import refresh_sidebar  # sidebars imports this module

        for docname in sorted(docs.keys() & old_docs.keys() - changed):
            refresh_sidebar(app, docname, output_path(app, docname))
    return sorted(changed)


def site_path(app: Sphinx, docname: str) -> str:
    """The file a page is written to, relative to the output folder (``x.html``, or
    ``x/index.html`` for dirhtml)."""
    uri = app.builder.get_target_uri(docname)
    return uri + "index.html" if uri.endswith("/") or not uri else uri


def output_path(app: Sphinx, docname: str) -> Path:
    """The file a page is written to."""
    return Path(app.outdir) / site_path(app, docname)


def page_signature(app: Sphinx, *parts: str) -> str:
    return _digest([app.kb_base_signature, *parts])


def should_write(app: Sphinx, docname: str, signature: str | None = None, path: Path | None = None):
    """Record a generated page's signature; True when it must be (re)written.

    False means the file on disk is current; if only the blog sidebar changed, it has just been
    replaced in that file."""
    if signature is None:
        page = app.env.kb_listing_pages[docname]
        signature = page_signature(
            app,
            page.title,
            str(page.number),
            str(page.count),
            *(p.fingerprint() for p in page.posts),
        )
    if path is None:
        path = output_path(app, docname)
    if not _is_current(app, "pages", docname, signature, [path]):
        return True
    if app.kb_sidebar_changed:
        from .sidebars import refresh_sidebar  # sidebars imports this module

        refresh_sidebar(app, docname, path)
    return False


def is_current(app: Sphinx, key: str, signature: str, paths) -> bool:
    """Record what ``key``, a group of files that are not pages (the feeds), is made from; True
    when that is what the last build made it from and its files are all still there."""
    return _is_current(app, "files", key, signature, paths)


def _is_current(app: Sphinx, section: str, key: str, signature: str, paths) -> bool:
    # "pages" lists generated pages (the sitemap lists them too); "files", anything else.
    app.kb_state_new.setdefault(section, {})[key] = signature
    unchanged = app.kb_state_old.get(section, {}).get(key) == signature
    return unchanged and all(path.exists() for path in paths)


def _build_finished(app: Sphinx, exception) -> None:
    # Only a successful build vouches for what is on disk.
    if exception is None and getattr(app, "kb_state_new", None) is not None:
        _state_path(app).write_text(json.dumps(app.kb_state_new, sort_keys=True), encoding="utf-8")


def _latest_posts_signer(app: Sphinx, docname: str) -> str:
    if docname not in getattr(app.env, "kb_latest_docs", ()):
        return ""
    return _digest([p.fingerprint() for p in app.env.kb_catalog.posts])


def setup_freshness(app: Sphinx) -> None:
    app.kb_signers = [_latest_posts_signer]
    app.kb_should_write = lambda docname, signature=None, path=None: should_write(
        app, docname, signature, path
    )
    # After the catalog (400) and the modules that derive data from it (500).
    app.connect("env-updated", _env_updated, priority=700)
    app.connect("build-finished", _build_finished)
