"""One typed build state (kb.core.state): nothing else hangs kb's data on Sphinx's objects.

* No module of kb sets or reads an attribute named ``kb_*`` (or ``_kb_*``) on any object but a
  configuration (``app.config.kb_search`` is a Sphinx setting, and fine): read with ``ast``.
* A second build in one process starts from a fresh state: nothing of the first build's
  posts is in it, and what features register in their setup is not registered twice.
* Per-document tables are purged and merged by collectors (kb.core.collectors), never by a
  module connecting ``env-purge-doc`` or ``env-merge-info`` itself: a document removed between
  two builds leaves no entry in any table of the pickled environment.
"""

from __future__ import annotations

import ast
import dataclasses
import pickle
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from sitebuild import ROOTS, build, copy_root

from kb.core.collectors import DocumentTables
from kb.core.state import BuildState, EnvState, build_state, env_state

SRC = Path(__file__).parent.parent / "src" / "kb"
ATTRIBUTE_CALLS = {"getattr", "setattr", "hasattr", "delattr"}


def _is_kb_name(name: object) -> bool:
    return isinstance(name, str) and name.lstrip("_").startswith("kb_")


def _is_config(node: ast.expr) -> bool:
    """``config``, ``app.config``, ``sphinx_config``, ``self.env.config``: a configuration."""
    if isinstance(node, ast.Name):
        return node.id.endswith("config")
    if isinstance(node, ast.Attribute):
        return node.attr.endswith("config")
    return False


def _named(node: ast.expr) -> str | None:
    """The name a ``getattr``/``setattr`` argument gives, when it is written in the call
    (an f-string counts by its first constant part: ``f"kb_{name}"``)."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value
    return None


def _undeclared_uses(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    where = path.relative_to(SRC.parent) if SRC in path.parents else path.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_kb_name(node.attr):
            if not _is_config(node.value):
                found.append(f"{where}:{node.lineno}: .{node.attr}")
        elif isinstance(node, ast.Call) and len(node.args) >= 2:
            func = node.func
            name = _named(node.args[0] if _is_dict_method(func) else node.args[1])
            if not _is_kb_name(name):
                continue
            if isinstance(func, ast.Name) and func.id in ATTRIBUTE_CALLS:
                if not _is_config(node.args[0]):
                    found.append(f"{where}:{node.lineno}: {func.id}(..., {name!r})")
            elif _is_dict_method(func):
                found.append(f"{where}:{node.lineno}: __dict__ {name!r}")
        elif isinstance(node, ast.Call) and len(node.args) == 1 and _is_dict_method(node.func):
            name = _named(node.args[0])
            if _is_kb_name(name):
                found.append(f"{where}:{node.lineno}: __dict__ {name!r}")
    return found


def _is_dict_method(func: ast.expr) -> bool:
    """``x.__dict__.setdefault(...)``, ``vars(x).get(...)`` and the like."""
    if not isinstance(func, ast.Attribute):
        return False
    owner = func.value
    if isinstance(owner, ast.Attribute) and owner.attr == "__dict__":
        return True
    return (
        isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "vars"
    )


def test_no_module_hangs_kb_data_on_sphinx_objects():
    found = [use for path in sorted(SRC.rglob("*.py")) for use in _undeclared_uses(path)]
    assert found == [], "kb's data belongs in kb.core.state:\n" + "\n".join(found)


def test_the_scan_finds_what_it_looks_for(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "app.kb_catalog = 1\n"
        "x = env.kb_posts\n"
        "getattr(app, 'kb_journal', None)\n"
        "app.__dict__.setdefault('kb_post_parts', [])\n"
        "self._kb_settings = 2\n"
        "ok = app.config.kb_search\n"
        "ok = getattr(sphinx_config, f'kb_{name}')\n",
        encoding="utf-8",
    )
    found = _undeclared_uses(sample)
    assert [use.split(": ", 1)[1] for use in found] == [
        ".kb_catalog",
        ".kb_posts",
        "getattr(..., 'kb_journal')",
        "__dict__ 'kb_post_parts'",
        "._kb_settings",
    ]


def test_every_field_says_who_writes_and_reads_it():
    for state in (BuildState, EnvState):
        source = Path(__import__(state.__module__, fromlist=["_"]).__file__).read_text()
        lines = source.splitlines()
        for field in dataclasses.fields(state):
            at = next(
                n for n, line in enumerate(lines) if line.strip().startswith(f"{field.name}:")
            )
            assert lines[at - 1].strip().startswith("#"), f"{state.__name__}.{field.name}"


def _mentions(value: object, name: str) -> bool:
    """Whether a docname is anywhere in a state's value (keys, members, posts' docnames)."""
    if isinstance(value, str):
        return value == name
    if isinstance(value, dict):
        return any(_mentions(k, name) or _mentions(v, name) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(_mentions(item, name) for item in value)
    docname = getattr(value, "docname", None)
    return docname == name


def test_a_second_build_in_one_process_starts_from_a_fresh_state(make_app, tmp_path):
    first = build(make_app, copy_root("related", tmp_path / "one"))
    second = build(make_app, copy_root("listings", tmp_path / "two"))
    one, two = build_state(first), build_state(second)
    assert one is not two
    assert env_state(first.env) is not env_state(second.env)
    # The first build had what the check below looks for.
    assert _mentions(one.catalog.posts, "posts/lone")
    assert one.related and "posts/lone" in env_state(first.env).related_terms
    for field in dataclasses.fields(BuildState):
        value = getattr(two, field.name)
        assert not _mentions(value, "posts/lone"), field.name
    assert "posts/lone" not in {post.docname for post in two.catalog.posts}
    for field in dataclasses.fields(EnvState):
        assert not _mentions(getattr(env_state(second.env), field.name), "posts/lone"), field.name
    # What features register in their setup is registered once per application.
    assert len(two.signers) == len(one.signers)
    assert len(two.page_parts) == len(one.page_parts)
    assert len(two.post_parts) == len(one.post_parts)


# -- Per-document tables: purged and merged by collectors ---------------------------------------

HAND_CONNECTED = {"env-purge-doc", "env-merge-info"}


def _hand_connected(path: Path) -> list[str]:
    """Where a module connects ``env-purge-doc`` or ``env-merge-info`` itself (``x.connect(
    "env-purge-doc", ...)``), instead of declaring an ``EnvironmentCollector``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    where = path.relative_to(SRC.parent) if SRC in path.parents else path.name
    return [
        f"{where}:{node.lineno}: {node.args[0].value}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "connect"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and node.args[0].value in HAND_CONNECTED
    ]


