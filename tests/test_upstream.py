"""What kb relies on in other packages' internals: all of it in kb.upstream, and still there.

* No module of kb outside ``src/kb/upstream/`` touches a private name (or a known undocumented
  attribute) of another package: the source is read with ``ast``.
* Each function of kb.upstream has a check here that what it relies on is in the installed
  version, and a test that says so when it is not.
* kb.core.ablog's other reliance on ablog (its page and feed writers, unplugged; its slug
  rule, repeated in kb.checks.slugs) and what kb.notebooks imports of MyST-NB are checked too.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import os
import pickle
import shutil
import time
from pathlib import Path

import pytest
from ablog import blog as ablog_blog
from bs4 import BeautifulSoup
from docutils import nodes
from docutils.utils import new_document
from sitebuild import build, copy_root

from kb.checks.slugs import slugify
from kb.core.state import build_state
from kb.upstream import ablog as upstream_ablog
from kb.upstream import furo as upstream_furo
from kb.upstream import myst_nb as upstream_myst_nb
from kb.upstream import myst_parser as upstream_myst_parser
from kb.upstream import pagefind as upstream_pagefind
from kb.upstream import pygments as upstream_pygments
from kb.upstream import sphinx as upstream_sphinx
from kb.upstream import sphinx_autobuild as upstream_autobuild
from kb.upstream import sphinx_build as upstream_sphinx_build
from kb.upstream import sphinx_read as upstream_sphinx_read
from kb.upstream.docutils import detach, writer_settings
from kb.upstream.sphinx import doctrees_waiting_to_be_written

SRC = Path(__file__).parent.parent / "src" / "kb"
UPSTREAM = SRC / "upstream"

# -- (a) Private names of other packages: only in kb.upstream ------------------------------------

#: Attributes other packages keep but do not document, though their names look public: reading
#: or setting one is relying on internals as much as a name with an underscore.
UNDOCUMENTED = {
    "build_info",  # StandaloneHTMLBuilder's (sphinx.builders.html._build_info.BuildInfo)
    "newest_template_mtime",  # BuiltinTemplateLoader's
    "config_status",  # BuildEnvironment's
    "listeners",  # EventManager's
    "translation_handlers",  # SphinxComponentRegistry's
    "html_assets_policy",  # SphinxComponentRegistry's
    "builtin_extensions",  # sphinx.application's
    "current_docname",  # the builders'
    "imgpath",
    "dlpath",
    "secnumbers",
    "fignumbers",
}

#: Names with a leading underscore that are their package's documented API.
DOCUMENTED = {
    ("os", "_exit"),  # the documented way for a forked child to leave
    ("lxml.etree", "_Element"),  # lxml's element class, in its API reference
    ("sphinx.locale", "_"),  # gettext
}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _kb_own(name: str) -> bool:
    """A name kb gives its own data on another package's object (``app._kb_writer_settings``)."""
    return name.startswith("_kb")


def _is_kb_module(module: str | None, level: int) -> bool:
    return level > 0 or module == "kb" or (module or "").startswith("kb.")


def private_uses(source: str) -> list[tuple[int, str]]:
    """Where ``source`` touches a private or undocumented name of a package other than kb:
    ``(line, what)`` for each ``from <package> import _name``, ``import <package>._module``,
    ``x._name`` (``x`` anything but ``self``, ``cls`` or a name imported from kb: a parameter
    is another package's object) and ``getattr(x, "_name")``; and for each known undocumented
    attribute (:data:`UNDOCUMENTED`) however it is reached."""
    tree = ast.parse(source)
    imported: dict[str, str] = {}  # name bound by an import -> the module it names
    kb_names: set[str] = set()
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                imported[bound] = alias.name if alias.asname else bound
                if _is_kb_module(alias.name, 0):
                    kb_names.add(bound)
                elif any(_private(part) for part in alias.name.split(".")):
                    found.append((node.lineno, f"import {alias.name}"))
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                bound = alias.asname or alias.name
                if _is_kb_module(node.module, node.level):
                    kb_names.add(bound)
                    continue
                module = node.module or ""
                imported[bound] = f"{module}.{alias.name}"
                if any(_private(part) for part in module.split(".")) or (
                    _private(alias.name) and (module, alias.name) not in DOCUMENTED
                ):
                    found.append((node.lineno, f"from {module} import {alias.name}"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            root = node.value
            while isinstance(root, ast.Attribute | ast.Call | ast.Subscript):
                root = root.func if isinstance(root, ast.Call) else root.value
            owner = root.id if isinstance(root, ast.Name) else None
            if owner in ("self", "cls") and not (
                node.attr in UNDOCUMENTED and node.value is not root
            ):
                continue
            if owner in kb_names and node.attr not in UNDOCUMENTED:
                continue  # a kb module's own helper, or kb's own class
            if node.attr in UNDOCUMENTED or (_private(node.attr) and not _kb_own(node.attr)):
                dotted = ast.unparse(node.value)
                if (imported.get(dotted, dotted), node.attr) not in DOCUMENTED:
                    found.append((node.lineno, ast.unparse(node)))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            name = node.args[1].value
            if name in UNDOCUMENTED or (_private(name) and not _kb_own(name)):
                found.append((node.lineno, ast.unparse(node)))
    return sorted(set(found))


def test_no_module_outside_upstream_touches_another_packages_private_names():
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if UPSTREAM in path.parents:
            continue
        for line, what in private_uses(path.read_text(encoding="utf-8")):
            found.append(f"{path.relative_to(SRC.parent)}:{line}: {what}")
    assert found == [], "move these into a function of src/kb/upstream/:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "source",
    [
        "from ablog.blog import Blog\nBlog._dict.clear()",
        "from sphinx.builders.html._build_info import BuildInfo",
        "import sphinx.builders.html._build_info",
        "from sphinx.util import _private_helper",
        "def f(env):\n    return env.config_status",
        "def f(builder):\n    return builder.templates.newest_template_mtime()",
        "def f(parser, env):\n    parser._config = env.config",
        'def f(env):\n    return getattr(env, "_write_doc_doctree_cache", None)',
        "def f(app):\n    return app.events.listeners",
        "import sphinx.application\nsphinx.application.builtin_extensions",
        "class W(Base):\n    def f(self):\n        return self.builder.dlpath",
    ],
)
def test_the_search_finds_each_kind_of_private_use(source):
    assert private_uses(source)


@pytest.mark.parametrize(
    "source",
    [
        "from ._impl import _helper\n_helper()",
        "from . import shards\nshards._stage()",
        "from kb.core import fragments\nfragments._settings(app)",
        "class A:\n    def f(self):\n        return self._cache",
        "def f(app):\n    return app._kb_writer_settings",
        'def f(app):\n    return getattr(app, "_kb_writer_settings", None)',
        "import os\nos._exit(0)",
        "from lxml import etree\nx: etree._Element",
        "from sphinx.locale import _",
        "x = obj.__class__",
    ],
)
def test_the_search_leaves_kbs_own_names_and_documented_ones_alone(source):
    assert private_uses(source) == []


def test_upstream_imports_nothing_of_kb_above_it():
    # The ground floor: kb.upstream's modules import one another at most.
    for path in UPSTREAM.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level > 0:
                assert node.level == 1, f"{path.name} imports kb above kb.upstream"
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                assert not (node.module or "").startswith("kb"), path.name
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("kb") for a in node.names), path.name


# -- (b) Each function of kb.upstream, and what it relies on --------------------------------------

