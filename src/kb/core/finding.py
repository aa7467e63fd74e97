"""Source files left out of what Sphinx finds, without changing the setting it compares.

Drafts (:mod:`.drafts`) and posts Sphinx could not find by their name (:mod:`.validation`) are
left out of a build by adding each to ``exclude_patterns``. Sphinx compares that setting with
the last build's before it looks for files, and any difference makes it read every post again:
adding a draft, or a draft's day coming, cost as much as a clean build (at 1000 posts: 107 s,
against 4.2 s now). So the names join the setting only while Sphinx finds the files, from
``builder-inited`` to the first ``env-get-outdated`` handler, and the environment keeps the
setting ``conf.py`` made for the next build to compare with. A build with no saved environment
compares nothing, and Sphinx looks for files before ``builder-inited`` too: there the names
join at ``config-inited``.
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinx.application import ENV_PICKLE_FILENAME, Sphinx


def leave_out(app: Sphinx, relpaths) -> None:
    """Leave these files (paths relative to the source folder) out of this build's sources;
    call before ``builder-inited``."""
    app.kb_left_out.extend(relpaths)


def _exclude(app: Sphinx) -> None:
    if not app.kb_left_out or hasattr(app, "kb_configured_excludes"):
        return
    config = app.config
    app.kb_configured_excludes = config.exclude_patterns
    # Each name as a pattern that matches only itself ("[" in a file name is no class).
    escaped = [re.sub(r"([*?\[])", r"[\1]", name) for name in sorted(set(app.kb_left_out))]
    config.exclude_patterns = [*config.exclude_patterns, *escaped]


def _config_inited(app: Sphinx, config) -> None:
    if not (Path(app.doctreedir) / ENV_PICKLE_FILENAME).is_file():
        _exclude(app)


def _builder_inited(app: Sphinx) -> None:
    _exclude(app)


def _files_found(app: Sphinx, env, added, changed, removed) -> list[str]:
    configured = getattr(app, "kb_configured_excludes", None)
    if configured is not None:
        app.config.exclude_patterns = configured
        del app.kb_configured_excludes
    return []


def setup_finding(app: Sphinx) -> None:
    app.kb_left_out = []
    # After every config-inited handler that leaves files out (drafts: 400, validation: 500).
    app.connect("config-inited", _config_inited, priority=900)
    # Sphinx finds the files after builder-inited; the first env-get-outdated handler runs
    # right after, before any handler that might look at the setting.
    app.connect("builder-inited", _builder_inited)
    app.connect("env-get-outdated", _files_found, priority=0)
