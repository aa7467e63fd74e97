"""Config values that are the same on every build, so Sphinx's change detection can be trusted.

Sphinx compares the configuration of the last build (pickled with the environment, *after*
``builder-inited``) with this build's (read at ``config-inited``). Three values were changed in
between on every build, so every rebuild said "The configuration has changed (3 options:
'html_css_files', 'html_static_path', 'pygments_dark_style')" when nothing had:

- ``html_css_files``: the HTML builder gives each entry ``priority=800`` by ``setdefault`` on
  the entry's own dict, the one kept in the config. We write that default in first.
- ``html_static_path``: sphinx-copybutton appends its folder at ``builder-inited``. We add it at
  ``config-inited`` and, after copybutton's handler, drop the second copy.
- ``pygments_dark_style``: furo declares it in its ``setup()``, which Sphinx runs only when the
  theme is loaded, after the comparison: the last build's configuration has the option and
  this one's does not yet. Sphinx only reports it (an option this build lacks cannot make it
  read anything again), so :mod:`kb.core.buildlog` leaves that one report out. Loading furo as
  an extension instead would declare it in time, but furo then refuses every build that is not
  HTML (``-b text``, ``-b latex``: "Furo is being used as an extension in a non-HTML build").
"""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx

from . import events

#: The priority Sphinx's HTML builder gives a project's CSS file that names none.
CSS_PRIORITY = 800


def _copybutton_static() -> str | None:
    try:
        import sphinx_copybutton
    except ImportError:
        return None
    return str(Path(sphinx_copybutton.__file__).parent.joinpath("_static").absolute())


def _config_inited(app: Sphinx, config) -> None:
    # After Sphinx's own conversion of plain names to (name, attributes) (priority 800).
    config.html_css_files = [
        (name, {"priority": CSS_PRIORITY, **attributes})
        for name, attributes in config.html_css_files
    ]
    if "sphinx_copybutton" in config.extensions:
        folder = _copybutton_static()
        if folder and folder not in config.html_static_path:
            config.html_static_path = [*config.html_static_path, folder]


def _builder_inited(app: Sphinx) -> None:
    # After sphinx-copybutton appended its folder a second time: keep each folder once, first
    # place kept, so the order of the static folders is what it was.
    paths = app.config.html_static_path
    unique = list(dict.fromkeys(paths))
    if unique != list(paths):
        app.config.html_static_path = unique


def setup_configvalues(app: Sphinx) -> None:
    app.connect("config-inited", _config_inited, priority=events.AFTER_LEAVING_OUT)
    app.connect("builder-inited", _builder_inited, priority=events.AFTER_EXTENSIONS_INITED)
