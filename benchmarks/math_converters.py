"""Which TeX to MathML converter suits the site? Each candidate measured on the site's formulas.

The formulas are read from the site's own sources (every Markdown file and notebook under
``posts/`` and ``pages/``) with MyST's parser, configured with the extensions ``conf.py``
enables: ``$...$``, ``$$...$$`` (labelled or not), amsmath environments, ``{math}`` roles and
``{math}`` directives, and the same inside directives whose body is Markdown (admonitions,
benchmark legends). Every occurrence counts. A display formula is handed over as the site
hands it to Temml (``kb.markup.math.display_tex``: paragraphs of a block become the rows of a
``split``).

The candidates: latex2mathml (Python), Temml (vendored in ``src/kb/markup/temml``, with the
site's options), KaTeX's MathML output and MathJax 4; all but latex2mathml run on Node.js.
KaTeX, MathJax and latex2mathml are installed once, at pinned versions, into ``--cache``.
Each converter runs as one worker process that reads ``[tex, display]`` JSON lines on stdin
and answers one JSON line each, as ``src/kb/markup/temml/render.js`` does; the workers'
sources are strings below, written into the cache when the benchmark runs. For each
converter it measures:

* coverage: a formula fails when the converter raises, writes an ``<merror>``, leaves a TeX
  command or an alignment ``&`` as text, or (latex2mathml, which drops what it does not know)
  holds an environment the converter has no rule for;
* MathML bytes, as written and normalised (the ``<math>`` element alone, without TeX
  annotations, ``data-`` attributes, the namespace declaration and whitespace between tags),
  over the formulas that every converter converts, so that the sums compare the same formulas;
* time to convert all formulas, in one warm worker (one untimed pass first), median of
  ``--runs`` passes: the time inside the converter (as the worker measures it) and the round
  trip through the pipe (what a build pays);
* start-up: a fresh worker's time until its answer to ``x``, median of ``--runs``;
* what Read the Docs would install: the package, its size on disk (``du -sb`` of its folder,
  and of its folder with everything it depends on) and whether it needs Node.js.

The report also says how many converted formulas kb's allow-list (``kb.markup.math``) would
refuse, and how many of a few broken formulas (:data:`BROKEN`) each converter reports as an
error rather than converting. Each converter's answers are kept in the cache
(``<name>.answers.jsonl``) for a closer look.

    .venv/bin/python benchmarks/math_converters.py --out benchmarks/math_converters.md
    .venv/bin/python benchmarks/math_converters.py --cache /tmp/kb-math --runs 3

A JSON summary goes to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import ast
import copy
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))  # the checkout's kb: display_tex and the allow-list

#: The pinned candidates (``npm view katex version``, ``npm view @mathjax/src version``,
#: ``pip index versions latex2mathml``).
KATEX_VERSION = "0.19.1"
MATHJAX_VERSION = "4.1.3"
LATEX2MATHML_VERSION = "3.81.1"

SOURCE_DIRS = ("posts", "pages")
TEMML_DIR = ROOT / "src" / "kb" / "markup" / "temml"
#: TeX the site must refuse (it says so when a page is read): does the converter say so too?
BROKEN = (
    (r"\foo x", "an undefined command"),
    (r"\begin{weird} a \end{weird}", "an undefined environment"),
    (r"x^", "a superscript without its argument"),
    (r"\frac{a}{b", "an unclosed brace"),
    (r"\begin{aligned} a &= b \end{cases}", "an environment closed by another's end"),
    (r"\href{https://example.org}{x}", "a link, which a formula may not hold"),
)

#: MyST's math tokens and whether each is display math.
MATH_TOKENS = {
    "math_inline": False,
    "math_inline_double": True,  # $$...$$ inside a paragraph: MyST makes it a display block
    "math_block": True,
    "math_block_label": True,
    "amsmath": True,
}
#: Directives whose body is not Markdown: no formula is looked for inside them.
LITERAL_DIRECTIVES = frozenset((
    "code", "code-block", "sourcecode", "code-cell", "literalinclude", "raw", "eval-rst",
    "csv-table", "toctree", "mermaid", "graphviz", "bibliography", "footbibliography",
))  # fmt: skip

#: MathJax's TeX packages: those of its default TeX input (``input/tex``) and those its
#: autoload package would load on demand, all loaded up front. Left out: noundefined and
#: noerrors (an unknown command or a TeX error must fail, not be drawn in red), autoload and
#: require (on-demand loading), html (links and classes: Temml's trust stays off on the site),
#: mhchem (it needs a font package of its own) and bussproofs (it needs an output jax).
MATHJAX_PACKAGES = (
    "base", "ams", "newcommand", "textmacros", "configmacros", "action", "amscd", "bbox",
    "boldsymbol", "braket", "cancel", "color", "enclose", "extpfeil", "unicode", "verb",
)  # fmt: skip

# -- The workers: one JSON line in, one JSON line out ------------------------------------------

#: Temml with render.js's options; the benchmark checks that its answers are render.js's.
TEMML_WORKER = r"""
"use strict";
const readline = require("readline");
const temml = require(process.argv[2]);
const macros = { "\\mbox": "\\text{#1}" };
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  const [tex, display] = JSON.parse(line);
  const start = process.hrtime.bigint();
  let answer;
  try {
    const mathml = temml.renderToString(tex, {
      displayMode: Boolean(display), throwOnError: true, trust: false, strict: false,
      annotate: false, xml: false, macros: { ...macros },
    });
    answer = { mathml };
  } catch (error) {
    answer =
      error instanceof temml.ParseError
        ? { error: String(error.rawMessage || error.message) }
        : { error: "Temml could not read it: look for a ^, _ or command without its argument" };
  }
  answer.ns = Number(process.hrtime.bigint() - start);
  process.stdout.write(JSON.stringify(answer) + "\n");
});
"""

KATEX_WORKER = r"""
"use strict";
const readline = require("readline");
const katex = require("katex");
const macros = { "\\mbox": "\\text{#1}" };
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  const [tex, display] = JSON.parse(line);
  const start = process.hrtime.bigint();
  let answer;
  try {
    const mathml = katex.renderToString(tex, {
      displayMode: Boolean(display), output: "mathml", throwOnError: true, trust: false,
      strict: false, macros: { ...macros },
    });
    answer = { mathml };
  } catch (error) {
    answer = { error: String((error && error.message) || error) };
  }
  answer.ns = Number(process.hrtime.bigint() - start);
  process.stdout.write(JSON.stringify(answer) + "\n");
});
"""

#: MathJax 4 through its node-main component; a TeX error is thrown, not drawn as <merror>.
MATHJAX_WORKER = r"""
"use strict";
const readline = require("readline");
const MathJax = require("@mathjax/src");
const packages = JSON.parse(process.argv[2]);
MathJax.init({
  loader: {
    load: ["input/tex-base", ...packages.filter((p) => p !== "base").map((p) => "[tex]/" + p)],
  },
  tex: {
    packages,
    macros: { mbox: ["\\text{#1}", 1] },
    formatError: (jax, error) => { throw error; },
  },
  startup: { typeset: false },
}).then(() => {
  let queue = Promise.resolve();
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    queue = queue.then(async () => {
      const [tex, display] = JSON.parse(line);
      const start = process.hrtime.bigint();
      let answer;
      try {
        answer = { mathml: await MathJax.tex2mmlPromise(tex, { display: Boolean(display) }) };
      } catch (error) {
        answer = { error: String((error && error.message) || error) };
      }
      answer.ns = Number(process.hrtime.bigint() - start);
      process.stdout.write(JSON.stringify(answer) + "\n");
    });
  });
}).catch((error) => { process.stderr.write(String(error) + "\n"); process.exit(1); });
"""

LATEX2MATHML_WORKER = r"""
import json
import sys
import time

