"""The site's dataset catalog: every dataset a ``benchmark`` figure shows, once per build.

Built at ``kb-catalog-built`` from the datasets the figures left in the environment
(kb.core.datasets) and the catalog of posts: a draft's datasets are left out (a build does not
read drafts; a ``kb serve --drafts`` preview does), posts come newest first, then pages that
are not posts by name, each page's datasets in the order it shows them. The benchmarks page
(:mod:`.benchmarks`) shows it; ``data/benchmarks.json`` is the same catalog for scripts, with
absolute URLs from ``html_baseurl``, sorted keys and nothing that changes between two builds
of the same sources (its schema: ``kb/data/benchmarks.schema.json``, published next to it).
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urljoin

from sphinx.application import Sphinx

from ..core import datasets, events
from ..core.posts import Catalog
from ..core.records import DatasetEntry
from ..core.state import build_state
from ..core.urls import as_uri

#: Where the build writes the catalog and its schema, in the output folder.
JSON_FILE = "data/benchmarks.json"
SCHEMA_FILE = "data/benchmarks.schema.json"
SCHEMA_SOURCE = Path(__file__).parent.parent / "data" / "benchmarks.schema.json"
#: Bump when the JSON's shape changes (the schema says which version it describes).
JSON_VERSION = 1


def site_entries(app: Sphinx, catalog: Catalog) -> list[DatasetEntry]:
    env = app.env
    drafts = {post.docname for post in catalog.drafts}
    order = {post.docname: index for index, post in enumerate(catalog.page_posts)}
    pages = [
        docname
        for docname in datasets.documents(env)
        if docname not in drafts
        and docname in env.found_docs
        and datasets.datasets_of(env, docname)
    ]
    pages.sort(key=lambda docname: (docname not in order, order.get(docname, 0), docname))
    entries: list[DatasetEntry] = []
    for docname in pages:
        title = env.titles.get(docname)
        shown = title.astext() if title is not None else docname
        post = catalog.by_docname(docname)
        entries.extend(DatasetEntry(one, shown, post) for one in datasets.datasets_of(env, docname))
    return entries


def entries_of(app: Sphinx) -> list[DatasetEntry]:
    """This build's dataset catalog (empty before ``kb-catalog-built``)."""
    return build_state(app).dataset_entries


def _catalog_built(app: Sphinx, catalog: Catalog) -> None:
    build_state(app).dataset_entries = site_entries(app, catalog)


# -- data/benchmarks.json --------------------------------------------------------------------


def _url(base: str, path: str) -> str | None:
    return as_uri(urljoin(base, path)) if path else None


def dataset_json(app: Sphinx, entry: DatasetEntry, base: str) -> dict:
    one, post = entry.dataset, entry.post
    page_url = _url(base, app.builder.get_target_uri(one.docname))
    best = None
    if one.best is not None:
        best = {
            "value": one.best,
            "shown": one.best_shown,
            "at": one.best_at,
            "percent_of_peak": one.percent_of_peak,
        }
    return {
        "id": one.key,
        "name": one.name,
        "title": one.title,
        "url": f"{page_url}#{one.anchor}",
        "page": {
            "docname": one.docname,
            "title": entry.page_title,
            "url": page_url,
            "is_post": post is not None,
            "date": post.date.date().isoformat() if post else None,
        },
        "gpu": (
            {"key": one.gpu_key or None, "name": one.gpu_name, "short": one.gpu_short}
            if one.gpu_name
            else None
        ),
        "dtype": one.dtype or None,
        "measured": one.measured or None,
        "software": {"text": one.software or None, "versions": dict(one.versions)},
        "metric": {"key": one.metric or None, "label": one.metric_label or None},
        "unit": one.unit or None,
        "columns": {"x": one.x, "y": one.y, "group": one.group or None},
        "filter": one.filter or None,
        "best": best,
        "peak": (
            {"value": one.peak, "unit": one.unit, "source": one.peak_source}
            if one.peak is not None
            else None
        ),
        "csv": _url(base, one.csv_download),
        "metadata": _url(base, one.metadata_download),
        "command": one.command or None,
    }


def catalog_json(app: Sphinx, entries: list[DatasetEntry], base: str, page: str) -> str:
    """The catalog as JSON text: two builds of the same sources give the same bytes."""
    document = {
        "version": JSON_VERSION,
        "site": base,
        "page": _url(base, app.builder.get_target_uri(page)),
        "schema": _url(base, SCHEMA_FILE),
        "count": len(entries),
        "datasets": [dataset_json(app, entry, base) for entry in entries],
    }
    return json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def json_signature(entries: list[DatasetEntry], base: str) -> list[str]:
    return [base, str(JSON_VERSION), *(entry.fingerprint() for entry in entries)]


def setup_datasets(app: Sphinx) -> None:
    # Before the sidebar (500), which links the benchmarks page when there is data.
    app.connect("kb-catalog-built", _catalog_built, priority=events.DATASET_ENTRIES)