def test_no_module_purges_or_merges_by_hand():
    found = [use for path in sorted(SRC.rglob("*.py")) for use in _hand_connected(path)]
    assert found == [], (
        "per-document data is purged and merged by an EnvironmentCollector "
        "(kb.core.collectors.DocumentTables):\n" + "\n".join(found)
    )


def test_the_connect_scan_finds_what_it_looks_for(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        'app.connect("env-purge-doc", _purge)\n'
        "app.connect('env-merge-info', _merge, priority=10)\n"
        'app.connect("doctree-read", _read)\n'
        'app.emit("env-purge-doc", env, docname)\n'
        "app.add_env_collector(Collector)\n",
        encoding="utf-8",
    )
    assert [use.split(": ", 1)[1] for use in _hand_connected(sample)] == [
        "env-purge-doc",
        "env-merge-info",
    ]


GONE = "posts/2025/gone"
GONE_POST = """\
---
blogpost: true
date: "2025-05-01"
category: "Article"
tags: ["gone"]
author: "mira"
description: "A post that is deleted before the second build."
---

# A post that goes

Roofline measurements of matrix multiplication, linked to [the home page](../../index.md).

```{latest-posts}
:count: 2
```

```{postlist} 2
```

```{benchmark} /data/gemm.csv
:x: m
:y: tflops_median
:group: dtype
:unit: TFLOP/s
:title: GEMM on one GPU
```
"""
GONE_NOTEBOOK = "posts/2025/roofline-stored-outputs"


def _load_environment(srcdir: Path):
    with open(srcdir / "_build" / "doctrees" / "environment.pickle", "rb") as file:
        return pickle.load(file)


