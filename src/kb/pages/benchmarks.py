"""``benchmarks.html``: every dataset of the site in one table, to compare across posts and GPUs.

One row per dataset (:mod:`.datasets`), newest post first: its title linked to its figure and
the post it is in, GPU, data type, the best value with its unit and % of peak, when it was
measured with what software, and its CSV and metadata files. Above the table, filters by
GPU, data type and metric (``_static/kb-benchmarks.js``, the site's own script); they are
hidden until the script shows them, so without JavaScript the page is a plain table. The
sidebar links the page (with the number of datasets) and so does the page of the
``kb_benchmarks_category`` category, in a line under its heading. The page and
``data/benchmarks.json`` are written only when what they show changes; with no dataset on
the site there is neither.
"""

from __future__ import annotations

from functools import partial
from html import escape
from pathlib import Path

from markupsafe import Markup
from sphinx.application import Sphinx

from ..core.catalog import get_catalog, has_catalog
from ..core.fileio import write_if_changed
from ..core.html import focusable
from ..core.posts import digest
from ..core.state import build_state
from ..core.urls import SITE_BUILDERS, root_prefix, site_url
from ..incremental.freshness import is_current, page_signature, should_write
from .datasets import (
    JSON_FILE,
    SCHEMA_FILE,
    SCHEMA_SOURCE,
    DatasetEntry,
    catalog_json,
    entries_of,
    json_signature,
)
from .entries import format_date

PAGE = "benchmarks"
TEMPLATE = "kb/benchmarks.html"
TITLE = "Benchmark data"

#: The filters above the table: (key, label); a row's ``data-<key>`` lists its values.
FILTERS = (("gpu", "GPU"), ("dtype", "Data type"), ("metric", "Metric"))
SEPARATOR = "|"
COLUMNS = ("Dataset", "GPU", "Data type", "Best", "% of peak", "Measured", "Data")


def filter_values(entry: DatasetEntry) -> dict[str, list[str]]:
    one = entry.dataset
    dtypes = [part.strip() for part in one.dtype.split(",") if part.strip()]
    return {
        "gpu": [one.gpu_short] if one.gpu_short else [],
        "dtype": dtypes,
        "metric": [one.metric_label] if one.metric_label else [],
    }


def _download(prefix: str, path: str, kind: str) -> str:
    """A short link ("CSV") whose name also says the file ("CSV h200-gemm.csv")."""
    if not path:
        return ""
    label = escape(f"{kind} {Path(path).name}", quote=True)
    return (
        f'<a href="{escape(prefix + path, quote=True)}" download aria-label="{label}" '
        f'title="{label}">{kind}</a>'
    )


def row_html(entry: DatasetEntry, prefix: str) -> str:
    one, post = entry.dataset, entry.post
    page = f"{prefix}{one.docname}.html"
    data = " ".join(
        f'data-{key}="{escape(SEPARATOR.join(values), quote=True)}"'
        for key, values in filter_values(entry).items()
    )
    when = (
        f', <time datetime="{post.date.date().isoformat()}">{format_date(post.date)}</time>'
        if post
        else ""
    )
    best = ""
    if one.best is not None:
        unit = f" {escape(one.unit)}" if one.unit else ""
        best = (
            f"{escape(one.best_shown)}{unit}"
            f' <span class="kb-benchmarks-at">at {escape(one.best_at)}</span>'
        )
    percent = one.percent_of_peak
    shown_percent = "" if percent is None else f"{percent:.1f}"
    files = " ".join(
        link
        for link in (
            _download(prefix, one.csv_download, "CSV"),
            _download(prefix, one.metadata_download, "JSON"),
        )
        if link
    )
    measured = (
        f'<time datetime="{escape(one.measured, quote=True)}">{escape(one.measured)}</time>'
        if len(one.measured) == 10
        else escape(one.measured)
    )
    software = (
        f' <span class="kb-benchmarks-software">{escape(one.software)}</span>'
        if one.software
        else ""
    )
    cells = [
        f'<th scope="row"><a href="{escape(page, quote=True)}#{escape(one.anchor, quote=True)}">'
        f'{escape(one.title)}</a> <span class="kb-benchmarks-post">in <a href="'
        f'{escape(page, quote=True)}">{escape(entry.page_title)}</a>{when}</span></th>',
        f'<td data-label="GPU">{escape(one.gpu_short or one.gpu_name)}</td>',
        f'<td data-label="Data type">{escape(one.dtype)}</td>',
        f'<td data-label="Best" class="kb-num">{best}</td>',
        f'<td data-label="% of peak" class="kb-num">{shown_percent}</td>',
        f'<td data-label="Measured">{measured}{software}</td>',
        f'<td data-label="Data" class="kb-benchmarks-files">{files}</td>',
    ]
    return f"<tr {data}>{''.join(cells)}</tr>"


#: Data types in the order a reader expects, widest first (FP32 … NVFP4), then any other by
#: name; kept here rather than imported, since a page never imports a feature.
DTYPE_ORDER = (
    "FP64", "FP32", "TF32", "BF16", "FP16", "FP8", "FP8 E4M3", "FP8 E5M2", "INT8", "INT4",
    "MXFP8", "MXFP6", "MXFP4", "NVFP4", "FP4",
)  # fmt: skip