#: The test below that checks what each public function of kb.upstream relies on.
CHECKS = {
    "test_sphinx_keeps_the_doctrees_it_reads_for_the_writing_phase": [
        "sphinx.doctrees_waiting_to_be_written"
    ],
    "test_sphinx_build_state_kb_reads_is_there_after_a_build": [
        "sphinx.html_settings_hashes",
        "sphinx.newest_template_mtime",
        "sphinx.configuration_changed",
    ],
    "test_sphinx_finds_files_when_kb_core_finding_expects": ["sphinx.has_saved_environment"],
    "test_an_update_saving_the_environment_aside_builds_what_sphinx_builds": [
        "sphinx_build.build_update"
    ],
    "test_an_environment_given_in_memory_builds_what_the_unpickled_one_builds": [
        "sphinx_build.let_go"
    ],
    "test_sphinx_lists_the_images_and_downloads_it_copies": ["sphinx.copied_files"],
    "test_what_is_out_of_date_is_sphinxs_answer": [
        "sphinx_read.outdated_files",
        "sphinx_read.outdated_pages",
    ],
    "test_reading_takes_sphinxs_steps_in_its_order": ["sphinx_read.read"],
    "test_the_documents_found_are_those_sphinx_finds": ["sphinx_read.find_files"],
    "test_documents_found_in_a_folder_are_those_sphinxs_walk_finds_there": [
        "sphinx_read.documents_in"
    ],
    "test_source_paths_are_those_sphinx_gives": ["sphinx_read.source_relpaths"],
    "test_a_fragment_is_written_with_its_pages_state_which_is_restored": [
        "sphinx.writing_as",
        "sphinx.page_being_written",
        "sphinx.downloads_path",
    ],
    "test_ablogs_page_and_feed_writers_are_found_and_unplugged": ["sphinx.listeners"],
    "test_the_page_contexts_tag_makers_are_sphinxs_own": ["sphinx.is_sphinx_asset_tag"],
    "test_sphinx_registry_state_kb_reads": [
        "sphinx.has_translation_handlers",
        "sphinx.html_assets_policy",
        "sphinx.builtin_extensions",
    ],
    "test_myst_nbs_parser_gets_its_build_as_sphinx_gives_it": [
        "sphinx.give_parser_its_build",
        "myst_nb.notebook_parser",
    ],
    "test_writer_settings_are_docutils_defaults_with_the_environments_overrides": [
        "docutils.writer_settings"
    ],
    "test_a_detached_copy_pickles_without_its_document": ["docutils.detach"],
    "test_sphinx_reads_the_tocs_as_a_mapping_that_keeps_them_pickled": [
        "sphinx_tocs.keep_tocs_pickled"
    ],
    "test_ablog_keeps_its_state_in_a_class_level_dict": ["ablog.reset_blog_state"],
    "test_posts_matched_again_are_those_ablog_matches": [
        "ablog.matched_blog_posts",
        "ablog.pattern_matches",
    ],
    "test_myst_logs_its_warnings_where_kb_filters_them": ["myst_parser.myst_warning_logger"],
    "test_myst_finds_comments_in_options_where_kb_looks": ["myst_parser.option_comment_line"],
    "test_sphinx_autobuilds_server_parts_are_where_kb_serve_looks": [
        "sphinx_autobuild.watcher_class",
        "sphinx_autobuild.ignore_filter",
        "sphinx_autobuild.reload_middleware",
    ],
    "test_furo_ends_a_build_with_the_stylesheet_kb_serve_writes_first": [
        "furo.pygments_stylesheet",
    ],
    "test_pygments_compiles_a_lexers_rules_once_into_its_class": [
        "pygments.compiled_lexers",
        "pygments.compile_lexers",
    ],
    "test_the_installed_pagefind_writes_the_layout_kb_knows": [
        "pagefind.installed_version",
        "pagefind.layout_is_known",
    ],
}


def test_every_function_of_upstream_has_a_check():
    functions = set()
    for path in sorted(UPSTREAM.glob("*.py")):
        if path.stem == "__init__":
            continue
        module = importlib.import_module(f"kb.upstream.{path.stem}")
        for name, value in vars(module).items():
            ours = inspect.isfunction(value) and value.__module__ == module.__name__
            if ours and not name.startswith("_"):
                functions.add(f"{path.stem}.{name}")
    assert functions == {name for names in CHECKS.values() for name in names}
    assert set(CHECKS) <= set(globals())


# Sphinx ------------------------------------------------------------------------------------------


def test_sphinx_keeps_the_doctrees_it_reads_for_the_writing_phase(make_app, tmp_path):
    # kb.incremental.doctrees bounds this cache; test_buildcaches checks the pages are the same.
    app = make_app("html", srcdir=copy_root("listings", tmp_path / "site"))
    app.cleanup()
    # The environment's dict, docname -> doctree: None would mean Sphinx moved it.
    assert doctrees_waiting_to_be_written(app.env) == {}


def test_sphinx_build_state_kb_reads_is_there_after_a_build(make_app, tmp_path):
    from sphinx.builders.html._build_info import BuildInfo

    app = make_app("html", srcdir=copy_root("listings", tmp_path / "site"))
    try:
        assert upstream_sphinx.configuration_changed(app.env)  # a new environment
        app.build()
        assert isinstance(app.builder.build_info, BuildInfo)
        hashes = upstream_sphinx.html_settings_hashes(app.builder)
        assert len(hashes) == 2 and all(isinstance(h, str) and h for h in hashes)
        assert upstream_sphinx.newest_template_mtime(app.builder) > 0
        assert not upstream_sphinx.configuration_changed(app.env)  # Sphinx marks it current
    finally:
        app.cleanup()


