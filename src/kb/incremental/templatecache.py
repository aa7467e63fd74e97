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

A process that builds again (the tests build hundreds of small sites, each with a doctree folder
of its own) also keeps the compiled code in memory, under the same key and checked against the
same hash: compiling furo's, ablog's and kb's templates took 0.2 s of each such build's 0.6 s
(cProfile, a small test site built in a warm process).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import CodeType

import jinja2
import jinja2.bccache
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
        # What else the code generator reads: the code differs with each.
        repr(environment.newline_sequence),
        str(environment.keep_trailing_newline),
        str(environment.optimized),
        str(environment.is_async),
        str(environment.finalize is not None),
    ]
    return hashlib.sha256("\0".join(settings).encode()).hexdigest()[:16]


#: Compiled code by (settings, Jinja's key): the template text's hash and the code. Bounded,
#: as every test site's own templates have keys of their own.
_COMPILED: dict[tuple[str, str], tuple[str, CodeType]] = {}
_COMPILED_MOST = 1000


class _KeptCode(jinja2.BytecodeCache):
    """Compiled templates kept in memory for this process's later builds, and in files (the
    doctree folder's) for later processes."""

    def __init__(self, folder: Path, settings: str) -> None:
        self.files = jinja2.FileSystemBytecodeCache(str(folder))
        self.settings = settings

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        kept = _COMPILED.get((self.settings, bucket.key))
        if kept is None or kept[0] != bucket.checksum:
            self.files.load_bytecode(bucket)
            if bucket.code is not None:
                self._keep(bucket)
            return
        bucket.code = kept[1]
        if not self._file(bucket).is_file():  # a new doctree folder keeps its own copy
            self.files.dump_bytecode(bucket)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self._keep(bucket)
        self.files.dump_bytecode(bucket)

    def clear(self) -> None:
        _COMPILED.clear()
        self.files.clear()

    def _keep(self, bucket: jinja2.bccache.Bucket) -> None:
        if len(_COMPILED) >= _COMPILED_MOST:
            _COMPILED.clear()
        assert bucket.code is not None
        _COMPILED[self.settings, bucket.key] = (bucket.checksum, bucket.code)

    def _file(self, bucket: jinja2.bccache.Bucket) -> Path:
        return Path(self.files.directory, self.files.pattern % (bucket.key,))


def _builder_inited(app: Sphinx) -> None:
    environment = getattr(getattr(app.builder, "templates", None), "environment", None)
    if not isinstance(environment, jinja2.Environment) or environment.bytecode_cache:
        return  # not a Jinja builder, or someone chose a cache already
    if not build_state(app).config.incremental:
        return  # kb_incremental = False: every template is compiled anew
    settings = _settings_key(environment)
    folder = Path(app.doctreedir) / CACHE_FOLDER / settings
    folder.mkdir(parents=True, exist_ok=True)
    environment.bytecode_cache = _KeptCode(folder, settings)


def setup_templatecache(app: Sphinx) -> None:
    app.connect("builder-inited", _builder_inited)