def test_a_removed_document_leaves_no_entry_in_any_table(make_app, tmp_path):
    srcdir = copy_root("notebooks", tmp_path / "site")
    (srcdir / "data").mkdir()
    shutil.copy(ROOTS / "test-benchmark" / "data" / "gemm.csv", srcdir / "data" / "gemm.csv")
    (srcdir / f"{GONE}.md").write_text(GONE_POST, encoding="utf-8")
    build(make_app, srcdir)
    state = env_state(_load_environment(srcdir))
    # The first build put the two documents in every table this test means to look at.
    for name in (
        "posts",
        "excerpts",
        "datasets",
        "links",
        "latest_docs",
        "postlist_docs",
        "related_terms",
        "related_signs",
    ):
        assert GONE in getattr(state, name), name
    assert GONE_NOTEBOOK in state.notebooks and GONE_NOTEBOOK in state.posts

    (srcdir / f"{GONE}.md").unlink()
    (srcdir / f"{GONE_NOTEBOOK}.ipynb").unlink()
    build(make_app, srcdir)
    state = env_state(_load_environment(srcdir))
    assert "posts/2025/gemm-roofline" in state.posts  # the environment kept the others
    for field in dataclasses.fields(EnvState):
        value = getattr(state, field.name)
        for docname in (GONE, GONE_NOTEBOOK):
            assert not _mentions(value, docname), (field.name, docname)


def _environment(**tables) -> SimpleNamespace:
    """A stand-in for Sphinx's environment that holds an EnvState with these tables."""
    env = SimpleNamespace()
    state = env_state(env)
    for name, value in tables.items():
        setattr(state, name, value)
    return env


def test_a_collector_purges_and_merges_the_tables_it_names():
    class Sample(DocumentTables):
        purged = ("posts", "excerpts", "postlist_docs")
        merged = ("posts", "postlist_docs")  # excerpts: made after the merge

    mine = _environment(
        posts={"a": "old a", "b": "b"}, excerpts={"a": "<p>a</p>"}, postlist_docs={"a", "b"}
    )
    theirs = _environment(
        posts={"a": "new a", "c": "stale c"}, excerpts={"a": "worker's"}, postlist_docs={"a", "c"}
    )
    Sample().merge_other(None, mine, {"a", "d"}, theirs)
    state = env_state(mine)
    assert state.posts == {"a": "new a", "b": "b"}
    assert state.excerpts == {"a": "<p>a</p>"}
    assert state.postlist_docs == {"a", "b"}
    Sample().clear_doc(None, mine, "a")
    assert (state.posts, state.excerpts, state.postlist_docs) == ({"b": "b"}, {}, {"b"})


def test_a_collector_names_only_tables_the_state_declares():
    with pytest.raises(TypeError, match="no EnvState table postz"):

        class Misspelt(DocumentTables):
            purged = ("postz",)


def test_the_terms_pickle_each_pair_once_and_load_as_they_were():
    """kb serve pickles the environment and loads it again on every save: a (word, count)
    pair kept by many documents is written once and loaded as one object."""
    state = EnvState()
    for number in range(200):
        # New objects for each document, as each reading makes them.
        kernel, gpu = "".join(["ker", "nel"]), "".join(["g", "pu"])
        state.related_terms[f"posts/p{number}"] = (tuple([kernel, 3]), tuple([gpu, number % 2 + 1]))
    state.related_signs["posts/p0"] = "sign"
    shared = pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))
    assert shared.related_terms == state.related_terms
    assert shared.related_signs == state.related_signs
    firsts = {id(terms[0]) for terms in shared.related_terms.values()}
    seconds = {id(terms[1]) for terms in shared.related_terms.values()}
    assert len(firsts) == 1 and len(seconds) == 2
    # Smaller than each pair pickled on its own (the state itself is left as it was).
    apart = pickle.dumps(dict(state.__dict__), pickle.HIGHEST_PROTOCOL)
    assert len(pickle.dumps(state, pickle.HIGHEST_PROTOCOL)) < len(apart)
    assert state.related_terms["posts/p0"] is not shared.related_terms["posts/p0"]
