"""What one build keeps for the next: compiled templates; and the cycle collector, paused while
the environment loads, everything frozen at the build's end of a process's first build and given
back when the process builds again (and from then on nothing frozen)."""

from __future__ import annotations

import gc
import shutil
import subprocess
import sys
import weakref
from pathlib import Path

import jinja2
from helpers import soup
from sitebuild import build, copy_root

from kb.incremental.templatecache import CACHE_FOLDER
from kb.upstream.sphinx import doctrees_waiting_to_be_written


class _Cycle:
    """Garbage that only the cycle collector can free: it points to itself."""

    def __init__(self):
        self.itself = self


#: A process's builds: the first one loads the environment an earlier process left (as
#: ``sphinx-build`` does), the second builds again in the same process.
_FIRST_BUILDS = """
import gc, io, sys, weakref
from pathlib import Path
from sphinx.testing.util import SphinxTestApp

class Cycle:  # _Cycle, in this process: garbage only the cycle collector can free
    def __init__(self):
        self.itself = self

def build(site, loaded=lambda: None, finished=lambda app, exception: None):
    app = SphinxTestApp("html", srcdir=site, status=io.StringIO(), warning=io.StringIO())
    loaded()  # the environment is loaded, the builder made
    app.connect("build-finished", finished, priority=900)
    try:
        app.build()
    finally:
        app.cleanup()

site = Path(sys.argv[1])
if sys.argv[2:] == ["once"]:
    build(site)
    sys.exit()
garbage = []
frozen_when_loaded = []
build(site, loaded=lambda: frozen_when_loaded.append(gc.get_freeze_count()),
      finished=lambda app, exc: garbage.append(weakref.ref(Cycle())))
gc.collect()
print(frozen_when_loaded[0], garbage[0]() is not None, gc.get_freeze_count(), gc.isenabled())
build(site)  # the process builds again: the first build's objects are given back
print(garbage[0]() is None, gc.get_freeze_count())
"""


