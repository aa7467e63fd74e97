"""Temml, the TeX to MathML converter, run by Node.js beside the build.

Temml (MIT, https://temml.org, vendored as ``temml.cjs`` with its LICENSE) converts the
environments papers use (``aligned``, ``gathered``, ``split``, ``cases``, ``pmatrix``,
``\\xrightarrow{f}``, ``\\mathscr``) to MathML Core that Chromium draws, and refuses what it
does not know. One ``node render.js`` process per build process answers one JSON line per
formula; it is started on the first formula and started again in a forked process, whose
pipes would otherwise be shared with its parent.

Chosen by measurement against latex2mathml, KaTeX's MathML output and MathJax 4 on the site's
own formulas: ``benchmarks/math_converters.py`` and its results, ``benchmarks/math_converters.md``.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import threading
from pathlib import Path

HERE = Path(__file__).parent
SCRIPT = HERE / "render.js"
VERSION = "0.13.5"  # dist/temml.cjs of the npm package temml


class TemmlUnavailable(RuntimeError):
    """Node.js is missing or the converter stopped; the message says what to install."""


class _Process:
    def __init__(self) -> None:
        self.pid: int | None = None
        self.process: subprocess.Popen[str] | None = None
        self.lock = threading.Lock()

    def _start(self) -> subprocess.Popen:
        node = shutil.which("node") or shutil.which("nodejs")
        if node is None:
            raise TemmlUnavailable(
                "Node.js is not installed (math is converted by Temml on Node.js 18 or later; "
                "on Read the Docs set build.tools.nodejs)"
            )
        process = subprocess.Popen(
            [node, str(SCRIPT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=HERE,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        self.pid, self.process = os.getpid(), process
        return process

    def convert(self, tex: str, display: bool) -> dict:
        with self.lock:
            process = self.process
            if process is None or self.pid != os.getpid() or process.poll() is not None:
                process = self._start()
            stdin, stdout = process.stdin, process.stdout
            if stdin is None or stdout is None:  # never: _start opens both as pipes
                raise TemmlUnavailable("the Temml process has no pipes")
            try:
                stdin.write(json.dumps([tex, display]) + "\n")
                stdin.flush()
                line = stdout.readline()
            except OSError as error:
                self.process = None
                raise TemmlUnavailable(f"the Temml process stopped ({error})") from error
            if not line:
                self.process = None
                raise TemmlUnavailable("the Temml process stopped without an answer")
            return json.loads(line)

    def close(self) -> None:
        process, self.process = self.process, None
        if process is not None and self.pid == os.getpid():
            if process.stdin is not None:
                process.stdin.close()
            process.wait(timeout=10)


_PROCESS = _Process()
atexit.register(_PROCESS.close)


def render(tex: str, display: bool) -> dict:
    """``{"mathml": "<math>…</math>"}`` or ``{"error": "Temml's message"}`` for one formula."""
    return _PROCESS.convert(tex, display)
