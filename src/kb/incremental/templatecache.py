"""Compiled page templates kept between builds.

Every build that writes a page compiles the theme's Jinja templates first (furo's page,
base and sidebar templates, ours, ablog's: 19 of them), which took 0.3–0.4 s of each
incremental build at 1000 posts. Jinja can keep the compiled code in files
(:class:`jinja2.FileSystemBytecodeCache`), keyed by template name and path and checked
against a hash of the template's text, so an edited template is compiled again.

The files live in the doctree folder, beside the pickled environment: an output folder that
``make clean`` removes. Compiled code also depends on the Jinja environment's settings (its
extensions, delimiters) and on the Jinja and Python versions (Jinja checks the last itself),
so each combination gets a folder of its own.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import jinja2
from sphinx.application import Sphinx

from ..core.state import build_state

CACHE_FOLDER = "kb-templates"


def _settings_key(environment: jinja2.Environment) -> str:
    settings = [
        jinja2.__version__,
        type(environment).__qualname__,
        *sorted(environment.extensions),
        environment.block_start_string,
        environment.block_end_string,
        environment.variable_start_string,
        environment.variable_end_string,
        environment.comment_start_string,
        environment.comment_end_string,
        str(environment.line_statement_prefix),
        str(environment.line_comment_prefix),
        str(environment.trim_blocks),
        str(environment.lstrip_blocks),
        str(environment.autoescape),
    ]
    return hashlib.sha256("\0".join(settings).encode()).hexdigest()[:16]


def _builder_inited(app: Sphinx) -> None:
    environment = getattr(getattr(app.builder, "templates", None), "environment", None)
    if not isinstance(environment, jinja2.Environment) or environment.bytecode_cache:
        return  # not a Jinja builder, or someone chose a cache already
    if not build_state(app).config.incremental:
        return  # kb_incremental = False: every template is compiled anew
    folder = Path(app.doctreedir) / CACHE_FOLDER / _settings_key(environment)
    folder.mkdir(parents=True, exist_ok=True)
    environment.bytecode_cache = jinja2.FileSystemBytecodeCache(str(folder))


def setup_templatecache(app: Sphinx) -> None:
    app.connect("builder-inited", _builder_inited)