def test_sphinx_lists_the_images_and_downloads_it_copies(make_app, tmp_path):
    site = copy_root("listings", tmp_path / "site")
    (site / "posts/data.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    post = site / "posts/post-05.md"
    post.write_text(post.read_text() + "\n{download}`the data <data.csv>`\n", encoding="utf-8")
    app = make_app("html", srcdir=site)
    try:
        app.build()
        copied = upstream_sphinx.copied_files(app.env)
        assert "_images/chart.png" in copied
        [download] = [name for name in copied if name.startswith("_downloads/")]
        assert download.endswith("/data.csv")
        assert all((Path(app.outdir) / name).is_file() for name in copied)
    finally:
        app.cleanup()


def test_sphinx_build_in_two_steps_is_sphinx_builds_main(tmp_path, capsys):
    """kb serve's standby builds through PreparedBuild: the steps of ``build_main`` are still
    the ones it repeats, and a build in two steps writes what ``build_main`` writes."""
    from sphinx.cmd import build as cmd

    main = inspect.getsource(cmd.build_main)
    for step in ("_parse_arguments", "_parse_confdir", "_parse_doctreedir", "_parse_logging"):
        assert f"{step}(" in main
    assert "app.build(args.force_all, args.filenames)" in main
    sites = [copy_root("listings", tmp_path / name) for name in ("main", "two-steps")]
    arguments = [["-b", "html", "-q", str(site), str(site / "_build/html")] for site in sites]
    assert cmd.build_main(arguments[0]) == 0
    prepared = upstream_sphinx_build.PreparedBuild(arguments[1])
    prepared.prepare()
    assert prepared.app is not None
    assert prepared.run() == 0
    outdirs = [site / "_build/html" for site in sites]
    pages = [
        {p.relative_to(o).as_posix(): p.read_bytes() for p in o.rglob("*.html")} for o in outdirs
    ]
    assert pages[0] == pages[1] and "index.html" in pages[0]
    # A configuration that cannot be read leaves no application: the caller builds plainly.
    (sites[1] / "conf.py").write_text("this is not python\n", encoding="utf-8")
    broken = upstream_sphinx_build.PreparedBuild(arguments[1])
    broken.prepare()
    assert broken.app is None
    broken.close()


def _assert_in_order(source: str, *steps: str) -> None:
    """Each of ``steps`` is in ``source``, in this order."""
    order = [source.index(step) for step in steps]
    assert order == sorted(order)


def _built_and_edited(tmp_path, second: str, post: str, text: str):
    """Two copies of the listings root, each built by ``sphinx-build``, then ``post`` given
    ``text`` in both and the first built again: the second is for kb's way of building it."""
    from sphinx.cmd import build as cmd

    sites = [copy_root("listings", tmp_path / name) for name in ("sphinx", second)]
    arguments = [["-b", "html", "-q", str(site), str(site / "_build/html")] for site in sites]
    for site, argv in zip(sites, arguments, strict=True):
        assert cmd.build_main(argv) == 0
        with (site / f"posts/{post}.md").open("a", encoding="utf-8") as edited:
            edited.write(f"\n{text}\n")
    assert cmd.build_main(arguments[0]) == 0
    return sites, arguments


def test_an_update_saving_the_environment_aside_builds_what_sphinx_builds(tmp_path):
    """kb serve's standby builds an edit through kb.upstream.sphinx_build: Sphinx's steps are
    still the ones it copies, in that order, and it writes the pages and saves the environment
    that Sphinx's own build writes and saves."""
    from sphinx.application import ENV_PICKLE_FILENAME, Sphinx
    from sphinx.builders import Builder

    _assert_in_order(
        inspect.getsource(Builder.build),
        "self.read()",
        "check_dependents(self._app, updated_docnames)",
        "pickle.dump(self.env, f, pickle.HIGHEST_PROTOCOL)",
        "self.env.check_consistency()",
        "self.write(docnames, updated_docnames, method)",
        "self.finish()",
        "self.finish_tasks.join()",
    )
    update = inspect.getsource(Builder.build_update)
    assert "self.compile_update_catalogs()" in update and "self.get_outdated_docs()" in update
    application = inspect.getsource(Sphinx.build)
    for step in ("self.builder.build_update()", "'build-finished', None", "envfile.unlink()"):
        assert step in application
    for step in ("self._warncount", "self._fail_on_warnings", "self.builder.cleanup()"):
        assert step in application

    sites, arguments = _built_and_edited(
        tmp_path, "aside", "post-05", "A paragraph added by the edit."
    )
    prepared = upstream_sphinx_build.PreparedBuild(arguments[1])
    prepared.prepare()
    assert prepared.run(save_environment_aside=True) == 0

    outdirs = [site / "_build/html" for site in sites]
    pages = [
        {p.relative_to(o).as_posix(): p.read_bytes() for p in o.rglob("*.html")} for o in outdirs
    ]
    assert pages[0] == pages[1]
    assert b"A paragraph added by the edit." in pages[1]["posts/post-05.html"]
    doctrees = [o / ".doctrees" for o in outdirs]
    assert [sorted(d.iterdir()) != [] for d in doctrees] == [True, True]
    assert not list(doctrees[1].glob("*.saving"))
    envs = [pickle.loads((d / ENV_PICKLE_FILENAME).read_bytes()) for d in doctrees]
    assert envs[0].all_docs.keys() == envs[1].all_docs.keys()  # (the values: when each was read)
    for attribute in ("metadata", "included", "glob_toctrees", "found_docs", "images"):
        assert getattr(envs[0], attribute) == getattr(envs[1], attribute), attribute
    dependencies = [
        {doc: {Path(p).relative_to(site) for p in paths} for doc, paths in env.dependencies.items()}
        for env, site in zip(envs, sites, strict=True)
    ]
    assert dependencies[0] == dependencies[1]
    titles = [{doc: title.astext() for doc, title in env.titles.items()} for env in envs]
    assert titles[0] == titles[1]


def test_an_environment_given_in_memory_builds_what_the_unpickled_one_builds(tmp_path):
    """kb serve's standby that stays gives the environment of its last build to the next
    build's application: the build gives it to ``environment_aside`` where Sphinx pickles it
    (and saves none); ``let_go``, then ``PreparedBuild(..., environment=...)``. Sphinx still
    loads its environment where kb takes its place, and leaves it as kb leaves the given one;
    the pages of the next build are those Sphinx writes from the unpickled environment;
    nothing holds the last application once it is dropped; and an environment Sphinx would
    refuse (of another source folder) gives way to a fresh one, as Sphinx's does."""
    import gc
    import logging
    import weakref

    from sphinx.application import ENV_PICKLE_FILENAME, Sphinx
    from sphinx.cmd import build as cmd
    from sphinx.environment import BuildEnvironment
    from sphinx.util import logging as sphinx_logging

    assert "self._load_existing_env(filename)" in inspect.getsource(Sphinx._init_env)
    load = inspect.getsource(Sphinx._load_existing_env)
    for step in ("pickle.load(f)", "env.setup(self)", "self._fresh_env_used = False"):
        assert step in load
    assert "self._create_fresh_env()" in load
    getstate = inspect.getsource(BuildEnvironment.__getstate__)
    assert "_app=None, domains=None, events=None" in getstate
    setup = inspect.getsource(sphinx_logging.setup)
    assert "logging.getLogger(NAMESPACE)" in setup and "logger.removeHandler(handler)" in setup

    sites, arguments = _built_and_edited(
        tmp_path, "given", "post-03", "A sentence, for a build that reads this post."
    )
    saved = (sites[1] / "_build/html/.doctrees" / ENV_PICKLE_FILENAME).stat()

    class Aside:  # given the environment where Sphinx pickles it; saves nothing
        def __init__(self) -> None:
            self.given: list = []
            self.ended: list[str] = []

        def __call__(self, environment):
            self.given.append(environment)
            return self

        def stop(self) -> None:
            self.ended.append("stop")

        def wait(self) -> None:
            self.ended.append("wait")

    aside = Aside()
    first = upstream_sphinx_build.PreparedBuild(arguments[1])
    first.prepare()
    assert first.run(save_environment_aside=True, environment_aside=aside) == 0
    assert aside.given == [first.app.env] and aside.ended == ["wait"]
    now = (sites[1] / "_build/html/.doctrees" / ENV_PICKLE_FILENAME).stat()
    assert (now.st_ino, now.st_mtime_ns) == (saved.st_ino, saved.st_mtime_ns)  # not saved
    app = first.app
    environment = upstream_sphinx_build.let_go(app)
    assert logging.getLogger(sphinx_logging.NAMESPACE).handlers == []
    gone = weakref.ref(app)
    first.app = app = None
    gc.collect()
    assert gone() is None, "the application is still held"
    for site in sites:
        with (site / "posts/post-05.md").open("a", encoding="utf-8") as post:
            post.write("\nA paragraph added by the edit.\n")
    assert cmd.build_main(arguments[0]) == 0
    given = upstream_sphinx_build.PreparedBuild(arguments[1], environment=environment)
    given.prepare()
    assert given.app is not None and given.app.env is environment
    assert not given.app._fresh_env_used
    assert given.run(save_environment_aside=True, environment_aside=Aside()) == 0
    outdirs = [site / "_build/html" for site in sites]
    pages = [
        {p.relative_to(o).as_posix(): p.read_bytes() for p in o.rglob("*.html")} for o in outdirs
    ]
    assert pages[0] == pages[1]
    assert b"A paragraph added by the edit." in pages[1]["posts/post-05.html"]

    other = copy_root("listings", tmp_path / "other")
    refused = upstream_sphinx_build.PreparedBuild(
        ["-b", "html", "-q", str(other), str(other / "_build/html")],
        environment=upstream_sphinx_build.let_go(given.app),
    )
    refused.prepare()
    assert refused.app is not None and refused.app._fresh_env_used
    refused.close()


@pytest.mark.parametrize("links", [0, 1, 2])
def test_saving_aside_ends_with_sphinxs_status_and_closing_line(tmp_path, capsys, links):
    """With warnings as errors (-W), none, one or two broken links give the status code and
    the closing line that sphinx-build gives."""
    from sphinx.cmd import build as cmd

    sites = [copy_root("listings", tmp_path / name) for name in ("sphinx", "aside")]
    arguments = [["-b", "html", "-W", str(site), str(site / "_build/html")] for site in sites]
    for site, argv in zip(sites, arguments, strict=True):
        assert cmd.build_main([*argv, "-q"]) == 0
        with (site / "posts/post-05.md").open("a", encoding="utf-8") as post:
            post.write(
                "\nAn edit.\n" + "".join(f"\n[gone](missing-{n}.md)\n" for n in range(links))
            )
    capsys.readouterr()
    statuses = [cmd.build_main(arguments[0])]
    outputs = [capsys.readouterr().out]
    prepared = upstream_sphinx_build.PreparedBuild(arguments[1])
    prepared.prepare()
    statuses.append(prepared.run(save_environment_aside=True))
    outputs.append(capsys.readouterr().out)
    assert statuses == [1 if links else 0] * 2
    closing = [[line for line in out.splitlines() if line.startswith("build ")] for out in outputs]
    assert closing[0] == closing[1] and len(closing[0]) == 1
    if links:
        assert "(with warnings treated as errors)" in closing[1][0]
        assert f"{links} warning" in closing[1][0]


def test_a_build_that_fails_while_the_environment_is_saved_aside_keeps_none(tmp_path):
    """As Sphinx: a failed build deletes the saved environment (the next starts afresh), and
    the copy that was saving it leaves no file behind."""
    from sphinx.application import ENV_PICKLE_FILENAME
    from sphinx.cmd import build as cmd

    site = copy_root("listings", tmp_path / "site")
    argv = ["-b", "html", "-q", str(site), str(site / "_build/html")]
    assert cmd.build_main(argv) == 0
    with (site / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write(
            "\ndef _fail(app):\n    raise RuntimeError('writing failed')\n\n"
            "def setup(app):\n    app.connect('html-collect-pages', _fail)\n"
        )
    (site / "posts/post-05.md").write_text("# Edited\n\nNew text.\n", encoding="utf-8")
    prepared = upstream_sphinx_build.PreparedBuild(argv)
    prepared.prepare()
    assert prepared.run(save_environment_aside=True) == 2
    doctrees = site / "_build/html/.doctrees"
    assert not (doctrees / ENV_PICKLE_FILENAME).exists()
    assert not list(doctrees.glob("*.saving"))


class _Unpicklable:
    def __reduce__(self):
        raise TypeError("not today")


class _SlowToPickle:
    def __reduce__(self):
        import time

        time.sleep(60)  # stopped long before
        return (dict, ())


def test_the_copy_that_saves_the_environment_replaces_the_file_whole_or_not_at_all(tmp_path):
    from kb.upstream.sphinx_build import EnvironmentSaver

    target = tmp_path / "environment.pickle"
    target.write_bytes(b"the last build's")
    saver = EnvironmentSaver({"docs": ["a", "b"]}, target)
    saver.wait()
    assert pickle.loads(target.read_bytes()) == {"docs": ["a", "b"]}
    for failing in (_Unpicklable(),):
        saver = EnvironmentSaver(failing, target)
        with pytest.raises(OSError, match="could not save the environment"):
            saver.wait()
        assert pickle.loads(target.read_bytes()) == {"docs": ["a", "b"]}
    saver = EnvironmentSaver(_SlowToPickle(), target)
    saver.stop()
    assert pickle.loads(target.read_bytes()) == {"docs": ["a", "b"]}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["environment.pickle"]


def test_without_a_forked_copy_the_environment_is_saved_at_once(tmp_path, monkeypatch):
    """No memory for a copy (fork fails): the build pickles it itself, as Sphinx would."""
    from kb.upstream import sphinx_build

    def no_fork():
        raise OSError(12, "Cannot allocate memory")

    monkeypatch.setattr(sphinx_build.os, "fork", no_fork)
    target = tmp_path / "environment.pickle"
    saver = sphinx_build.EnvironmentSaver({"docs": ["c"]}, target)
    assert pickle.loads(target.read_bytes()) == {"docs": ["c"]}
    saver.wait()
    saver.stop()
    with pytest.raises(TypeError, match="not today"):
        sphinx_build.EnvironmentSaver(_Unpicklable(), target)
    assert pickle.loads(target.read_bytes()) == {"docs": ["c"]}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["environment.pickle"]


def test_sphinx_finds_files_when_kb_core_finding_expects(make_app, tmp_path):
    from sphinx.application import Sphinx
    from sphinx.builders import Builder

    # Without a saved environment, Sphinx finds the files before builder-inited ...
    init = inspect.getsource(Sphinx.__init__)
    order = [init.index(f"self.{step}(") for step in ("_init_env", "_post_init_env")]
    assert order == sorted(order) and order[-1] < init.index("self._init_builder(")
    assert "find_files" in inspect.getsource(Sphinx._post_init_env)
    assert "ENV_PICKLE_FILENAME" in inspect.getsource(Sphinx._init_env)
    # ... and in every build, right before the env-get-outdated handlers.
    read = inspect.getsource(Builder.read)
    assert read.index("find_files") < read.index("'env-get-outdated'")

    srcdir = copy_root("listings", tmp_path / "site")
    app = build(make_app, srcdir)
    assert upstream_sphinx.has_saved_environment(app)
    (Path(app.doctreedir) / "environment.pickle").unlink()
    assert not upstream_sphinx.has_saved_environment(app)


@pytest.fixture(scope="module")
def built_listings(tmp_path_factory):
    """The listings root built once by ``make_app``'s application class; each call gives the
    built site back as it was, at the same path (a saved environment is only Sphinx's for
    the folder it was built in)."""
    from sphinx.testing.util import SphinxTestApp

    base = tmp_path_factory.mktemp("outdated")
    site, pristine = base / "site", base / "pristine"
    copy_root("listings", site)
    app = SphinxTestApp("html", srcdir=site)
    try:
        app.build()
    finally:
        app.cleanup()
    shutil.copytree(site, pristine)

    def fresh() -> Path:
        shutil.rmtree(site)
        shutil.copytree(pristine, site)
        return site

    return fresh


def _touch(path: Path, seconds: float) -> None:
    os.utime(path, (seconds, seconds))


def _dependency(app, name: str, seconds: float | None = None, folder: bool = False) -> None:
    """Make the first post depend on ``name`` in the site, a file ``seconds`` old (or a folder,
    or nothing there when None)."""
    path = Path(app.srcdir) / name
    if folder:
        path.mkdir()
    elif seconds is not None:
        path.write_text("data", encoding="utf-8")
        _touch(path, time.time() + seconds)
    app.env.dependencies["posts/post-01"] = {path}


#: Changes to a built site after which Sphinx and kb.upstream.sphinx_read must agree on what is
#: out of date: each rule of Sphinx's two questions, and nothing changed.
OUT_OF_DATE = {
    "nothing": lambda app, site: None,
    "source saved": lambda app, site: _touch(site / "posts/post-03.md", time.time() + 5),
    "page deleted": lambda app, site: (site / "_build/html/posts/post-04.html").unlink(),
    "doctree deleted": lambda app, site: (site / "_build/doctrees/posts/post-05.doctree").unlink(),
    "dependency saved": lambda app, site: _dependency(app, "data.csv", 5),
    "dependency older": lambda app, site: _dependency(app, "data.csv", -3600),
    "dependency missing": lambda app, site: _dependency(app, "gone.csv"),
    "dependency a folder": lambda app, site: _dependency(app, "folder", folder=True),
    "read always": lambda app, site: app.env.reread_always.add("posts/post-06"),
    "post added": lambda app, site: (site / "posts/post-99.md").write_text(
        (site / "posts/post-07.md").read_text(encoding="utf-8"), encoding="utf-8"
    ),
    "post removed": lambda app, site: (site / "posts/post-08.md").unlink(),
    "page older than the templates": lambda app, site: (
        _touch(site / "posts/post-09.md", 1000),
        _touch(site / "_build/html/posts/post-09.html", 2000),
    ),
    "build information garbled": lambda app, site: (site / "_build/html/.buildinfo").write_text(
        "nonsense", encoding="utf-8"
    ),
}


@pytest.mark.parametrize("change", [*OUT_OF_DATE, "configuration changed"])
def test_what_is_out_of_date_is_sphinxs_answer(make_app, built_listings, change):
    site = built_listings()
    app = make_app("html", srcdir=site)
    try:
        OUT_OF_DATE.get(change, lambda app, site: None)(app, site)
        app.env.find_files(app.config, app.builder)
        config_changed = change == "configuration changed"
        ours = upstream_sphinx_read.outdated_files(app.env, config_changed)
        assert ours == app.env.get_outdated_files(config_changed)
        pages = set(app.builder.get_outdated_docs())
        assert set(upstream_sphinx_read.outdated_pages(app.builder)) == pages
    finally:
        app.cleanup()
    added, changed, removed = ours
    if change in ("configuration changed", "build information garbled"):
        return  # every document read again; every page (garbled: a warning) as Sphinx says
    # What each change makes out of date: (added, changed, removed), and the pages.
    expected = {
        "nothing": ((), (), (), ()),
        "source saved": ((), ("post-03",), (), ("post-03",)),
        "page deleted": ((), (), (), ("post-04",)),
        "doctree deleted": ((), ("post-05",), (), ()),
        "dependency saved": ((), ("post-01",), (), ()),
        "dependency older": ((), (), (), ()),
        "dependency missing": ((), ("post-01",), (), ()),
        "dependency a folder": ((), ("post-01",), (), ()),
        "read always": ((), ("post-06",), (), ()),
        "post added": (("post-99",), (), (), ("post-99",)),
        "post removed": ((), (), ("post-08",), ()),
        "page older than the templates": ((), (), (), ("post-09",)),
    }[change]
    named = [{f"posts/{name}" for name in names} for names in expected]
    assert [added, changed, removed, pages] == named


#: The documents one of whose files each change of OUT_OF_DATE changes (its source, page,
#: doctree or a dependency): what kb serve's standby tells the answers made ahead of it. An
#: added or removed post, garbled build information and a changed configuration are found
#: by the answers themselves, told nothing.
TOUCHED = {
    "nothing": (),
    "source saved": ("post-03",),
    "page deleted": ("post-04",),
    "doctree deleted": ("post-05",),
    "dependency saved": ("post-01",),
    "dependency older": ("post-01",),
    "dependency missing": ("post-01",),
    "dependency a folder": ("post-01",),
    "read always": ("post-06",),
    "post added": (),
    "post removed": (),
    "page older than the templates": ("post-09",),
    "build information garbled": (),
    "configuration changed": (),
}


def _sphinxs_answers(app, config_changed: bool) -> tuple:
    """Sphinx's own answers, in build_update's order: the pages (of the last discovery),
    then the documents found, then those that changed."""
    pages = set(app.builder.get_outdated_docs())
    app.env.find_files(app.config, app.builder)
    return pages, set(app.env.found_docs), app.env.get_outdated_files(config_changed)


def _answers_ahead(questions, app, config_changed: bool) -> tuple:
    pages = set(questions.outdated_pages(app.builder))
    questions.find_files(app.env, app.builder)
    found = set(app.env.found_docs)
    return pages, found, questions.outdated_files(app.env, config_changed)


@pytest.mark.parametrize("told", ["told what changed", "not told"])
@pytest.mark.parametrize("change", TOUCHED)
def test_questions_answered_ahead_give_sphinxs_answers_after_the_change(
    make_app, built_listings, change, told
):
    """Answered before the change, then told which documents it touched (or nothing), the
    questions give the answers Sphinx gives after it, in a second application loaded from
    the same environment."""
    site = built_listings()
    ours, sphinxs = make_app("html", srcdir=site), make_app("html", srcdir=site)
    try:
        questions = upstream_sphinx_read.AnsweredAhead(ours.builder)
        OUT_OF_DATE.get(change, lambda app, site: None)(ours, site)
        # What the change did to the environment (a dependency, a document read always), too.
        sphinxs.env.dependencies = {k: set(v) for k, v in ours.env.dependencies.items()}
        sphinxs.env.reread_always = set(ours.env.reread_always)
        if told == "told what changed":
            questions.changed_since({f"posts/{name}" for name in TOUCHED[change]})
        config_changed = change == "configuration changed"
        expected = _sphinxs_answers(sphinxs, config_changed)
        assert _answers_ahead(questions, ours, config_changed) == expected
    finally:
        ours.cleanup()
        sphinxs.cleanup()


def test_questions_answered_ahead_vouch_for_the_documents_they_are_not_told_of(
    make_app, built_listings
):
    """The answers stand for every document the caller does not name: a source saved
    unnamed is not asked about again (the standby names each one whose files it cannot show
    unchanged)."""
    site = built_listings()
    app = make_app("html", srcdir=site)
    try:
        questions = upstream_sphinx_read.AnsweredAhead(app.builder)
        _touch(site / "posts/post-03.md", time.time() + 5)
        questions.changed_since(set())
        pages, _, (added, changed, removed) = _answers_ahead(questions, app, False)
        assert "posts/post-03" not in changed | pages
        questions.changed_since({"posts/post-03"})
        pages, _, (added, changed, removed) = _answers_ahead(questions, app, False)
        assert changed == pages == {"posts/post-03"}
    finally:
        app.cleanup()


def test_documents_found_in_a_folder_are_those_sphinxs_walk_finds_there(make_app, tmp_path):
    """kb.upstream.sphinx_read.documents_in walks one folder as Sphinx's get_matching_files
    walks the whole source folder: links followed, excluded folders and files left out,
    names in NFC, only files with a suffix Sphinx reads."""
    from sphinx.project import EXCLUDE_PATHS
    from sphinx.util.matching import get_matching_files

    site = copy_root("listings", tmp_path / "site")
    (site / "conf.py").write_text(
        (site / "conf.py")
        .read_text(encoding="utf-8")
        .replace(
            'exclude_patterns = ["_build"]',
            'exclude_patterns = ["_build", "notes/drafts", "**/skip.md"]',
        ),
        encoding="utf-8",
    )
    for name in ("notes/a.md", "notes/deep/b.md", "notes/drafts/c.md", "notes/skip.md"):
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text("# A note\n", encoding="utf-8")
    (site / "notes/data.csv").write_text("1\n", encoding="utf-8")
    (site / "notes/cre\u0300me.md").write_text("# NFD\n", encoding="utf-8")
    (site / "elsewhere").mkdir()
    (site / "elsewhere/d.md").write_text("# Linked\n", encoding="utf-8")
    (site / "notes/linked").symlink_to(site / "elsewhere", target_is_directory=True)
    app = make_app("html", srcdir=site)
    try:
        excluded = [*upstream_sphinx_read._excluded(app.builder), *EXCLUDE_PATHS]
        walked = get_matching_files(site, app.config.include_patterns, excluded)
        documents = {f for f in walked if f.endswith(tuple(app.config.source_suffix))}
        for folder in ("notes", "notes/deep", "notes/drafts", "notes/linked", "posts", "_build"):
            expected = {f for f in documents if f.startswith(f"{folder}/")}
            assert upstream_sphinx_read.documents_in(app.env, app.builder, folder) == expected
        assert upstream_sphinx_read.documents_in(app.env, app.builder, "notes") == {
            "notes/a.md",
            "notes/deep/b.md",
            "notes/cr\u00e8me.md",
            "notes/linked/d.md",
        }
    finally:
        app.cleanup()


@pytest.mark.parametrize("where", ["in a folder named", "in a folder not named"])
def test_questions_answered_ahead_look_for_documents_again_only_where_told(
    make_app, built_listings, where
):
    """Told the folders outside which every file is as it was, the answers walk only those:
    a document added in one is found (with Sphinx's own walk, as the files differ); one added
    elsewhere is not looked for (the caller vouched that nothing there changed)."""
    site = built_listings()
    (site / "extra").mkdir()
    app = make_app("html", srcdir=site)
    try:
        questions = upstream_sphinx_read.AnsweredAhead(app.builder)
        (site / "extra/new.md").write_text("# New\n", encoding="utf-8")
        questions.changed_since(set(), ["extra"] if where == "in a folder named" else [])
        walks = []
        sphinxs_discover = app.env.project.discover
        app.env.project.discover = lambda *args: walks.append(args) or sphinxs_discover(*args)
        questions.find_files(app.env, app.builder)
        found = "extra/new" in app.env.found_docs
        assert (found, len(walks)) == ((True, 1) if where == "in a folder named" else (False, 0))
    finally:
        app.cleanup()


def _copy_post(site: Path, source: str, target: str) -> None:
    (site / target).write_text((site / source).read_text(encoding="utf-8"), encoding="utf-8")


#: Changes to a built site after which kb.upstream.sphinx_read.find_files must find what
#: Sphinx finds, and whether the last discovery stands (no new walk of Sphinx's own).
FOUND = {
    "nothing": (lambda site: None, True),
    "source saved": (lambda site: _touch(site / "posts/post-03.md", time.time() + 5), True),
    "post added": (lambda site: _copy_post(site, "posts/post-07.md", "posts/post-99.md"), False),
    "post removed": (lambda site: (site / "posts/post-08.md").unlink(), False),
    "post renamed": (
        lambda site: (site / "posts/post-09.md").rename(site / "posts/post-9.md"),
        False,
    ),
    # As many documents as before, one of them a second file of one name (or left out).
    "one gone, one name twice": (
        lambda site: (
            (site / "posts/post-12.md").unlink(),
            _copy_post(site, "index.md", "index.rst"),
        ),
        False,
    ),
    "a file Sphinx does not read": (
        lambda site: _copy_post(site, "posts/post-11.md", "posts/post-11.txt"),
        True,
    ),
}


@pytest.mark.parametrize("change", FOUND)
def test_the_documents_found_are_those_sphinx_finds(make_app, built_listings, change):
    site = built_listings()
    edit, stands = FOUND[change]
    edit(site)
    app = make_app("html", srcdir=site)
    try:
        project = app.env.project
        walks = []
        sphinxs_discover = project.discover
        project.discover = lambda *args: walks.append(args) or sphinxs_discover(*args)
        upstream_sphinx_read.find_files(app.env, app.builder)
        ours = (set(project.docnames), dict(project._path_to_docname))
        assert len(walks) == (0 if stands else 1)  # the last discovery stands, or a new one
        del project.discover
        app.env.find_files(app.config, app.builder)
        assert ours == (set(project.docnames), dict(project._path_to_docname))
        assert app.env.found_docs is project.docnames
    finally:
        app.cleanup()


def test_source_paths_are_those_sphinx_gives(make_app, built_listings):
    """Each document's source, relative and ``/``-separated, as ``env.doc2path`` names it; a
    name Sphinx found no file for gets the name Sphinx gives it too (the first suffix)."""
    site = built_listings()
    (site / "posts/post-02.md").rename(site / "posts/post-02.rst")  # another suffix
    app = make_app("html", srcdir=site)
    try:
        app.env.find_files(app.config, app.builder)
        names = [*sorted(app.env.found_docs), "posts/no-such-post"]
        expected = {name: app.env.doc2path(name, base=False).as_posix() for name in names}
        assert upstream_sphinx_read.source_relpaths(app.env, names) == expected
        assert expected["posts/post-02"] == "posts/post-02.rst"
    finally:
        app.cleanup()


def test_changed_build_information_makes_every_page_out_of_date_as_in_sphinx(
    make_app, built_listings
):
    """Sphinx then keeps the old file as .buildinfo.bak and writes its own: both do it once."""
    answers, kept, documents = [], [], set()
    for ask in ("get_outdated_docs", "outdated_pages"):
        site = built_listings()
        documents = {
            path.relative_to(site).with_suffix("").as_posix()
            for path in site.rglob("*.md")
            if "_build" not in path.parts
        }
        info = site / "_build/html/.buildinfo"
        info.write_text(info.read_text(encoding="utf-8").replace("config: ", "config: 0"))
        app = make_app("html", srcdir=site)
        try:
            app.env.find_files(app.config, app.builder)
            method = getattr(app.builder, ask, None)
            found = method() if method else upstream_sphinx_read.outdated_pages(app.builder)
            answers.append(set(found))
            answers.append(set(upstream_sphinx_read.outdated_pages(app.builder)))  # again
            kept.append((info.with_name(".buildinfo.bak").is_file(), info.read_text()))
        finally:
            app.cleanup()
    assert answers[0] == answers[2] == documents
    assert answers[1] == answers[3] == set()  # the information now matches
    assert kept[0] == kept[1] and kept[0][0]


@pytest.mark.parametrize(
    "overrides",
    [
        {"exclude_patterns": ["_build", "index.md"]},  # a pattern of conf.py
        {"include_patterns": ["posts/**"]},  # not among the patterns included
        {"root_doc": "nowhere"},  # no such document
    ],
)
def test_a_root_document_that_cannot_be_read_is_reported_as_sphinx_reports_it(
    make_app, tmp_path, overrides
):
    from sphinx.errors import SphinxError

    messages = []
    for name, read in [("sphinx", None), ("ours", upstream_sphinx_read.read)]:
        app = make_app(
            "html", srcdir=copy_root("listings", tmp_path / name), confoverrides=overrides
        )
        try:
            with pytest.raises(SphinxError) as raised:
                read(app.builder) if read else app.builder.read()
            messages.append(str(raised.value).replace(str(tmp_path / name), "SITE"))
        finally:
            app.cleanup()
    assert messages[0] == messages[1]
    assert "Sphinx is unable to load the master document" in messages[1]


def test_reading_takes_sphinxs_steps_in_its_order():
    """kb.upstream.sphinx_read.read is Builder.read with its own question of which files
    changed: Sphinx's steps are still those it copies, in that order (the pages and the
    environment it leaves are compared with Sphinx's in the test of build_update above)."""
    from sphinx.builders import Builder

    steps = inspect.getsource(Builder.read)
    _assert_in_order(
        steps,
        "self.env.find_files(self.config, self)",
        "self.env.config_status != CONFIG_OK",
        "self.env.get_outdated_files(updated)",
        "'env-get-outdated'",
        "self.env.glob_toctrees & self.env.found_docs",
        "'env-purge-doc'",
        "self.env.clear_doc(docname)",
        "sorted(added | changed)",
        "'env-before-read-docs'",
        "self._read_parallel(docnames, nproc=self._app.parallel)",
        "self._read_serial(docnames)",
        "self.config.master_doc not in self.env.all_docs",
        "'env-updated'",
        "self.env.config_status = CONFIG_OK",
        "return sorted(docnames)",
    )
    assert steps.count("self.events.emit(") == 4
    assert steps.count("raise SphinxError") == 4
    ours = inspect.getsource(upstream_sphinx_read.read)
    for event in ("env-get-outdated", "env-purge-doc", "env-before-read-docs", "env-updated"):
        assert f'"{event}"' in ours


def test_the_handler_before_each_read_runs_between_two_documents(make_app, tmp_path):
    # kb.incremental.collector freezes what a document left there: the document before it is
    # wholly read, and the next one's doctree not made yet.
    app = make_app("html", srcdir=copy_root("listings", tmp_path / "site"))
    steps: list[tuple[str, str]] = []
    before = lambda app, env, docname: steps.append(("before", docname))  # noqa: E731
    app.connect(upstream_sphinx.BEFORE_EACH_READ, before, priority=0)
    app.connect("source-read", lambda app, docname, source: steps.append(("source", docname)))
    app.connect("doctree-read", lambda app, doctree: steps.append(("read", app.env.docname)))
    waiting = []
    app.connect(
        "source-read", lambda *args: waiting.append(set(doctrees_waiting_to_be_written(app.env)))
    )
    try:
        app.build()
    finally:
        app.cleanup()
    documents = sorted(app.env.found_docs)
    assert len(documents) > 3
    assert steps == [(step, name) for name in documents for step in ("before", "source", "read")]
    # The document before is kept for the writing phase by then; the one read is not yet.
    assert waiting == [set(documents[:n]) for n in range(len(documents))]


def test_the_page_contexts_tag_makers_are_sphinxs_own(make_app, tmp_path):
    # kb.pages.assettags shares only the tags Sphinx's own functions make.
    app = make_app("html", srcdir=copy_root("listings", tmp_path / "site"))
    found = []

    def note(app, pagename, templatename, context, doctree):
        found.append(
            (
                upstream_sphinx.is_sphinx_asset_tag(context["css_tag"], "css_tag"),
                upstream_sphinx.is_sphinx_asset_tag(context["js_tag"], "js_tag"),
                upstream_sphinx.is_sphinx_asset_tag(context["js_tag"], "css_tag"),
                upstream_sphinx.is_sphinx_asset_tag(lambda asset: "", "css_tag"),
            )
        )

    app.connect("html-page-context", note, priority=0)
    try:
        app.build()
    finally:
        app.cleanup()
    assert len(found) > 3
    assert set(found) == {(True, True, False, False)}


def test_a_fragment_is_written_with_its_pages_state_which_is_restored(make_app, tmp_path):
    from sphinx.writers import html5

    # What Sphinx's HTML translator reads of the page being written, kb sets for a fragment.
    translator = inspect.getsource(html5)
    for name in ("current_docname", "imgpath", "dlpath", "secnumbers", "fignumbers"):
        assert f"self.builder.{name}" in translator, name
    app = build(make_app, copy_root("listings", tmp_path / "site"))
    builder = app.builder
    post = next(iter(app.env.ablog_posts))
    before = {name: getattr(builder, name, None) for name in upstream_sphinx._PAGE_STATE}
    with upstream_sphinx.writing_as(builder, post):
        assert upstream_sphinx.page_being_written(builder) == post
        depth = post.count("/")
        assert upstream_sphinx.downloads_path(builder) == "../" * depth + "_downloads"
        assert builder.imgpath == "../" * depth + "_images"
    assert {name: getattr(builder, name, None) for name in upstream_sphinx._PAGE_STATE} == before


def test_sphinx_registry_state_kb_reads(make_app, tmp_path):
    app = make_app("html", srcdir=copy_root("listings", tmp_path / "site"))
    try:

        class Folded(nodes.Element):
            pass

        assert not upstream_sphinx.has_translation_handlers(app, Folded)
        app.add_node(Folded, html=(lambda t, n: None, lambda t, n: None))
        assert upstream_sphinx.has_translation_handlers(app, Folded, "html")
        assert upstream_sphinx.html_assets_policy(app) == "per_page"
        app.set_html_assets_policy("always")
        assert upstream_sphinx.html_assets_policy(app) == "always"
        assert upstream_sphinx.listeners(app, "builder-inited")
        assert all(isinstance(i, int) for i, _ in upstream_sphinx.listeners(app, "env-updated"))
    finally:
        app.cleanup()
    extensions = upstream_sphinx.builtin_extensions()
    assert "sphinx.builders.html" in extensions and "sphinx.addnodes" in extensions
    for name in extensions:
        assert importlib.util.find_spec(name) is not None, name


# docutils ----------------------------------------------------------------------------------------


def test_writer_settings_are_docutils_defaults_with_the_environments_overrides(make_app, tmp_path):
    app = build(make_app, copy_root("listings", tmp_path / "site"))
    settings = writer_settings(app.env)
    for key, value in app.env.settings.items():
        assert getattr(settings, key) == value
    assert settings.output_encoding  # a default of docutils' HTML writer


def test_a_detached_copy_pickles_without_its_document():
    document = new_document("post.md", writer_settings_for_tests())
    document.append(nodes.paragraph(text="x" * 100_000))
    copy = document[0].deepcopy()
    copy.append(nodes.emphasis(text="kept"))
    assert copy.document is document or copy.document is None
    detach(copy)
    assert copy.document is None
    assert len(pickle.dumps(copy)) < 110_000  # the document (and its 100 KB) is not dragged


NUMBERED_GUIDE = """# Guides

```{toctree}
:glob:
:numbered:

*
```
"""

SECTIONS = "\n## Install\n\nFirst.\n\n### From a wheel\n\nThen.\n\n## Run\n\nLast.\n"


def _pages_and_tocs(app) -> tuple[dict[str, bytes], dict[str, str]]:
    """The pages a build wrote, and the tocs of the environment it saved."""
    from sphinx.application import ENV_PICKLE_FILENAME

    outdir = Path(app.outdir)
    pages = {p.relative_to(outdir).as_posix(): p.read_bytes() for p in outdir.rglob("*.html")}
    tocs = pickle.loads((Path(app.doctreedir) / ENV_PICKLE_FILENAME).read_bytes()).tocs
    return pages, {docname: tocs[docname].pformat() for docname in tocs}


def test_sphinx_reads_the_tocs_as_a_mapping_that_keeps_them_pickled(
    make_app, tmp_path, monkeypatch
):
    """Sphinx reads and sets ``env.tocs`` only as a mapping: with kb's PickledTocs a build
    writes the pages and keeps the tocs (section numbers set in place included) that it does
    with Sphinx's dictionary, clean and after an edit; and a build that loads them unpickles
    only those it reads."""
    from kb.incremental import tocs as incremental_tocs
    from kb.upstream.sphinx_tocs import PickledTocs

    sites = [copy_root("pages", tmp_path / name) for name in ("pickled", "dictionary")]
    results = []
    for site in sites:
        (site / "pages/guide/index.md").write_text(NUMBERED_GUIDE, encoding="utf-8")
        setup = site / "pages/guide/setup.md"
        setup.write_text(setup.read_text(encoding="utf-8") + SECTIONS, encoding="utf-8")
        if site.name == "dictionary":
            monkeypatch.setattr(incremental_tocs, "keep_tocs_pickled", lambda env: None)
        steps = []
        for step in ("clean", "page added", "post edited"):
            if step == "page added":  # numbered before setup: its sections are numbered again
                (site / "pages/guide/basics.md").write_text("# Basics\n\n## First\n", "utf-8")
            if step == "post edited":
                alpha = site / "posts/alpha.md"
                alpha.write_text(alpha.read_text("utf-8") + "\nOne more line.\n", "utf-8")
            app = make_app("html", srcdir=site)
            try:
                app.build()
                tocs = app.env.tocs
                read = tocs.read_since_loaded() if isinstance(tocs, PickledTocs) else None
                steps.append((_pages_and_tocs(app), type(tocs), read))
            finally:
                app.cleanup()
        results.append(steps)
    for (pickled, kind, _), (plain, plain_kind, _) in zip(*results, strict=True):
        assert pickled == plain
        assert (kind, plain_kind) == (PickledTocs, dict)
    (pages, tocs), _, read = results[0][1]
    # Sphinx numbers the sections in the nodes of env.tocs: the page it did not read again
    # was loaded, and its toc changed in place, then saved with the environment.
    assert 'secnumber="2 2"' in tocs["pages/guide/setup"]
    page = BeautifulSoup(pages["pages/guide/setup.html"], "lxml")
    headings = [h.get_text(" ", strip=True).rstrip(" ¶") for h in page.select("article h2")]
    assert "2.2. Run" in headings, headings
    assert "pages/guide/setup" in read, read
    # A post edited: of the posts' tocs, only its own is unpickled.
    read = results[0][2][2]
    assert [docname for docname in read if docname.startswith("posts/")] == ["posts/alpha"]


def test_pickled_tocs_pickle_again_only_what_was_read():
    from kb.upstream.sphinx_tocs import PickledTocs

    def toc(title: str) -> nodes.bullet_list:
        return nodes.bullet_list("", nodes.list_item("", nodes.paragraph(text=title)))

    tocs = PickledTocs({"a": toc("A"), "b": toc("B")})
    loaded = pickle.loads(pickle.dumps(tocs))
    assert list(loaded) == ["a", "b"] and len(loaded) == 2 and "a" in loaded
    assert loaded.read_since_loaded() == []
    loaded["a"][0]["classes"].append("changed")  # read, then changed in place (as Sphinx numbers)
    loaded["c"] = toc("C")
    assert loaded.pop("b").astext() == "B"
    again = pickle.loads(pickle.dumps(loaded))
    assert again.read_since_loaded() == []
    assert again["a"][0]["classes"] == ["changed"]
    assert [again[name].astext() for name in again] == ["A", "C"]
    untouched = pickle.loads(pickle.dumps(again))
    # An entry no one read is pickled as the very bytes it was loaded from, not pickled again.
    assert untouched.pickled()["a"] is untouched.pickled()["a"]
    assert untouched.pickled() == again.pickled()


def writer_settings_for_tests():
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser

    return get_default_settings(Parser)


# ablog -------------------------------------------------------------------------------------------

SAMPLES = [
    "C++", "C#", "CUDA", "Stream-K", "  two  words ", "FP8 / BF16", "wgmma.mma_async",
    "naïve café", "Ünïcödé", "tab\there", "a--b", "-lead", "trail-", "日本語", "x_y", "%$#",
    "Optimization diaries", "NVFP4 block scaling on SM12x", "100%", "H200 (SXM)",
]  # fmt: skip


@pytest.mark.parametrize("text", SAMPLES)
def test_our_slugs_are_ablogs_slugs(text):
    # The checks and kb import name tag and series pages without importing ablog: they agree.
    assert slugify(text) == ablog_blog.slugify(text)


def test_ablog_keeps_its_state_in_a_class_level_dict():
    # kb.upstream.ablog.reset_blog_state clears Blog._dict so builds in one process don't leak.
    assert isinstance(ablog_blog.Blog._dict, dict)
    assert "_dict" in vars(ablog_blog.Blog)
    ablog_blog.Blog._dict["kb-test"] = 1
    upstream_ablog.reset_blog_state()
    assert ablog_blog.Blog._dict == {}


@pytest.mark.parametrize(
    "pattern",
    [
        "posts/*.md",
        ["posts/*.md", "posts/**/*.ipynb"],
        "**/p*",
        # Paths a path object tidies (kb.upstream.ablog takes the rest of a tidy one as it is)
        "./posts/*.md",
        "posts//*.md",
        "posts/.*.md",
        "posts/../posts/*.md",
    ],
)
def test_posts_matched_again_are_those_ablog_matches(make_app, tmp_path, pattern):
    """kb serve's standby matches blog_post_pattern again after a post is added; ablog's
    config-inited handler, which the application ran, is what it must agree with."""
    site = copy_root("listings", tmp_path / "site")
    (site / "posts/deeper").mkdir()
    (site / "posts/deeper/notebook.ipynb").write_text("{}", encoding="utf-8")
    _copy_post(site, "posts/post-01.md", "posts/.hidden.md")
    app = make_app("html", srcdir=site, confoverrides={"blog_post_pattern": pattern})
    try:
        ablogs = app.config.matched_blog_posts
        assert ablogs
        assert upstream_ablog.matched_blog_posts(app.srcdir, pattern) == ablogs
        found = upstream_ablog.pattern_matches(app.srcdir, pattern)
        assert [path.rsplit(".", 1)[0] for path in found] == ablogs
        assert all((site / path).exists() for path in found)
    finally:
        app.cleanup()


def test_a_second_build_in_one_process_does_not_see_the_first_builds_posts(make_app, tmp_path):
    first = build(make_app, copy_root("listings", tmp_path / "one"))
    assert build_state(first).catalog.posts
    empty = copy_root("listings", tmp_path / "two")
    for post in (empty / "posts").glob("*.md"):
        post.unlink()
    second = build(make_app, empty)
    assert build_state(second).catalog.posts == []
    assert not (second.outdir / "posts").exists()


def test_ablogs_page_and_feed_writers_are_found_and_unplugged(make_app, tmp_path):
    from ablog import post

    app = build(make_app, copy_root("listings", tmp_path / "site"))
    handlers = {handler for _, handler in upstream_sphinx.listeners(app, "html-collect-pages")}
    assert handlers  # kb's own page writers are there
    assert post.generate_archive_pages not in handlers
    assert post.generate_atom_feeds not in handlers
    assert not (app.outdir / "blog" / "drafts.html").exists()  # ablog always wrote one


# MyST-Parser and MyST-NB (kb.notebooks imports MyST-NB lazily and declares its settings itself) --


@pytest.mark.parametrize(
    ("content", "line"),
    [
        ([":category: Article", ":tags: fp8 #gemm", "", "Text."], 1),
        (["---", "category: Article", "# a whole line", "---"], 2),
        ([":tags: c#, cuda", "", "Text # not an option."], None),  # no space: no comment
        (["Text # not an option."], None),
        ([':tags: "unclosed'], None),  # MyST's own "Invalid options format", not this
    ],
)
def test_myst_finds_comments_in_options_where_kb_looks(content, line):
    """kb reports a comment in a post directive's options where MyST warns of it
    (kb.checks.postforms.myst_option_comments), and leaves MyST's warning out there."""
    assert upstream_myst_parser.option_comment_line(content) == line


def test_myst_logs_its_warnings_where_kb_filters_them():
    from myst_parser import warnings_

    logger = upstream_myst_parser.myst_warning_logger()
    assert logger.name == f"sphinx.{warnings_.__name__}"
    assert "getLogger(__name__)" in inspect.getsource(warnings_)


def test_myst_nbs_parser_gets_its_build_as_sphinx_gives_it(make_app, tmp_path):
    from sphinx.parsers import Parser as SphinxParser
    from sphinx.registry import SphinxComponentRegistry

    made = inspect.getsource(SphinxComponentRegistry.create_source_parser)
    assert "parser._config = config" in made and "parser._env = env" in made
    app = make_app("html", srcdir=copy_root("listings", tmp_path / "site"))
    try:
        parser = upstream_myst_nb.notebook_parser(app.env)
        assert isinstance(parser, SphinxParser)
        assert parser._config is app.config and parser._env is app.env
    finally:
        app.cleanup()


class _Recorder:
    """A stand-in Sphinx app that records the settings an extension declares."""

    def __init__(self) -> None:
        self.settings: dict[str, object] = {}

    def add_config_value(self, name, default, *args, **kwargs) -> None:
        self.settings[name] = default

    def __getattr__(self, name):
        return _Anything()


class _Anything:
    """Whatever the extension's setup() reaches for beyond settings (``app.connect``, or
    ``app.registry.transforms.remove`` in older MyST-Parsers): accepted, and ignored."""

    def __getattr__(self, name):
        return self

    def __call__(self, *args, **kwargs):
        return self


def test_kb_declares_myst_nbs_settings():
    # kb.notebooks.settings declares MyST-NB's nb_* settings instead of running its setup():
    # a setting MyST-NB adds must be declared by kb too (or refused on purpose).
    from myst_nb.core.config import NbParserConfig
    from myst_nb.sphinx_ext import OUTPUT_FOLDER, sphinx_setup

    from kb.notebooks import settings

    theirs = _Recorder()
    sphinx_setup(theirs)
    # Deprecated names MyST-NB still accepts (and warns about): kb does not offer them.
    legacy = {"nb_render_priority"} | {
        field.metadata["legacy_name"]
        for _, _, field in NbParserConfig().as_triple()
        if "legacy_name" in field.metadata
    }
    ours = {f"nb_{name}" for name, _ in settings._names()}
    assert set(theirs.settings) - legacy == ours | {f"nb_{n}" for n in settings.NOT_OFFERED}
    assert OUTPUT_FOLDER == settings.OUTPUT_FOLDER


def test_myst_nb_parts_kb_uses_are_where_kb_looks():
    from myst_nb.core.config import NbParserConfig
    from myst_nb.core.read import read_myst_markdown_notebook
    from myst_nb.sphinx_ import (
        HideCodeCellNode,
        HideInputCells,
        Parser,
        SelectMimeType,
        depart_HideCellInput,
        visit_HideCellInput,
    )

    assert SelectMimeType.default_priority == 4  # kb's SelectOutputForm runs at the same time
    assert HideInputCells.default_priority == 199
    assert callable(visit_HideCellInput) and callable(depart_HideCellInput)
    assert issubclass(HideCodeCellNode, nodes.Element) and callable(Parser.parse)
    assert NbParserConfig().copy(execution_mode="cache").execution_mode == "cache"
    notebook = read_myst_markdown_notebook("---\nfile_format: mystnb\n---\n\n# T\n")
    assert notebook.metadata["file_format"] == "mystnb"


# sphinx-autobuild --------------------------------------------------------------------------------


def test_sphinx_autobuilds_server_parts_are_where_kb_serve_looks(tmp_path):
    from sphinx_autobuild.server import RebuildServer
    from starlette.middleware import Middleware

    ignored = tmp_path / "_build"
    ignore = upstream_autobuild.ignore_filter([ignored])
    assert ignore(str(ignored / "page.html")) and not ignore(str(tmp_path / "post.md"))
    calls = []
    watcher = upstream_autobuild.watcher_class()([tmp_path], ignore, change_callback=calls.append)
    assert isinstance(watcher, RebuildServer)
    # What the replaced watch() reads, and what the server's lifespan runs.
    assert watcher.paths == [tmp_path.resolve()] and watcher.ignore is ignore
    assert watcher.change_callback == calls.append and hasattr(watcher.flag, "set")
    assert callable(watcher.lifespan) and "self.watch()" in inspect.getsource(RebuildServer.main)
    assert isinstance(upstream_autobuild.reload_middleware("127.0.0.1:1"), Middleware)


# furo --------------------------------------------------------------------------------------------


def test_furo_ends_a_build_with_the_stylesheet_kb_serve_writes_first(make_app, tmp_path):
    """kb serve shows the edited pages before build-finished, where furo writes its code
    colours over Sphinx's (kb.cli.reloads): the file kb writes first is the one furo leaves."""
    app = build(make_app, copy_root("listings", tmp_path / "site"))
    css = (Path(app.outdir) / "_static/pygments.css").read_text(encoding="utf-8")
    assert css == upstream_furo.pygments_stylesheet(app)
    assert "prefers-color-scheme: dark" in css  # furo's own, not Sphinx's one style
    other_theme = type("App", (), {"config": type("Config", (), {"html_theme": "basic"})})
    assert upstream_furo.pygments_stylesheet(other_theme) is None


# Pygments ----------------------------------------------------------------------------------------


def test_pygments_compiles_a_lexers_rules_once_into_its_class():
    """kb serve's worker compiles the lexers its builds compiled, so that each forked build
    inherits them compiled (kb.upstream.pygments): Pygments keeps them in the class's own
    ``_tokens`` once one lexer of the class is made."""
    from pygments.lexer import RegexLexer
    from pygments.token import Name

    class FreshLexer(RegexLexer):
        tokens = {"root": [(r"\w+", Name), (r"\W", Name)]}

    FreshLexer.__module__, FreshLexer.__qualname__ = __name__, "FreshLexer"
    globals()["FreshLexer"] = FreshLexer  # importable by name, as a real lexer is
    name = f"{__name__}:FreshLexer"
    assert name not in upstream_pygments.compiled_lexers()
    assert upstream_pygments.compile_lexers([name]) is True
    assert "_tokens" in FreshLexer.__dict__
    assert name in upstream_pygments.compiled_lexers()
    assert upstream_pygments.compile_lexers([name]) is False  # compiled already
    assert upstream_pygments.compile_lexers(["no_such_module:Lexer", f"{__name__}:Nope"]) is False
    del globals()["FreshLexer"]


# Pagefind ----------------------------------------------------------------------------------------


def test_the_installed_pagefind_writes_the_layout_kb_knows():
    # Fails when Pagefind is upgraded: run tests/test_search_shards.py and tests/test_search.py
    # with it, then add its version to kb.upstream.pagefind.KNOWN_VERSIONS. Until then kb
    # indexes every page in one run (tests/test_search_shards.py checks that too).
    version = upstream_pagefind.installed_version()
    assert upstream_pagefind.layout_is_known(version), version
    assert not upstream_pagefind.layout_is_known("1.4.0")
    assert not upstream_pagefind.layout_is_known(None)