sys.path.insert(0, sys.argv[1])
from latex2mathml.converter import convert

for line in sys.stdin:
    tex, display = json.loads(line)
    start = time.perf_counter_ns()
    try:
        answer = {"mathml": convert(tex, display="block" if display else "inline")}
    except Exception as error:
        answer = {"error": (type(error).__name__ + ": " + str(error)).rstrip(": ")}
    answer["ns"] = time.perf_counter_ns() - start
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
"""


# -- The site's formulas -----------------------------------------------------------------------


@dataclass(frozen=True)
class Formula:
    tex: str  # as the site hands it to Temml
    display: bool
    kind: str  # the MyST token (or "{math} role", "{math} directive")
    source: str  # the file, relative to the repository, and for a notebook its cell
    line: int  # 1-based line of the block that holds it


def myst_extensions(conf: Path = ROOT / "conf.py") -> list[str]:
    """``myst_enable_extensions`` of conf.py, read without running it."""
    for node in ast.parse(conf.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "myst_enable_extensions"
            for target in node.targets
        ):
            return list(ast.literal_eval(node.value))
    return ["dollarmath", "amsmath"]


def markdown_parser(extensions: list[str] | None = None):
    """MyST's Markdown parser, with the site's extensions (or those given)."""
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    enabled = set(myst_extensions() if extensions is None else extensions)
    return create_md_parser(MdParserConfig(enable_extensions=enabled), RendererHTML)


def site_tex(content: str, display: bool, nowrap: bool = False) -> str:
    """The TeX that kb.markup.math gives Temml for a formula of this content."""
    if not display:
        return content
    from docutils import nodes

    from kb.markup.math import display_tex

    return display_tex(nodes.math_block(content, content, nowrap=nowrap))


def strip_blank_lines(text: str) -> str:
    """``text`` without its leading and trailing blank lines, as MyST stores a math block."""
    lines = text.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


def directive_name(info: str) -> str | None:
    """``admonition`` for the fence info ``{admonition} Update``; None for a code fence."""
    info = info.strip()
    if info.startswith("{") and "}" in info:
        return info[1 : info.index("}")].strip()
    return None


def directive_body(content: str) -> tuple[set[str], str, int]:
    """A directive's option names, its Markdown body, and how many lines the options took."""
    lines = content.split("\n")
    options: set[str] = set()
    skipped = 0
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if end is not None:
            for option in lines[1:end]:
                key = option.split(":", 1)[0].strip()
                if key:
                    options.add(key)
            skipped = end + 1
    else:
        while skipped < len(lines) and re.match(r"^:[\w-]+:", lines[skipped]):
            options.add(lines[skipped].split(":")[1])
            skipped += 1
    while skipped < len(lines) and not lines[skipped].strip():
        skipped += 1
    return options, "\n".join(lines[skipped:]), skipped