def test_a_first_build_freezes_what_it_keeps_and_a_second_gives_it_back(tmp_path):
    site = copy_root("listings", tmp_path / "site")
    # Each process's first build, as every build kb runs itself is: one leaves the environment.
    for argument in ("once", "again"):
        result = subprocess.run(
            [sys.executable, "-c", _FIRST_BUILDS, str(site), argument],
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stderr
    first, second = (line.split() for line in result.stdout.splitlines()[-2:])
    frozen_when_loaded, left_kept, frozen_after, enabled = first
    # Moved out of the collector's way once the environment loaded: the configuration, the
    # modules, the environment; and at the build's end what was left, so that a process that
    # ends now does not free it object by object: the collector no longer sees the garbage.
    assert int(frozen_when_loaded) > 10_000
    assert left_kept == "True" and int(frozen_after) > int(frozen_when_loaded)
    assert enabled == "True"
    # The process built again: what the first build froze is given back, and freed.
    freed, frozen_at_last = second
    assert freed == "True" and int(frozen_at_last) == 0


#: A process's first build, watched as it reads: before each document is read (after kb's
#: handlers), whether the last document's garbage and its doctree, dropped from memory past
#: the limit, were freed, and how many objects are frozen.
_READING = """
import gc, io, sys, weakref
from pathlib import Path
from sphinx.testing.util import SphinxTestApp

class Cycle:
    def __init__(self):
        self.itself = self

import kb.incremental.collector
from kb.core.events import FREEZE_WHAT_WAS_READ
site, reading_from = Path(sys.argv[1]), int(sys.argv[2])
kb.incremental.collector.FREEZE_READING_FROM = reading_from
app = SphinxTestApp("html", srcdir=site, status=io.StringIO(), warning=io.StringIO(),
                    confoverrides={"kb_doctrees_in_memory": 1})
last = {}
seen = []

def read(app, doctree):
    last["doctree"] = weakref.ref(doctree)
    last["garbage"] = weakref.ref(Cycle())

def before_reading(app, env, docname):
    if last:
        seen.append((last["doctree"]() is None, last["garbage"]() is None,
                     gc.get_freeze_count()))

def read_all(app, env):
    # What the reading leaves, once every document is read. Until the collector's step has
    # run, no automatic collection may free it (an explicit one still does).
    gc.disable()
    last["left"] = weakref.ref(Cycle())

def collector_step_done(app, env):
    gc.enable()

def writing(app, *arguments):
    if not written:
        written.append((gc.get_freeze_count(), last["left"]() is None))

written = []
app.connect("doctree-read", read, priority=1000)
app.connect("env-purge-doc", before_reading, priority=1000)
app.connect("env-updated", read_all, priority=0)
# kb's step runs at FREEZE_WHAT_WAS_READ, and was connected first
app.connect("env-updated", collector_step_done, priority=FREEZE_WHAT_WAS_READ)
app.connect("html-page-context", writing)
try:
    app.build()
finally:
    app.cleanup()
for doctree_freed, garbage_freed, frozen in seen:
    print(doctree_freed, garbage_freed, frozen)
print("writing", *written[0])
"""


def _watch_reading(site: Path, reading_from: int) -> tuple[list[list[str]], list[str]]:
    """What :data:`_READING` saw before each document was read, with the collector freezing as
    the build reads from ``reading_from`` documents on; and as the first page was written, the
    objects frozen, and whether the garbage left once every document was read was freed."""
    result = subprocess.run(
        [sys.executable, "-c", _READING, str(site), str(reading_from)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    *reading, writing = [line.split() for line in result.stdout.splitlines()]
    assert writing[0] == "writing"
    return reading, writing[1:]


def test_a_first_build_frees_each_documents_garbage_and_freezes_the_rest_as_it_reads(tmp_path):
    site = copy_root("listings", tmp_path / "site")
    seen, writing = _watch_reading(site, 1)
    assert len(seen) >= 5
    # The first doctree waits in memory for the writing phase (the limit is one); every later
    # one was dropped, and the collector freed it before freezing what the document left.
    assert [doctree for doctree, _, _ in seen] == ["False"] + ["True"] * (len(seen) - 1)
    assert all(garbage == "True" for _, garbage, _ in seen)
    # What each document leaves is frozen: the collector's full collections walk one
    # document's objects, not everything read before.
    frozen = [int(count) for _, _, count in seen]
    assert frozen == sorted(frozen) and frozen[-1] > frozen[0]
    # Before the pages are written, what the reading left was collected, and the rest frozen.
    frozen_writing, left_freed = writing
    assert int(frozen_writing) > frozen[-1]
    assert left_freed == "True"


def test_a_build_that_reads_few_documents_freezes_what_it_keeps_once_it_has_read(tmp_path):
    # Its heap never grows by a quarter as it reads: a collection before each document would
    # only cost.
    site = copy_root("listings", tmp_path / "site")
    seen, writing = _watch_reading(site, 10_000)
    assert len(seen) >= 5
    assert len({count for _, _, count in seen}) == 1
    # Once every document is read, what the build keeps (the environment's new records, the
    # catalog) is frozen, out of the way of the writing phase's full collections; without a
    # collection's walk first: what the reading left is frozen with it.
    frozen_writing, left_freed = writing
    assert int(frozen_writing) > int(seen[0][2])
    assert left_freed == "False"


#: kb serve's standby: an application made, what the build can make ahead made, then it waits.
_WAITING = """
import gc, io, sys, weakref
from pathlib import Path
from sphinx.testing.util import SphinxTestApp
from kb.cli import buildworker
from kb.core.state import build_state

class Cycle:
    def __init__(self):
        self.itself = self

app = SphinxTestApp("html", srcdir=Path(sys.argv[1]), status=io.StringIO(), warning=io.StringIO())
if sys.argv[2:] == ["build"]:
    app.build()
else:
    left = weakref.ref(Cycle())
    frozen = gc.get_freeze_count()
    # The generation of each collection from the first step made ahead on, and the steps.
    collections = []
    steps = buildworker.ahead_steps
    early = buildworker._WhileTheLastBuildFinishes(told=lambda: False)
    if sys.argv[2:] == ["early"]:  # begun while the last build finished
        first = [lambda app: collections.append("first"), *buildworker.environment_steps()]
        buildworker.environment_steps = lambda: first
        buildworker.ahead_steps = lambda: [*first, *steps()[len(first) - 1:]]
    else:
        buildworker.ahead_steps = lambda: [lambda app: collections.append("first"), *steps()]
    later = buildworker.ahead_steps
    buildworker.ahead_steps = lambda: [*later(), lambda app: collections.append("last")]
    gc.callbacks.append(
        lambda phase, info: collections.append(info["generation"])
        if phase == "start" and collections else None
    )
    if sys.argv[2:] == ["early"]:
        early(app, building=lambda: True)
        collections.append("made-early")
        more = [Cycle() for _ in range(100_000)]  # as much as the rest of the application
    buildworker.work_ahead(app, told=lambda: sys.argv[2:] == ["told"], begun=early)
    gc.callbacks.clear()
    state = build_state(app)
    ahead = state.catalog_ahead
    made = [state.related_ahead, state.site_checks_ahead, state.questions_ahead]
    print(
        len(ahead.records) if ahead else 0, left() is None, gc.get_freeze_count() > frozen,
        all(part is not None for part in made), str(collections).replace(" ", ""), gc.isenabled(),
    )
app.cleanup()
"""


def _wait_in_standby(site: Path, *steps: str) -> list[str]:
    for step in ("build", *steps):
        result = subprocess.run(
            [sys.executable, "-c", _WAITING, str(site), step], capture_output=True, text=True
        )
        assert result.returncode == 0, result.stderr
    return result.stdout.rsplit(None, 1)[0].split(None, 4) + result.stdout.split()[-1:]


def test_the_standby_makes_each_part_ahead_then_collects_and_freezes_it(tmp_path):
    # Collected and frozen while no one waits: the build's full collections then walk only
    # what the build makes.
    site = copy_root("listings", tmp_path / "site")
    records, left_freed, frozen_more, all_made, collections, enabled = _wait_in_standby(
        site, "wait"
    )
    assert int(records) > 0
    assert left_freed == "True"
    assert frozen_more == "True"
    # The related lists' vectors, the checks across posts and Sphinx's answers: made too.
    assert all_made == "True"
    # The collector paused while it made them, then one full collection, and on again.
    assert collections == "['first','last',2]"
    assert enabled == "True"


def test_a_standby_that_began_while_the_last_build_finished_keeps_the_collector_paused(
    tmp_path,
):
    # The steps made before its application was made are not walked by the collections of
    # the rest of its making: one full collection once every step is made, then on again.
    site = copy_root("listings", tmp_path / "site")
    records, _, frozen_more, all_made, collections, enabled = _wait_in_standby(site, "early")
    assert int(records) > 0 and frozen_more == "True" and all_made == "True"
    assert collections == "['first','made-early','last',2]"
    assert enabled == "True"


def test_a_standby_told_to_build_before_it_works_ahead_freezes_without_collecting(tmp_path):
    site = copy_root("listings", tmp_path / "site")
    records, left_freed, frozen_more, all_made, collections, enabled = _wait_in_standby(
        site, "told"
    )
    assert (records, all_made) == ("0", "False")  # the build makes it all
    assert left_freed == "False"  # the author waits: no walk of the heap
    assert frozen_more == "True"
    assert collections == "[]"
    assert enabled == "True"


def test_a_process_that_builds_again_freezes_nothing_more(make_app, tmp_path):
    site = copy_root("listings", tmp_path / "site")
    for _ in range(2):  # whatever this process built before, it has now built again
        build(make_app, site)
    assert gc.get_freeze_count() == 0
    garbage = []

    def leave_garbage(app, exception):
        garbage.append(weakref.ref(_Cycle()))

    app = make_app("html", srcdir=site)  # loads the environment the first build left
    app.connect("build-finished", leave_garbage, priority=900)
    try:
        assert len(app.env.all_docs) > 0
        assert gc.isenabled()
        app.build()
    finally:
        app.cleanup()
    assert Path(app.outdir, "index.html").is_file()
    assert gc.isenabled() and gc.get_freeze_count() == 0
    # Its garbage is the collector's, as in any program: no walk of the whole heap is owed.
    gc.collect()
    assert garbage[0]() is None


def test_a_process_that_had_the_collector_off_keeps_it_off(make_app, tmp_path):
    site = copy_root("listings", tmp_path / "site")
    gc.disable()
    try:
        build(make_app, site)
        assert not gc.isenabled()
    finally:
        gc.enable()


# -- Compiled templates --------------------------------------------------------------------------


def _brand(site: Path, text: str) -> None:
    template = site / "_templates" / "sidebar" / "brand.html"
    template.parent.mkdir(parents=True, exist_ok=True)
    template.write_text(f'<p class="brand-test">{text}</p>\n', encoding="utf-8")


def _brand_on_home(app) -> str:
    return soup(Path(app.outdir, "index.html")).select_one("p.brand-test").get_text()


def test_compiled_templates_are_kept_and_an_edited_template_is_compiled_again(make_app, tmp_path):
    site = copy_root("listings", tmp_path / "site")
    (site / "conf.py").write_text(
        (site / "conf.py").read_text() + '\ntemplates_path = ["_templates"]\n'
    )
    _brand(site, "First brand")
    app = build(make_app, site)
    assert app.warning.getvalue() == ""
    assert _brand_on_home(app) == "First brand"
    caches = list(Path(app.doctreedir, CACHE_FOLDER).glob("*/__jinja2_*.cache"))
    assert len(caches) >= 10  # furo's, ablog's and kb's templates, the project's own

    _brand(site, "Second brand")
    app = build(make_app, site)
    assert app.warning.getvalue() == ""
    assert _brand_on_home(app) == "Second brand"


def _compiling(monkeypatch) -> list[str]:
    """The names of the templates Jinja compiles from now on, in this process. (Sphinx renders
    its static ``*_t`` files from strings, which Jinja never keeps: those have no name.)"""
    compiled: list[str] = []
    compile_template = jinja2.Environment.compile

    def counting(environment, source, name=None, filename=None, *args, **kwargs):
        if name is not None:
            compiled.append(name)
        return compile_template(environment, source, name, filename, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    return compiled


def test_a_process_that_builds_again_compiles_each_template_once(make_app, tmp_path, monkeypatch):
    first = copy_root("listings", tmp_path / "first")
    (first / "conf.py").write_text(
        (first / "conf.py").read_text() + '\ntemplates_path = ["_templates"]\n'
    )
    _brand(first, "First brand")
    build(make_app, first)  # whatever this process compiled before, these are compiled now
    second = tmp_path / "second"
    shutil.copytree(first, second, ignore=shutil.ignore_patterns("_build"))
    compiled = _compiling(monkeypatch)

    # Another site with another doctree folder: the theme's and kb's templates are not compiled
    # again, but each file of the new folder's cache is written, for the next process.
    app = build(make_app, second)
    assert compiled == ["sidebar/brand.html"]  # the one template at a path of its own
    caches = {p.name for p in Path(app.doctreedir, CACHE_FOLDER).glob("*/__jinja2_*.cache")}
    first_caches = {p.name for p in Path(first, "_build", "doctrees", CACHE_FOLDER).glob("*/*")}
    assert len(caches) == len(first_caches) >= 10
    assert len(caches - first_caches) == 1  # the brand's: Jinja's key holds the template's path

    # An edited template is compiled again, and shows.
    compiled.clear()
    _brand(second, "Second brand")
    app = build(make_app, second)
    assert compiled == ["sidebar/brand.html"]
    assert _brand_on_home(app) == "Second brand"


# -- Doctrees waiting to be written ----------------------------------------------------------


def _build_counting_waiting(make_app, site: Path, **overrides) -> tuple[object, int]:
    """Build ``site``; the most read doctrees that waited in memory for the writing phase at
    once (counted after each document is read, after kb's own handler)."""
    most = 0

    def count(app, doctree):
        nonlocal most
        most = max(most, len(doctrees_waiting_to_be_written(app.env)))

    app = make_app("html", srcdir=site, confoverrides=overrides)
    app.connect("doctree-read", count, priority=1000)
    try:
        app.build()
    finally:
        app.cleanup()
    return app, most


def test_read_doctrees_wait_in_memory_up_to_the_limit_and_the_pages_are_the_same(
    make_app, tmp_path
):
    unbounded, most_unbounded = _build_counting_waiting(
        make_app, copy_root("listings", tmp_path / "one")
    )
    bounded, most_bounded = _build_counting_waiting(
        make_app, copy_root("listings", tmp_path / "two"), kb_doctrees_in_memory=1
    )
    assert most_unbounded > 3  # Sphinx keeps what it reads: the limit is what bounds it
    assert most_bounded <= 1
    assert doctrees_waiting_to_be_written(bounded.env) == {}  # none left after reading
    # Pages written from the doctrees read back from disk are the same, byte for byte.
    pages = sorted(p.relative_to(unbounded.outdir) for p in Path(unbounded.outdir).rglob("*.html"))
    assert len(pages) > 10
    assert pages == sorted(
        p.relative_to(bounded.outdir) for p in Path(bounded.outdir).rglob("*.html")
    )
    different = [
        str(page)
        for page in pages
        if Path(unbounded.outdir, page).read_bytes() != Path(bounded.outdir, page).read_bytes()
    ]
    assert different == []
