"""The posts' records kb serve's standby makes ahead of the change (kb.core.catalog.make_ahead).

On the section-posts root (file posts and section posts) with an old address added to one post,
built once: an application loads the saved environment, as the standby's does, makes the
records ahead, and builds the catalog from them. The catalog must equal the one made without
them, post for post, and take a document's records only while they are the ones the build
would make.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from sitebuild import BuiltOnce

from kb.core.catalog import build_catalog, make_ahead
from kb.core.state import build_state, env_state

pytestmark = pytest.mark.build

PLAIN = "posts/plain"


def _build(site: Path) -> None:
    from sphinx.testing.util import SphinxTestApp

    post = site / f"{PLAIN}.md"
    text = post.read_text(encoding="utf-8")
    post.write_text(text.replace("tags: [release]", "tags: [release]\nredirect: posts/old-plain"))
    application = SphinxTestApp("html", srcdir=site)
    try:
        application.build()
    finally:
        application.cleanup()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return BuiltOnce("sectionposts", tmp_path_factory.mktemp("ahead"), _build)


@pytest.fixture
def app(built, make_app):
    application = make_app("html", srcdir=built.restore())
    # The build's checks accept the old addresses before the catalog (env-updated).
    build_state(application).allowed_redirects = {PLAIN: {"posts/old-plain"}}
    yield application


def _made_anew(app):
    build_state(app).catalog_ahead = None
    return build_catalog(app, app.env)


def _all(catalog) -> list:
    return [*catalog.posts, *catalog.drafts]


def test_the_catalog_from_records_made_ahead_is_the_catalog_made_anew(app):
    make_ahead(app)
    ahead = build_state(app).catalog_ahead
    assert {docname for docname in ahead.records} >= {PLAIN, "posts/myst-sections"}
    kept = {id(post) for _, posts in ahead.records.values() for post in posts}
    catalog = build_catalog(app, app.env)
    assert build_state(app).catalog_ahead is None  # for one build only
    assert all(id(post) in kept for post in _all(catalog))  # every record was taken
    assert any(post.section for post in catalog.posts)  # section posts among them
    assert _all(catalog) == _all(_made_anew(app))
    assert catalog.collections == _made_anew(app).collections
    # The build's old addresses, not the ones of the moment the records were made.
    assert catalog.by_docname(PLAIN).redirects == ("posts/old-plain",)


def test_a_document_read_again_gets_a_record_of_its_own(app):
    make_ahead(app)
    ahead = build_state(app).catalog_ahead
    posts = env_state(app.env).posts
    # Sphinx reads a document into a new source object (the old one purged).
    posts[PLAIN] = dataclasses.replace(posts[PLAIN], fields={**posts[PLAIN].fields})
    posts[PLAIN].fields["title"] = "A Plain Post, renamed"
    catalog = build_catalog(app, app.env)
    renamed = catalog.by_docname(PLAIN)
    assert renamed.title == "A Plain Post, renamed"
    assert renamed is not ahead.records[PLAIN][1][0]
    assert _all(catalog) == _all(_made_anew(app))


def test_records_made_before_midnight_are_not_taken_after(app):
    make_ahead(app)
    ahead = build_state(app).catalog_ahead
    ahead.cutoff = ahead.cutoff.replace(year=ahead.cutoff.year - 1)  # the cut-off moved since
    kept = {id(post) for _, posts in ahead.records.values() for post in posts}
    catalog = build_catalog(app, app.env)
    assert not any(id(post) in kept for post in _all(catalog))
    assert _all(catalog) == _all(_made_anew(app))


def test_a_post_whose_excerpt_is_not_rendered_yet_is_left_to_the_build(app):
    """Rendering an excerpt runs Sphinx's post-transforms (ablog's among them): never ahead."""
    env_state(app.env).excerpts.pop(PLAIN)
    make_ahead(app)
    assert PLAIN not in build_state(app).catalog_ahead.records
    assert PLAIN not in env_state(app.env).excerpts  # nothing rendered ahead
    catalog = build_catalog(app, app.env)
    assert PLAIN in env_state(app.env).excerpts
    assert _all(catalog) == _all(_made_anew(app))