def formulas_in_markdown(text: str, source: str, parser=None, offset: int = 0) -> list[Formula]:
    """Every formula in MyST Markdown ``text``, in order; ``offset`` lines precede ``text``."""
    parser = parser or markdown_parser()
    found: list[Formula] = []
    for token in parser.parse(text):
        line = offset + (token.map[0] + 1 if token.map else 1)
        if token.type in MATH_TOKENS:
            content = token.content if token.type == "amsmath" else strip_blank_lines(token.content)
            nowrap = token.type == "amsmath"
            found.append(Formula(site_tex(content, True, nowrap), True, token.type, source, line))
        elif token.type == "inline":
            for child in token.children or ():
                if child.type in MATH_TOKENS:
                    display = MATH_TOKENS[child.type]
                    content = strip_blank_lines(child.content) if display else child.content
                    tex = site_tex(content, display)
                    found.append(Formula(tex, display, child.type, source, line))
                elif child.type == "myst_role" and child.meta.get("name") == "math":
                    found.append(Formula(child.content, False, "{math} role", source, line))
        elif token.type in ("fence", "colon_fence"):
            name = directive_name(token.info)
            if name is None or name in LITERAL_DIRECTIVES:
                continue
            options, body, skipped = directive_body(token.content)
            if name == "math":
                argument = token.info.strip()[token.info.strip().index("}") + 1 :].strip()
                latex = strip_blank_lines(body)
                if argument:
                    latex = argument + "\n\n" + latex if latex else argument
                tex = site_tex(latex, True, "nowrap" in options)
                found.append(Formula(tex, True, "{math} directive", source, line))
            else:
                found.extend(formulas_in_markdown(body, source, parser, line + skipped))
    return found


def formulas_in_notebook(notebook: dict, source: str, parser=None) -> list[Formula]:
    """Every formula in the markdown cells of a notebook (nbformat 4, as a dict)."""
    parser = parser or markdown_parser()
    found: list[Formula] = []
    for index, cell in enumerate(notebook.get("cells", [])):
        if cell.get("cell_type") != "markdown":
            continue
        text = cell.get("source", "")
        if isinstance(text, list):
            text = "".join(text)
        found.extend(formulas_in_markdown(text, f"{source} (cell {index})", parser))
    return found


def sources(root: Path = ROOT, dirs: tuple[str, ...] = SOURCE_DIRS) -> list[Path]:
    """Every .md and .ipynb file under ``dirs`` (none in a hidden folder), in path order."""
    found = []
    for folder in dirs:
        for path in sorted((root / folder).rglob("*")):
            hidden = any(part.startswith(".") for part in path.relative_to(root).parts)
            if path.suffix in (".md", ".ipynb") and path.is_file() and not hidden:
                found.append(path)
    return found


def collect(root: Path = ROOT, dirs: tuple[str, ...] = SOURCE_DIRS) -> list[Formula]:
    """The site's formulas: those of every file :func:`sources` lists, in order."""
    parser = markdown_parser(myst_extensions(root / "conf.py"))
    found: list[Formula] = []
    for path in sources(root, dirs):
        relative, text = path.relative_to(root).as_posix(), path.read_text(encoding="utf-8")
        if path.suffix == ".md":
            found.extend(formulas_in_markdown(text, relative, parser))
        else:
            found.extend(formulas_in_notebook(json.loads(text), relative, parser))
    return found


# -- Installing the candidates -----------------------------------------------------------------


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def npm_version(cache: Path, package: str) -> str | None:
    meta = cache / "npm" / "node_modules" / package / "package.json"
    return json.loads(meta.read_text())["version"] if meta.is_file() else None


def pip_version(cache: Path, distribution: str) -> str | None:
    infos = sorted((cache / "py").glob(f"{distribution}-*.dist-info"))
    return infos[-1].name[len(distribution) + 1 : -len(".dist-info")] if infos else None


def install_commands(cache: Path) -> list[list[str]]:
    """The two commands that install the pinned candidates into ``cache``."""
    npm = ["npm", "install", "--prefix", str(cache / "npm"), "--no-audit", "--no-fund"]
    npm += [f"katex@{KATEX_VERSION}", f"@mathjax/src@{MATHJAX_VERSION}"]
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--upgrade", "--target"]
    pip += [str(cache / "py"), f"latex2mathml=={LATEX2MATHML_VERSION}"]
    return [npm, pip]


def install(cache: Path) -> None:
    """Install what is missing from ``cache`` or there at another version."""
    npm, pip = install_commands(cache)
    wanted = {"katex": KATEX_VERSION, "@mathjax/src": MATHJAX_VERSION}
    if any(npm_version(cache, name) != version for name, version in wanted.items()):
        log("$ " + shlex.join(npm))
        subprocess.run(npm, check=True, stdout=sys.stderr)
    if pip_version(cache, "latex2mathml") != LATEX2MATHML_VERSION:
        log("$ " + shlex.join(pip))
        subprocess.run(pip, check=True, stdout=sys.stderr)


def pip_closure(cache: Path, distribution: str) -> list[Path]:
    """The package's folder, or all that pip put in the target if it depends on anything."""
    info = next((cache / "py").glob(f"{distribution}-*.dist-info"))
    requires = [
        line
        for line in (info / "METADATA").read_text(encoding="utf-8").splitlines()
        if line.startswith("Requires-Dist:") and "extra ==" not in line
    ]
    if not requires:
        return [cache / "py" / distribution]
    return [path for path in (cache / "py").iterdir() if path.name != "bin"]


def du(paths: list[Path]) -> int:
    """Bytes on disk of ``paths`` together, from ``du -sb`` (a folder inside another once)."""
    paths = sorted(set(paths))
    outer = [p for p in paths if not any(o != p and o in p.parents for o in paths)]
    output = subprocess.run(
        ["du", "-sbc", *map(str, outer)], check=True, capture_output=True, text=True
    ).stdout
    return int(output.strip().splitlines()[-1].split()[0])


def npm_closure(prefix: Path, package: str) -> list[Path]:
    """The folders of ``package`` and of everything it depends on, found as Node finds them."""
    top = prefix / "node_modules"
    seen: list[Path] = []
    stack = [top / package]
    while stack:
        folder = stack.pop()
        if folder in seen:
            continue
        seen.append(folder)
        meta = json.loads((folder / "package.json").read_text())
        for dependency in {**meta.get("dependencies", {}), **meta.get("optionalDependencies", {})}:
            for base in [folder, *folder.parents]:
                candidate = base / "node_modules" / dependency
                if candidate.is_dir():
                    stack.append(candidate)
                    break
                if base == prefix:
                    break
    return seen