def option_key(key: str, value: str) -> tuple:
    """Filter options in a fixed order: data types by DTYPE_ORDER, others by name."""
    if key == "dtype" and value in DTYPE_ORDER:
        return (0, DTYPE_ORDER.index(value), "")
    return (1, 0, value.casefold())


def _filters_html(entries: list[DatasetEntry]) -> str:
    selects = []
    for key, label in FILTERS:
        values = sorted(
            {value for entry in entries for value in filter_values(entry)[key]},
            key=partial(option_key, key),
        )
        options = "".join(
            f'<option value="{escape(value, quote=True)}">{escape(value)}</option>'
            for value in values
        )
        selects.append(
            f'<p class="kb-benchmarks-filter"><label for="kb-filter-{key}">{label}</label> '
            f'<select id="kb-filter-{key}" data-filter="{key}">'
            f'<option value="">All</option>{options}</select></p>'
        )
    return (
        '<form class="kb-benchmarks-filters" aria-label="Filter the datasets" hidden>'
        f"{''.join(selects)}</form>"
        '<p class="kb-benchmarks-status" role="status" aria-live="polite"></p>'
    )


def page_html(entries: list[DatasetEntry], prefix: str, with_json: bool) -> str:
    pages = len({entry.dataset.docname for entry in entries})
    count = f"{len(entries)} dataset{'s' if len(entries) != 1 else ''}"
    where = f"{pages} page{'s' if pages != 1 else ''}"
    intro = (
        f'<p class="kb-benchmarks-intro">Every dataset that a figure on this site shows, '
        f"newest post first: {count} on {where}. Each links to its figure, to its data (CSV) "
        "and to how it was measured (JSON).</p>"
    )
    if with_json:
        intro += (
            '<p class="kb-benchmarks-json">The same catalog for scripts: '
            f'<a href="{prefix}{JSON_FILE}" type="application/json">{JSON_FILE}</a> '
            f'(<a href="{prefix}{SCHEMA_FILE}" type="application/json">its JSON Schema</a>).</p>'
        )
    header = "".join(f'<th scope="col">{name}</th>' for name in COLUMNS)
    rows = "".join(row_html(entry, prefix) for entry in entries)
    table = (
        f'<div class="kb-benchmarks-scroll" {focusable("Benchmark datasets")}>'
        '<table class="kb-benchmarks-table">'
        f"<thead><tr>{header}</tr></thead><tbody>{rows}</tbody></table></div>"
    )
    return intro + _filters_html(entries) + table


# -- Links to the page ------------------------------------------------------------------------


def sidebar_link(app: Sphinx) -> tuple[str, int] | None:
    """The page and its number of datasets, for the sidebar; None when there is no page."""
    entries = entries_of(app)
    return (f"{PAGE}.html", len(entries)) if entries else None


def archive_line(app: Sphinx, archive: str, prefix: str) -> str:
    """The line under the heading of the ``kb_benchmarks_category`` category's pages."""
    if not entries_of(app) or not has_catalog(app):
        return ""
    wanted = build_state(app).config.benchmarks_category
    category = next((c for c in get_catalog(app).collections["category"] if c.name == wanted), None)
    if category is None or archive != category.docname:
        return ""
    return (
        '<p class="kb-archive-data">Every dataset these posts show, in one table to compare '
        f'across posts and GPUs: <a href="{prefix}{PAGE}.html">{TITLE}</a>.</p>'
    )


# -- Writing ----------------------------------------------------------------------------------


def _write_json(app: Sphinx, entries: list[DatasetEntry]) -> bool:
    """data/benchmarks.json and its schema, when the site has a URL; whether they exist."""
    base = site_url(app)
    outdir = Path(app.outdir)
    files = [outdir / JSON_FILE, outdir / SCHEMA_FILE]
    if not entries or not base or app.builder.name not in SITE_BUILDERS:
        for path in files:
            path.unlink(missing_ok=True)  # a clean build would not write them
        return False
    schema = SCHEMA_SOURCE.read_text(encoding="utf-8")
    signature = page_signature(app, *json_signature(entries, base), digest([schema]))
    if not is_current(app, JSON_FILE, signature, files):
        write_if_changed(files[0], catalog_json(app, entries, base, PAGE))
        write_if_changed(files[1], schema)
    return True


def _html_collect_pages(app: Sphinx):
    if app.builder.format != "html" or not has_catalog(app):
        return
    entries = entries_of(app)
    with_json = _write_json(app, entries)
    if not entries:
        return
    body = page_html(entries, root_prefix(app, PAGE), with_json)
    if should_write(app, PAGE, page_signature(app, PAGE, body)):
        context = {"title": TITLE, "kb_title": TITLE, "kb_body": Markup(body)}
        yield PAGE, context, TEMPLATE


def setup_benchmarks(app: Sphinx) -> None:
    app.connect("html-collect-pages", _html_collect_pages)