def satisfies(version: str, ranges: str) -> bool:
    """Whether Node.js ``version`` (``20.20.2``) meets an ``engines`` range such as
    ``20 || >=22`` or ``>=22.12.0``: the comparators npm packages write, not all of semver."""

    def parts(text: str) -> tuple[int, ...]:
        return tuple(int(p) for p in re.findall(r"\d+", text)[:3])

    have = parts(version)
    for alternative in ranges.split("||"):
        ok = True
        for comparator in alternative.split():
            match = re.match(r"^(>=|<=|>|<|=|\^|~)?v?([\d.x*]+)$", comparator)
            if not match:
                continue
            operator, wanted = match.group(1) or "", parts(match.group(2))
            head = have[: len(wanted)]
            ok &= {
                ">=": have >= wanted,
                ">": have > wanted,
                "<=": head <= wanted,
                "<": have < wanted,
                "^": have >= wanted and have[:1] == wanted[:1],
                "~": have >= wanted and have[:2] == wanted[:2],
            }.get(operator, head == wanted)
        if ok:
            return True
    return False


def unmet_engines(folders: list[Path], node_version: str) -> list[str]:
    """``name@version (range)`` for each package that asks for another Node.js."""
    unmet = []
    for folder in folders:
        meta = json.loads((folder / "package.json").read_text())
        wanted = meta.get("engines", {}).get("node")
        if wanted and not satisfies(node_version, wanted):
            unmet.append(f"{meta['name']}@{meta['version']} (node {wanted})")
    return sorted(unmet)


# -- Running a converter -----------------------------------------------------------------------


class Worker:
    """One converter process: a JSON line ``[tex, display]`` in, one JSON line out."""

    def __init__(self, argv: list[str], cwd: Path, stderr: Path) -> None:
        self.stderr = stderr.open("w")
        self.process = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )

    def ask(self, tex: str, display: bool) -> dict:
        self.process.stdin.write(json.dumps([tex, display]) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the worker stopped; see {self.stderr.name}")
        return json.loads(line)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=30)
        self.stderr.close()


@dataclass
class Candidate:
    name: str
    version: str
    argv: list[str]  # the timed worker
    cwd: Path
    installs: str  # what Read the Docs would install, in words
    needs_node: bool
    size: int  # du -sb of the package's folder
    size_with_dependencies: int
    unmet_engines: list[str] = field(default_factory=list)  # npm packages wanting another Node
    startup_argv: list[str] | None = None  # the worker whose start-up counts, if another
    reference_argv: list[str] | None = None  # a worker whose answers must be the same
    environments: frozenset[str] | None = None  # the only environments it converts
    results: dict = field(default_factory=dict)


def candidates(cache: Path) -> list[Candidate]:
    from kb.markup.temml import VERSION as TEMML_VERSION

    node = shutil.which("node") or "node"
    node_version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
    npm = cache / "npm"
    workers = {
        "temml-worker.cjs": TEMML_WORKER,
        "katex-worker.cjs": KATEX_WORKER,
        "mathjax-worker.cjs": MATHJAX_WORKER,
    }
    for name, source in workers.items():
        (npm / name).write_text(source.lstrip(), encoding="utf-8")
    (cache / "latex2mathml-worker.py").write_text(LATEX2MATHML_WORKER.lstrip(), encoding="utf-8")

    temml_files = [TEMML_DIR / name for name in ("temml.cjs", "render.js", "LICENSE")]
    katex_folders = npm_closure(npm, "katex")
    mathjax_folders = npm_closure(npm, "@mathjax/src")
    mathjax_argv = [node, "mathjax-worker.cjs", json.dumps(MATHJAX_PACKAGES)]
    return [
        Candidate(
            name="latex2mathml",
            version=pip_version(cache, "latex2mathml"),
            argv=[sys.executable, str(cache / "latex2mathml-worker.py"), str(cache / "py")],
            cwd=cache,
            installs=f"pip latex2mathml=={pip_version(cache, 'latex2mathml')}",
            needs_node=False,
            size=du([cache / "py" / "latex2mathml"]),
            size_with_dependencies=du(pip_closure(cache, "latex2mathml")),
            environments=latex2mathml_environments(cache),
        ),
        Candidate(
            name="Temml (ours)",
            version=TEMML_VERSION,
            argv=[node, "temml-worker.cjs", str(TEMML_DIR / "temml.cjs")],
            cwd=npm,
            installs="nothing: vendored in src/kb/markup/temml",
            needs_node=True,
            size=du(temml_files),
            size_with_dependencies=du(temml_files),
            startup_argv=[node, str(TEMML_DIR / "render.js")],
            reference_argv=[node, str(TEMML_DIR / "render.js")],
        ),
        Candidate(
            name="KaTeX (MathML output)",
            version=npm_version(cache, "katex"),
            argv=[node, "katex-worker.cjs"],
            cwd=npm,
            installs=f"npm katex@{npm_version(cache, 'katex')}",
            needs_node=True,
            size=du([npm / "node_modules" / "katex"]),
            size_with_dependencies=du(katex_folders),
            unmet_engines=unmet_engines(katex_folders, node_version),
        ),
        Candidate(
            name="MathJax 4",
            version=npm_version(cache, "@mathjax/src"),
            argv=mathjax_argv,
            cwd=npm,
            installs=f"npm @mathjax/src@{npm_version(cache, '@mathjax/src')}",
            needs_node=True,
            size=du([npm / "node_modules" / "@mathjax" / "src"]),
            size_with_dependencies=du(mathjax_folders),
            unmet_engines=unmet_engines(mathjax_folders, node_version),
        ),
    ]


def latex2mathml_environments(cache: Path) -> frozenset[str]:
    """The environments latex2mathml has a rule for; it drops the others without a word."""
    sys.path.insert(0, str(cache / "py"))
    try:
        from latex2mathml import commands
    finally:
        sys.path.remove(str(cache / "py"))
    return frozenset(name.lstrip("\\") for name in commands.MATRICES)


# -- Judging an answer -------------------------------------------------------------------------

TOKEN_ELEMENTS = frozenset(("mi", "mo", "mn", "mtext"))
COMMAND_AS_TEXT = re.compile(r"^\\[A-Za-z]+\*?$")


def localname(element) -> str:
    from lxml import etree

    return etree.QName(element).localname if isinstance(element.tag, str) else ""


def math_element(mathml: str):
    """The ``<math>`` element of a converter's answer (KaTeX wraps it in a ``<span>``)."""
    from lxml import etree

    root = etree.fromstring(mathml)
    for element in root.iter():
        if localname(element) == "math":
            return element
    raise ValueError("no <math> element")


def one_line(message: str) -> str:
    return " ".join(message.split())


def failure(answer: dict, tex: str, environments: frozenset[str] | None = None) -> str | None:
    """Why the answer is not a conversion of ``tex``, or None when it is one."""
    from lxml import etree

    if "error" in answer:
        return one_line(answer["error"]) or "an error without a message"
    try:
        math = math_element(answer["mathml"])
    except (etree.XMLSyntaxError, ValueError) as error:
        return f"its output is not MathML ({error})"
    ampersands = 0
    for element in math.iter():
        name, text = localname(element), (element.text or "").strip()
        if name == "merror":
            return "writes <merror>: " + one_line("".join(element.itertext()))
        if name in TOKEN_ELEMENTS and COMMAND_AS_TEXT.match(text) and r"\verb" not in tex:
            return f"writes the command {text} as text"
        if name in TOKEN_ELEMENTS and text == "&":
            ampersands += 1
    if ampersands > tex.count(r"\&"):
        return "writes an alignment & as text"
    if environments is not None:
        for environment in re.findall(r"\\begin\{([^{}]*)\}", tex):
            if environment not in environments:
                return f"has no rule for the environment {environment} (it drops it silently)"
    return None


def normalised(mathml: str) -> bytes:
    """The ``<math>`` element alone: no TeX annotation, ``data-`` attribute, namespace
    declaration or whitespace between tags. What a site would ship, whichever converter."""
    from lxml import etree

    math = copy.deepcopy(math_element(mathml))
    math.tail = None
    for element in list(math.iter()):
        if localname(element) in ("annotation", "annotation-xml") or not localname(element):
            element.getparent().remove(element)
    for element in list(math.iter()):
        if localname(element) == "semantics":
            parent, index = element.getparent(), element.getparent().index(element)
            for offset, child in enumerate(list(element)):
                parent.insert(index + offset, child)
            parent.remove(element)
    for element in math.iter():
        element.tag = localname(element)
        for key in [key for key in element.attrib if key.startswith("data-")]:
            del element.attrib[key]
        if element.text is not None and not element.text.strip(" \t\r\n"):
            element.text = None
        if element.tail is not None and not element.tail.strip(" \t\r\n"):
            element.tail = None
    etree.cleanup_namespaces(math)
    return etree.tostring(math, encoding="utf-8")


def refusal(mathml: bytes) -> str | None:
    """What kb's allow-list (kb.markup.math) refuses in normalised MathML, or None."""
    from lxml import etree

    from kb.markup.math import MathError, _mathml

    try:
        _mathml(etree.fromstring(mathml))
    except MathError as error:
        return str(error)
    return None


# -- Measuring ---------------------------------------------------------------------------------


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def startup(argv: list[str], cwd: Path, stderr: Path, runs: int) -> float:
    """Median milliseconds from starting a fresh worker to its answer for ``x``."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        worker = Worker(argv, cwd, stderr)
        worker.ask("x", False)
        times.append(time.perf_counter() - start)
        worker.close()
    return ms(statistics.median(times))


def process_ms(argv: list[str], runs: int) -> float:
    """Median milliseconds of a whole process that does nothing (a baseline for start-up)."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return ms(statistics.median(times))


def convert_all(worker: Worker, formulas: list[Formula]) -> tuple[list[dict], float, float]:
    """Every formula once: the answers, the round trip (s) and the time in the converter (s)."""
    start = time.perf_counter()
    answers = [worker.ask(formula.tex, formula.display) for formula in formulas]
    return answers, time.perf_counter() - start, sum(a.get("ns", 0) for a in answers) / 1e9


def measure(candidate: Candidate, formulas: list[Formula], runs: int, cache: Path) -> None:
    stderr = cache / f"{slug(candidate.name)}.stderr"
    log(f"{candidate.name}: converting {len(formulas)} formulas, 1 + {runs} passes")
    worker = Worker(candidate.argv, candidate.cwd, stderr)
    try:
        answers, cold, _inside = convert_all(worker, formulas)
        passes = [convert_all(worker, formulas)[1:] for _ in range(runs)]
        broken = [worker.ask(tex, True) for tex, _what in BROKEN]
    finally:
        worker.close()
    mismatches = None
    if candidate.reference_argv:
        reference = Worker(candidate.reference_argv, candidate.cwd, stderr)
        try:
            expected = convert_all(reference, formulas)[0]
        finally:
            reference.close()
        strip = [{k: v for k, v in answer.items() if k != "ns"} for answer in answers]
        mismatches = sum(a != b for a, b in zip(strip, expected, strict=True))
    log(f"{candidate.name}: start-up, {runs} fresh workers")
    started = startup(candidate.startup_argv or candidate.argv, candidate.cwd, stderr, runs)
    with (cache / f"{slug(candidate.name)}.answers.jsonl").open("w", encoding="utf-8") as out:
        for formula, answer in zip(formulas, answers, strict=True):
            out.write(json.dumps([formula.tex, formula.display, answer], ensure_ascii=False))
            out.write("\n")
    candidate.results = {
        "answers": answers,
        "cold_round_trip_ms": ms(cold),
        "round_trip_ms": ms(statistics.median(p[0] for p in passes)),
        "inside_ms": ms(statistics.median(p[1] for p in passes)),
        "startup_ms": started,
        "reference_mismatches": mismatches,
        "broken": broken,
    }


def summarise(candidate: Candidate, formulas: list[Formula], common: list[int]) -> dict:
    """One converter's figures, from its answers."""
    answers, verdicts = candidate.results["answers"], candidate.results["verdicts"]
    failing: dict[tuple[str, bool], dict] = {}
    for formula, verdict in zip(formulas, verdicts, strict=True):
        if verdict is None:
            continue
        entry = failing.setdefault(
            (formula.tex, formula.display),
            {
                "tex": formula.tex,
                "display": formula.display,
                "count": 0,
                "where": f"{formula.source}:{formula.line}",
                "error": verdict,
            },
        )
        entry["count"] += 1
    written = {i: len(a["mathml"].encode("utf-8")) for i, a in enumerate(answers) if "mathml" in a}
    converted = [i for i, verdict in enumerate(verdicts) if verdict is None]
    compact = {i: normalised(answers[i]["mathml"]) for i in converted}
    refused = Counter(r for r in map(refusal, compact.values()) if r is not None)
    silent = []
    for (tex, what), answer in zip(BROKEN, candidate.results["broken"], strict=True):
        if "error" not in answer:
            found = failure(answer, tex, candidate.environments)
            silent.append({"tex": tex, "what": what, "output": found or "looks like a conversion"})
    results = candidate.results
    return {
        "name": candidate.name,
        "version": candidate.version,
        "total": len(formulas),
        "converted": len(converted),
        "distinct_failing": len(failing),
        "bytes": {
            "common_written": sum(written[i] for i in common),
            "common_normalised": sum(len(compact[i]) for i in common),
            "converted_written": sum(written[i] for i in converted),
            "converted_normalised": sum(len(compact[i]) for i in converted),
        },
        "time_ms": {
            "inside": results["inside_ms"],
            "round_trip": results["round_trip_ms"],
            "first_pass_round_trip": results["cold_round_trip_ms"],
        },
        "startup_ms": results["startup_ms"],
        "installs": candidate.installs,
        "size": candidate.size,
        "size_with_dependencies": candidate.size_with_dependencies,
        "needs_node": candidate.needs_node,
        "unmet_engines": candidate.unmet_engines,
        "reference_mismatches": results["reference_mismatches"],
        "refused": {"count": sum(refused.values()), "reasons": refused.most_common(3)},
        "broken": {"total": len(BROKEN), "raised": len(BROKEN) - len(silent), "silent": silent},
        "failures": sorted(failing.values(), key=lambda e: (-e["count"], e["where"])),
    }


def run(cache: Path, runs: int, command: str) -> dict:
    install(cache)
    formulas = collect()
    log(f"{len(formulas)} formulas ({len({(f.tex, f.display) for f in formulas})} distinct)")
    chosen = candidates(cache)
    for candidate in chosen:
        measure(candidate, formulas, runs, cache)
        answers = candidate.results["answers"]
        candidate.results["verdicts"] = [
            failure(answer, formula.tex, candidate.environments)
            for answer, formula in zip(answers, formulas, strict=True)
        ]
    verdicts = [c.results["verdicts"] for c in chosen]
    common = [i for i in range(len(formulas)) if all(v[i] is None for v in verdicts)]
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    files = {f.source.split(" (cell")[0] for f in formulas}
    python = Path(sys.executable)
    shown = python.relative_to(ROOT).as_posix() if python.is_relative_to(ROOT) else "python"
    installs = [[shown if p == sys.executable else p for p in c] for c in install_commands(cache)]
    home = str(Path.home())
    return {
        "command": command,
        "installs": [shlex.join(c).replace(home, "~") for c in installs],
        "rtd_nodejs": rtd_nodejs(),
        "date": datetime.date.today().isoformat(),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPU cores",
        "node": node,
        "python": platform.python_version(),
        "runs": runs,
        "formulas": {
            "total": len(formulas),
            "distinct": len({(f.tex, f.display) for f in formulas}),
            "inline": sum(not f.display for f in formulas),
            "display": sum(f.display for f in formulas),
            "files": len(files),
            "files_read": len(sources()),
            "kinds": dict(Counter(f.kind for f in formulas).most_common()),
        },
        "common": len(common),
        "baselines_ms": {
            "node": process_ms(["node", "-e", ""], runs),
            "python": process_ms([sys.executable, "-c", "pass"], runs),
        },
        "converters": [summarise(c, formulas, common) for c in chosen],
    }


def rtd_nodejs() -> str | None:
    """The Node.js version .readthedocs.yaml asks for (``build.tools.nodejs``)."""
    import yaml

    path = ROOT / ".readthedocs.yaml"
    if not path.is_file():
        return None
    config = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return str(config.get("build", {}).get("tools", {}).get("nodejs") or "") or None


# -- The report --------------------------------------------------------------------------------


def megabytes(size: int) -> str:
    return f"{size / 1e6:.2f} MB" if size < 1e6 else f"{size / 1e6:.1f} MB"


def code_span(text: str) -> str:
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def truncate(text: str, width: int = 80) -> str:
    text = one_line(text)
    return text if len(text) <= width else text[: width - 1] + "…"


def table(results: dict) -> list[str]:
    """The Markdown table of the report: one row per converter."""
    common = results["common"]
    lines = [
        "| converter | version | formulas converted / total | distinct failing "
        f"| MathML bytes, as written / normalised ({common} formulas all convert) "
        "| convert time, median ms: in converter (round trip) | start-up (ms) "
        "| RTD installs (size, needs Node) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in results["converters"]:
        size = megabytes(c["size"])
        if c["size_with_dependencies"] != c["size"]:
            size += f", {megabytes(c['size_with_dependencies'])} with dependencies"
        cells = [
            c["name"],
            c["version"],
            f"{c['converted']} / {c['total']}",
            str(c["distinct_failing"]),
            f"{c['bytes']['common_written']:,} / {c['bytes']['common_normalised']:,}",
            f"{c['time_ms']['inside']:.1f} ({c['time_ms']['round_trip']:.1f})",
            f"{c['startup_ms']:.0f}",
            f"{c['installs']} ({size}; Node: {'yes' if c['needs_node'] else 'no'})",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def short(converter: dict) -> str:
    """The converter's name without its note: ``KaTeX`` for ``KaTeX (MathML output)``."""
    return converter["name"].split(" (")[0]


def conclusion(results: dict) -> str:
    """Three to five sentences drawn from the figures: is Temml the right choice?"""
    converters = results["converters"]
    temml = next(c for c in converters if c["name"].startswith("Temml"))
    others = [c for c in converters if c is not temml]
    total, common = temml["total"], results["common"]
    best = max(c["converted"] for c in converters)
    by_coverage = sorted(converters, key=lambda c: -c["converted"])
    sentences = []

    if len({c["converted"] for c in converters}) == 1:
        sentences.append(
            f"Every converter converts {best} of the site's {total} formulas"
            + (", so coverage does not tell them apart." if best == total else ".")
        )
    else:
        sentences.append(
            "Coverage differs: "
            + ", ".join(f"{short(c)} converts {c['converted']}" for c in by_coverage)
            + f" of the site's {total} formulas."
        )

    def size(c: dict, kind: str) -> int:
        return c["bytes"][f"common_{kind}"]

    written = sorted(converters, key=lambda c: size(c, "written"))
    compact = sorted(converters, key=lambda c: size(c, "normalised"))
    ratio = size(temml, "normalised") / size(compact[0], "normalised")
    if written[0] is temml and compact[0] is temml:
        sentences.append(
            f"On the {common} formulas that all convert, Temml writes the least MathML, as "
            f"written ({size(temml, 'written'):,} bytes) and normalised "
            f"({size(temml, 'normalised'):,})."
        )
    elif written[0] is temml:
        sentences.append(
            f"On the {common} formulas that all convert, Temml's answers are the smallest as "
            f"written ({size(temml, 'written'):,} bytes, against {size(written[-1], 'written'):,} "
            f"for {short(written[-1])}), but normalised {short(compact[0])}'s are the smallest "
            f"and Temml's are {ratio:.2f} times theirs."
        )
    else:
        sentences.append(
            f"On the {common} formulas that all convert, {short(written[0])} writes the least "
            f"MathML as written and {short(compact[0])} once normalised; Temml's normalised "
            f"MathML is {ratio:.2f} times the smallest."
        )

    def build_ms(c: dict) -> float:
        return c["time_ms"]["round_trip"] + c["startup_ms"]

    slowest = max(converters, key=build_ms)
    fastest = min(converters, key=lambda c: c["time_ms"]["inside"])
    sentences.append(
        ("Time is small for every one: " if build_ms(slowest) < 1000 else "Time differs: ")
        + f"the slowest, {short(slowest)}, takes {build_ms(slowest):.0f} ms for all formulas "
        f"with its start-up, Temml {build_ms(temml):.0f} ms, "
        f"{temml['time_ms']['inside']:.1f} ms of it in the converter"
        + (
            " (the least of all)."
            if fastest is temml
            else f" ({short(fastest)}: {fastest['time_ms']['inside']:.1f} ms)."
        )
    )

    on_node = [c for c in others if c["needs_node"]]
    python_only = [c for c in others if not c["needs_node"]]
    adds = [f"{short(c)} {megabytes(c['size_with_dependencies'])}" for c in on_node]
    sentence = "Temml asks Read the Docs for nothing but the Node.js it already sets up"
    if adds:
        sentence += (
            ", where the npm packages would add "
            + (", ".join(adds[:-1]) + " and " + adds[-1] if len(adds) > 1 else adds[0])
            + " (with their dependencies)"
        )
    for c in python_only:
        sentence += (
            f"; {short(c)} needs no Node.js, but of {c['broken']['total']} broken formulas it "
            f"reported {c['broken']['raised']} as errors, Temml {temml['broken']['raised']}"
        )
    sentences.append(sentence + ".")

    strictest = max(converters, key=lambda c: c["broken"]["raised"])
    if temml["converted"] == best and temml["broken"]["raised"] == strictest["broken"]["raised"]:
        sentences.append(
            "So Temml stays the right choice: no candidate converts more of the site's formulas "
            "or reports more broken TeX as an error, and of those on Node.js it alone costs no "
            "install."
        )
    elif temml["converted"] < best:
        leader = by_coverage[0]
        sentences.append(
            f"Temml is not the best on coverage: {short(leader)} converts "
            f"{leader['converted'] - temml['converted']} more formulas, to be weighed against "
            "its install and how it reports broken TeX."
        )
    else:
        sentences.append(
            f"Temml converts as many formulas as any, but {short(strictest)} reports more broken "
            f"TeX as an error ({strictest['broken']['raised']} of {strictest['broken']['total']}, "
            f"Temml {temml['broken']['raised']}), which counts for it."
        )
    return " ".join(sentences)


def report(results: dict) -> str:
    """The Markdown report."""
    f = results["formulas"]
    kinds = ", ".join(f"{count} {kind}" for kind, count in f["kinds"].items())
    base = results["baselines_ms"]
    lines = [
        "# TeX to MathML converters on the site's formulas",
        "",
        "Generated by `benchmarks/math_converters.py`; every figure below comes from its run "
        f"of {results['date']} ({results['machine']}, Node.js {results['node']}, Python "
        f"{results['python']}):",
        "",
        "```shell",
        results["command"],
        "```",
        "",
        f"- Formulas: the site's own, {f['total']} occurrences ({f['distinct']} distinct; "
        f"{f['inline']} inline, {f['display']} display) in {f['files']} of the "
        f"{f['files_read']} Markdown and notebook files under posts/ and pages/, found with "
        f"MyST's parser set up as conf.py sets it up ({kinds}). Display formulas are given as "
        "kb hands them to Temml.",
        "- Each converter runs as one worker process that takes a formula as a JSON line and "
        "answers one, as the site's render.js does.",
        "- A formula fails when the converter raises, writes `<merror>`, writes a TeX command or "
        "an alignment `&` as text, or (latex2mathml) holds an environment it has no rule for.",
        "- Bytes: summed over the formulas every converter converts, as written and normalised "
        "(the `<math>` element alone, without TeX annotations, `data-` attributes, namespace "
        "declaration or whitespace between tags).",
        "- Convert time: all formulas, failing ones included, in one warm worker, the median of "
        f"{results['runs']} passes after an untimed one; the time inside the converter and, in "
        "brackets, the round trip through the pipe.",
        f"- Start-up: a fresh worker's time to its first answer, median of {results['runs']}; a "
        f"bare `node -e ''` takes {base['node']:.0f} ms here and a bare `python -c pass` "
        f"{base['python']:.0f} ms.",
        "- Sizes: `du -sb` of the installed package folder (for Temml, of the vendored files), "
        "and of it with every npm package it depends on.",
        "",
        "The candidates were installed with:",
        "",
        "```shell",
        *results["installs"],
        "```",
        "",
        *table(results),
        "",
    ]
    for c in results["converters"]:
        mismatches = c["reference_mismatches"]
        if mismatches is not None:
            same = (
                f"the same answers as src/kb/markup/temml/render.js for all {c['total']} formulas"
                if mismatches == 0
                else f"answers other than src/kb/markup/temml/render.js's for {mismatches} "
                f"of {c['total']} formulas"
            )
            lines += [
                f"{short(c)} is timed in a worker with render.js's options; it gave {same}. Its "
                "start-up is render.js's own.",
                "",
            ]
    for c in results["converters"]:
        if c["unmet_engines"]:
            rtd = results.get("rtd_nodejs")
            lines += [
                f"Of {short(c)}'s npm packages, these declare a Node.js other than "
                f"{results['node']}"
                + (f" (.readthedocs.yaml sets nodejs {rtd})" if rtd else "")
                + ": "
                + ", ".join(c["unmet_engines"])
                + "; npm installs them all the same, with a warning.",
                "",
            ]
    lines += ["## Failing formulas", ""]
    for c in results["converters"]:
        lines.append(f"### {c['name']}")
        lines.append("")
        if not c["failures"]:
            lines.append("None.")
        for entry in c["failures"]:
            mode = "display" if entry["display"] else "inline"
            times = f", {entry['count']} times" if entry["count"] > 1 else ""
            lines.append(
                f"- {code_span(truncate(entry['tex']))} ({mode}{times}, {entry['where']}): "
                f"{truncate(entry['error'], 160)}"
            )
        lines.append("")
    lines += [
        "## What kb's allow-list would refuse",
        "",
        "kb.markup.math copies a converter's MathML element by element through an allow-list. "
        "Of each converter's converted formulas, normalised, it would refuse:",
        "",
    ]
    for c in results["converters"]:
        reasons = "; ".join(f"{reason} ({count})" for reason, count in c["refused"]["reasons"])
        lines.append(
            f"- {c['name']}: {c['refused']['count']} of {c['converted']}"
            + (f", most often: {reasons}" if reasons else "")
        )
    lines += [
        "",
        "## Broken TeX",
        "",
        "TeX that the site refuses, with a message, when a page is read. How many of these "
        "each converter reports as an error itself (the others it converts; what the checks "
        "above make of the output is given):",
        "",
    ]
    for c in results["converters"]:
        broken = c["broken"]
        passed = "; ".join(
            f"{code_span(entry['tex'])} ({entry['what']}): {entry['output']}"
            for entry in broken["silent"]
        )
        lines.append(
            f"- {c['name']}: {broken['raised']} of {broken['total']}"
            + (f"; converted: {passed}" if passed else "")
        )
    lines += ["", "## Conclusion", "", conclusion(results), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path("~/.cache/kb-bench-math"),
        help="where the candidates are installed (default: ~/.cache/kb-bench-math)",
    )
    parser.add_argument("--out", type=Path, help="write the Markdown report here")
    parser.add_argument("--runs", type=int, default=5, help="timed passes and start-ups (5)")
    args = parser.parse_args(argv)
    cache = args.cache.expanduser().resolve()
    (cache / "npm").mkdir(parents=True, exist_ok=True)
    given = sys.argv[1:] if argv is None else argv
    command = shlex.join([".venv/bin/python", "benchmarks/math_converters.py", *given])
    results = run(cache, args.runs, command)
    if args.out:
        args.out.write_text(report(results), encoding="utf-8")
        log(f"wrote {args.out}")
    print(json.dumps(results, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
