"""`kb import`: a WordPress export or feed becomes posts that pass `kb check` and build.

The fixtures (tests/fixtures/import/) are a WordPress 6.7 export (WXR 1.2) of a small research
site, a copy of its wp-content/uploads with two of the images its posts show, its RSS feed, and
a damaged export. Each test imports into a fresh site written into tmp_path.
"""

from __future__ import annotations

import contextlib
import io
import shutil
from datetime import date
from pathlib import Path

import pytest
import yaml
from authoring import build, run_check, snapshot
from bs4 import BeautifulSoup
from markdown_it.renderer import RendererHTML
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.mdit import create_md_parser

from kb.cli import main
from kb.importer.convert import to_myst

FIXTURES = Path(__file__).parent / "fixtures" / "import"
WXR = FIXTURES / "wordpress-export.xml"
FEED = FIXTURES / "research-feed.xml"
UPLOADS = FIXTURES / "uploads"
MAPS = ("--map-category", "GPU Kernels=Article", "--map-author", "guest-writer=priya")

CONF = """\
import os, time

extensions = ["myst_parser", "ablog", "kb"]
project = "Import Test Site"
html_theme = "furo"
exclude_patterns = ["_build"]
nitpicky = True
os.environ["TZ"] = "UTC"
time.tzset()
blog_path = "blog"
blog_baseurl = "https://import.example.org/"
blog_post_pattern = "posts/*/*.md"
blog_authors = {
    "mira": ("Mira Okafor", None),
    "tomas": ("Tomas Lindqvist", None),
    "priya": ("Priya Raman", None),
}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
post_auto_orphan = True
post_date_format = "%Y-%m-%d"
myst_enable_extensions = ["dollarmath", "amsmath"]
kb_categories = ["Article", "Benchmarks"]
"""
EXISTING = """\
---
blogpost: true
date: 2025-06-01
category: Article
tags: [gemm]
author: mira
---

# Notes from the new site

The first post written here, after the move.
"""


@pytest.fixture
def site(tmp_path) -> Path:
    """A small site with one post of its own, the place the imports go."""
    root = tmp_path / "site"
    (root / "posts" / "2025").mkdir(parents=True)
    (root / "conf.py").write_text(CONF, encoding="utf-8")
    (root / "index.md").write_text("# Import Test Site\n\nPosts moved here.\n", encoding="utf-8")
    (root / "posts/2025/new-site-notes.md").write_text(EXISTING, encoding="utf-8")
    return root


def kb(root: Path, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return status, out.getvalue(), err.getvalue()


def kb_import(root: Path, *args: str, source: Path = WXR) -> tuple[int, list[str], list[str]]:
    """`kb import` with the fixture: exit status, stdout lines without the path, stderr lines."""
    status, out, err = kb(root, "import", str(source), *args)
    prefix = f"{source}:"
    lines = [line.removeprefix(prefix) for line in out.splitlines()]
    return status, lines, err.splitlines()


def read_post(path: Path) -> tuple[dict, list]:
    """The post's front matter (PyYAML) and its body as MyST's parser reads it (tokens)."""
    text = path.read_text(encoding="utf-8")
    _, front, _ = text.split("---\n", 2)
    config = MdParserConfig(enable_extensions={"dollarmath", "amsmath"})
    return yaml.safe_load(front), create_md_parser(config, RendererHTML).parse(text)


def of_type(tokens, kind: str) -> list:
    inline = [child for token in tokens for child in (token.children or [])]
    return [token for token in (*tokens, *inline) if token.type == kind]


def written(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()} - {
        "conf.py",
        "index.md",
        "posts/2025/new-site-notes.md",
    }


# -- The export: what becomes a post, and what does not -------------------------------------------


def test_export_imports_published_posts_and_says_why_others_are_not(site):
    status, lines, summary = kb_import(site, "--uploads", str(UPLOADS))
    assert status == 1
    assert lines == [
        "34: wrote posts/2025/tiling-flashattention-hopper.md and 1 image(s) into "
        'tiling-flashattention-hopper/ from "Tiling FlashAttention for Hopper"',
        "103: wrote posts/2024/cutlass-gemm-budget.md and 1 image(s) into cutlass-gemm-budget/ "
        'from "CUTLASS GEMM on a budget"',
        "103: note: posts/2024/cutlass-gemm-budget.md: unknown shortcode [gallery] kept as text",
        '159: wrote posts/2023/profiling-gemm-epilogues.md from "Profiling GEMM epilogues with '
        'Nsight Compute"',
        "159: note: posts/2023/profiling-gemm-epilogues.md: image https://gpu-notes.example.org/"
        f"wp-content/uploads/2023/05/epilogue-stalls.png is not in {UPLOADS}: the post links to "
        "it on gpu-notes.example.org; copy it next to the post and show it with ![alt](file)",
        "159: note: posts/2023/profiling-gemm-epilogues.md: image https://cdn.example.net/charts/"
        f"store-width.png is not in {UPLOADS}: the post links to it on cdn.example.net; copy it "
        "next to the post and show it with ![alt](file)",
        '192: not imported: "FP8 scaling notes": draft on WordPress, never published: publish it '
        "there and export again",
        '214: not imported: "Cluster allocation for the spring term": private on WordPress: only '
        "its author and editors could read it",
        '259: wrote pages/about.md from "About the group"',
        '305: error: "Persistent kernels and Stream-K" not imported: category "GPU Kernels" is '
        "not one of the site's (Article, Benchmarks): add --default-category Article, "
        "--map-category 'GPU Kernels=Article' or a --map file, or add it to kb_categories in "
        "conf.py",
        '330: error: "A guest view on warp specialization" not imported: author "guest-writer" '
        "is not a key of blog_authors (mira, tomas, priya): add --map-author 'guest-writer=KEY' "
        "or a --map file, or add the author to blog_authors in conf.py",
    ]
    assert summary == [  # attachments and menu items: one line for all, none of their own
        "kb import: wrote 3 post(s), 1 page(s) and 2 image(s); 3 note(s) to read",
        "kb import: 1 WordPress page(s) under pages/: list them in the toctree of index.md to "
        "show them in the navigation",
        "kb import: not imported (not published posts): 1 draft, 1 private, 1 attachment, "
        "1 menu item",
        "kb import: 1 error(s) of kind author [guest-writer]: use --map-author LOGIN=KEY or a "
        "--map file, or add the author to blog_authors",
        "kb import: 1 error(s) of kind category [GPU Kernels]: use --default-category CATEGORY "
        "(add --categories-as-tags to keep them as tags), --map-category OLD=NEW or a --map file",
        "kb import: 2 item(s) not imported; run kb import again once fixed (it skips what it "
        "already imported)",
        "kb import: 7 old address(es) the site cannot redirect by itself: set them at the host "
        "(kb import --rtd-redirects prints them all)",
        "kb import: wrote redirects.toml: 9 old archive address(es), each a redirect page of the "
        "build",
    ]
    assert written(site) == {
        "redirects.toml",
        "pages/about.md",
        "posts/2025/tiling-flashattention-hopper.md",
        "posts/2025/tiling-flashattention-hopper/fa-tiles-1024x576.png",
        "posts/2024/cutlass-gemm-budget.md",
        "posts/2024/cutlass-gemm-budget/gemm-roofline.png",
        "posts/2023/profiling-gemm-epilogues.md",
    }
    assert run_check(site)[:2] == (0, [])


def test_front_matter_is_complete(site):
    kb_import(site, "--uploads", str(UPLOADS), *MAPS)
    front, _ = read_post(site / "posts/2025/tiling-flashattention-hopper.md")
    assert front == {
        "blogpost": True,
        "date": date(2025, 1, 14),  # the GMT date; the local one is an hour later
        "updated": date(2025, 2, 3),
        "category": "Article",
        "tags": ["FlashAttention", "Hopper", "online softmax"],
        "author": "mira",  # login mokafor, display name Mira Okafor as in blog_authors
        "description": "How we tile Q, K and V in a FlashAttention forward kernel on Hopper so "
        "that no warpgroup waits for shared memory.",
        "redirect": "2025/01/14/tiling-flashattention-hopper/index",
        "source_id": "https://gpu-notes.example.org/?p=101",
    }
    front, _ = read_post(site / "posts/2024/cutlass-gemm-budget.md")
    assert "description" not in front and "updated" not in front  # no excerpt, never edited
    assert (front["category"], front["tags"], front["author"]) == (
        "Benchmarks",
        ["gemm", "CUTLASS"],  # "GEMM" on WordPress; the site spells that tag "gemm"
        "tomas",
    )
    mapped = [
        read_post(site / f"posts/2024/{slug}.md")[0]
        for slug in ("persistent-kernels-stream-k", "guest-warp-specialization")
    ]
    assert [(f["category"], f.get("author")) for f in mapped] == [
        ("Article", "tomas"),
        ("Article", "priya"),
    ]


def test_block_editor_post_becomes_myst(site):
    kb_import(site, "--uploads", str(UPLOADS))
    path = site / "posts/2025/tiling-flashattention-hopper.md"
    _, tokens = read_post(path)
    headings = [
        (t.tag, tokens[i + 1].content) for i, t in enumerate(tokens) if t.type == "heading_open"
    ]
    assert headings == [
        ("h1", "Tiling FlashAttention for Hopper"),
        ("h2", "The online softmax"),
        ("h3", "Tile shapes we measured"),
    ]
    fences = {t.info.split()[0]: t for t in of_type(tokens, "fence")}
    assert fences["cuda"].content.startswith("template <int kBlockM, int kHeadDim>\n__global__")
    assert "m_i * scale stays in registers" in fences["cuda"].content
    table = fences["{table}"]
    assert table.info == "{table} FlashAttention forward, BF16, H100 SXM"
    assert "| 128 | 128 x 176 | 661 |" in table.content
    figure = fences["{figure}"]
    assert figure.info == "{figure} tiling-flashattention-hopper/fa-tiles-1024x576.png"
    assert (
        figure.content == ":alt: Q tiles assigned to warpgroups\n"
        ":target: https://gpu-notes.example.org/wp-content/uploads/2025/01/fa-tiles.png\n"
        "\nEach consumer warpgroup owns 64 rows of $Q$.\n"
    )
    image = site / "posts/2025/tiling-flashattention-hopper/fa-tiles-1024x576.png"
    assert image.read_bytes() == (UPLOADS / "2025/01/fa-tiles-1024x576.png").read_bytes()
    inline_math = [t.content for t in of_type(tokens, "math_inline")]
    assert inline_math == [
        "Q",
        "K",
        "V",
        "i",
        r"m_i = \max_j s_{ij}",
        r"\ell_i = \sum_j e^{s_{ij} - m_i}",
        "K",
    ]
    assert [t.content.strip() for t in of_type(tokens, "math_block")] == [
        r"O_i = \frac{1}{\ell_i} \sum_j e^{s_{ij} - m_i} V_j"
    ]
    assert [t.content for t in of_type(tokens, "code_inline")] == [
        "row_max",
        "row_sum",
        "cp.async.bulk.tensor",
    ]
    links = [t.attrs["href"] for t in of_type(tokens, "link_open")]
    assert links == ["/posts/2024/cutlass-gemm-budget.md"]  # the old address of an imported post
    assert len(of_type(tokens, "bullet_list_open")) == 2  # a list inside a list
    assert [t.content for t in of_type(tokens, "strong_open")] == [""]


def test_classic_editor_post_with_shortcodes_becomes_myst(site):
    status, lines, _ = kb_import(site, "--uploads", str(UPLOADS))
    _, tokens = read_post(site / "posts/2024/cutlass-gemm-budget.md")
    paragraphs = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "paragraph_open"]
    # wpautop's paragraphs: a blank line ends one, a single line break stays a line break.
    assert paragraphs[0] == (
        "We compared CUTLASS 3.5 against cuBLAS for **BF16 GEMM** on one H100 SXM that we rent "
        "for about \\$3 per hour.\\\nAll numbers are medians of 100 runs."
    )
    assert of_type(tokens[:12], "math_inline") == []  # "$3" is money, not math
    fences = {t.info.split()[0]: t for t in of_type(tokens, "fence")}
    assert fences["shell"].content == (
        "cmake .. -DCUTLASS_NVCC_ARCHS=90a && make -j cutlass_profiler\necho $CUDA_HOME $PATH\n"
    )
    assert fences["python"].content.startswith(
        "for m, n, k in shapes:\n    flops = 2 * m * n * k\n"
    )
    # [caption] around a linked thumbnail: a figure of the full-size original, found in uploads.
    assert fences["{figure}"].info == "{figure} cutlass-gemm-budget/gemm-roofline.png"
    assert fences["{figure}"].content == (
        ":alt: Roofline of BF16 GEMM\n:width: 768px\n\n"
        "Where each *GEMM shape* sits on the roofline\n"
    )
    # A table without <th> keeps no header row.
    assert fences["{list-table}"].content.startswith(":header-rows: 0\n\n* - Shape\n  - cuBLAS\n")
    assert "4096³" in fences["{list-table}"].content
    assert [t.content.strip() for t in of_type(tokens, "math_block")] == [
        r"I = \frac{2n^3}{3 \cdot 2 n^2} = \frac{n}{3}"
    ]
    assert [t.content for t in of_type(tokens, "math_inline")] == [
        r"\lceil m / b_M \rceil \cdot \lceil n / b_N \rceil"
    ]
    assert paragraphs[-1] == r'\[gallery ids="52,53" columns="2"\]'  # kept as text, reported


def test_images_outside_the_uploads_become_links_to_their_address(site):
    kb_import(site)  # no --uploads: every image stays where it was
    _, tokens = read_post(site / "posts/2023/profiling-gemm-epilogues.md")
    # No page loads anything from another host: a link to the image, not the image.
    assert of_type(tokens, "image") == []
    links = [t.attrs["href"] for t in of_type(tokens, "link_open")]
    assert {
        "https://gpu-notes.example.org/wp-content/uploads/2023/05/epilogue-stalls.png",
        "https://cdn.example.net/charts/store-width.png",
    } <= set(links)
    assert not (site / "posts/2025/tiling-flashattention-hopper").exists()


# -- Repeating, dry runs, refusals ----------------------------------------------------------------


def test_second_run_changes_nothing(site):
    status, lines, _ = kb_import(site, "--uploads", str(UPLOADS), *MAPS)
    assert status == 0 and sum("wrote posts/" in line for line in lines) == 5
    before = snapshot(site)
    status, lines, summary = kb_import(site, "--uploads", str(UPLOADS), *MAPS)
    assert status == 0
    assert snapshot(site) == before
    assert [line for line in lines if "already imported" in line] == [
        '34: already imported: "Tiling FlashAttention for Hopper" is '
        "posts/2025/tiling-flashattention-hopper.md",
        '103: already imported: "CUTLASS GEMM on a budget" is posts/2024/cutlass-gemm-budget.md',
        '159: already imported: "Profiling GEMM epilogues with Nsight Compute" is '
        "posts/2023/profiling-gemm-epilogues.md",
        '259: already imported: "About the group" is pages/about.md',
        '305: already imported: "Persistent kernels and Stream-K" is '
        "posts/2024/persistent-kernels-stream-k.md",
        '330: already imported: "A guest view on warp specialization" is '
        "posts/2024/guest-warp-specialization.md",
    ]
    assert summary[0] == "kb import: wrote 0 post(s) and 0 image(s); 6 already imported"


def test_dry_run_writes_nothing(site):
    before = snapshot(site)
    status, lines, summary = kb_import(site, "--uploads", str(UPLOADS), "--dry-run")
    assert status == 1  # the same verdict as the real run: two posts would be left out
    assert snapshot(site) == before
    assert [" ".join(line.split()) for line in lines if "would write" in line] == [  # a table
        '34 would write posts/2025/tiling-flashattention-hopper.md "Tiling FlashAttention for '
        'Hopper" (1 img, 0 notes)',
        '103 would write posts/2024/cutlass-gemm-budget.md "CUTLASS GEMM on a budget" '
        "(1 img, 1 notes)",
        '159 would write posts/2023/profiling-gemm-epilogues.md "Profiling GEMM epilogues with '
        'Nsight Compute" (0 img, 2 notes)',
        '259 would write pages/about.md "About the group" (0 img, 0 notes)',
    ]
    assert lines[0].split() == ["line", "what", "file", "title", "/", "why"]
    assert sum(": error: " in line for line in lines) == 2  # the errors, in full, below it
    assert summary[0] == (
        "kb import: would write 3 post(s), 1 page(s) and 2 image(s); 3 note(s) to read"
    )


def test_a_taken_slug_or_a_failing_check_leaves_the_post_out(site):
    taken = site / "posts/2025/tiling-flashattention-hopper.md"
    taken.write_text(EXISTING.replace("Notes from the new site", "Our own tiling post"))
    (site / "posts/2026").mkdir()
    (site / "posts/2026/same-title.md").write_text(
        EXISTING.replace("2025-06-01", "2020-01-01").replace(
            "Notes from the new site", "CUTLASS GEMM on a budget"
        )
    )
    # Newer than the imported post of that slug: the import would take the slug from it.
    (site / "posts/2025/profiling-gemm-epilogues.md").write_text(
        EXISTING.replace("Notes from the new site", "Profiling, again")
    )
    before = taken.read_bytes()
    status, lines, _ = kb_import(site, "--uploads", str(UPLOADS), *MAPS)
    assert status == 1
    errors = [line for line in lines if "error:" in line]
    assert errors == [
        '34: error: "Tiling FlashAttention for Hopper" not imported: '
        "posts/2025/tiling-flashattention-hopper.md already exists (and kb import never "
        "overwrites)",
        '103: error: "CUTLASS GEMM on a budget" not imported: posts/2024/cutlass-gemm-budget.md '
        'would not pass kb check (line 11: the title "CUTLASS GEMM on a budget" is also the '
        "title of posts/2026/same-title.md:9: readers cannot tell the two apart; make this one "
        "distinct)",
        '159: error: "Profiling GEMM epilogues with Nsight Compute" not imported: '
        "posts/2023/profiling-gemm-epilogues.md would not pass kb check (it would give "
        'posts/2025/profiling-gemm-epilogues.md:1 an error: the slug "profiling-gemm-epilogues" '
        "is taken by posts/2023/profiling-gemm-epilogues.md: ablog gives both posts one label, so "
        "references to one reach the other; rename this file)",
    ]
    assert taken.read_bytes() == before
    assert not (site / "posts/2024/cutlass-gemm-budget.md").exists()
    # The FlashAttention post links to the GEMM post: that link keeps its old address now.
    assert run_check(site)[:2] == (0, [])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--map-category", "Kernels=Essays"), 'kb import: --map-category (or --map): "Essays" is '
         "not a category of the site (Article, Benchmarks)"),
        (("--map-author", "guest-writer=sam"), 'kb import: --map-author (or --map): "sam" is not '
         "a key of blog_authors (mira, tomas, priya)"),
        (("--default-category", "Essays"), 'kb import: --default-category: "Essays" is not a '
         "category of the site (Article, Benchmarks)"),
        (("--map", "/dev/zero"), "kb import: --map /dev/zero: cannot read it (is a device, whose "
         "reading may never end; name an ordinary file instead)"),
        (("--map-category", "Kernels"), "kb import: --map-category 'Kernels': write OLD=NEW, e.g. "
         "--map-category 'GPU Kernels=Article'"),
        (("--uploads", "no-such-folder"), "kb import: --uploads no-such-folder: no such folder"),
    ],
)  # fmt: skip
def test_bad_usage_is_exit_2(site, args, message):
    before = snapshot(site)
    assert kb(site, "import", str(WXR), *args) == (2, "", message + "\n")
    assert snapshot(site) == before


def test_malformed_xml_is_reported_at_its_line_and_column(site):
    source = FIXTURES / "malformed-export.xml"
    assert kb(site, "import", str(source)) == (
        2,
        "",
        f"{source}:7:33: malformed XML (Opening and ending tag mismatch: post_type line 7 and "
        "status): the export is cut short or damaged; export it again\n",
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "{path}:1:1: the file is empty: export it again from WordPress"),
        (b"title,date\n", "{path}:1:1: not XML: kb import reads a WordPress export (Tools > "
         "Export), an RSS 2.0 or an Atom feed"),
        (b"<html><body><p>hi</p></body></html>", "{path}:1:1: <html> is neither a WordPress "
         "export (Tools > Export), an RSS 2.0 feed nor an Atom feed"),
        (b"<rss version='2.0'/>", "{path}:1:1: an <rss> without a <channel>"),
    ],
)  # fmt: skip
def test_files_that_are_no_export_are_exit_2(site, tmp_path, content, message):
    path = tmp_path / "export.xml"
    path.write_bytes(content)
    assert kb(site, "import", str(path)) == (2, "", message.format(path=path) + "\n")
    missing = tmp_path / "missing.xml"
    assert kb(site, "import", str(missing)) == (
        2,
        "",
        f"{missing}: cannot read this file (No such file or directory)\n",
    )


def test_no_traceback_on_any_cut_of_the_export(site, tmp_path):
    data = WXR.read_bytes()
    before = snapshot(site)
    for cut in range(0, len(data), len(data) // 40):
        path = tmp_path / "cut.xml"
        path.write_bytes(data[:cut])
        status, _, err = kb(site, "import", str(path), "--dry-run")
        assert status == 2 and err.startswith(f"{path}:"), (cut, err)
        assert "Traceback" not in err
    assert snapshot(site) == before


def test_entities_are_never_expanded(site, tmp_path):
    path = tmp_path / "entities.xml"
    path.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE rss [<!ENTITY secret SYSTEM "file:///etc/hostname">\n'
        '<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>\n'
        '<rss version="2.0"><channel><link>https://x.example.org</link><item>'
        "<title>Leak &secret; &b;</title><link>https://x.example.org/2025/01/02/leak/</link>"
        "<pubDate>Thu, 02 Jan 2025 00:00:00 +0000</pubDate><category>Article</category>"
        "<description>A summary.</description></item></channel></rss>\n"
    )
    status, _, _ = kb(site, "import", str(path))
    assert status == 0
    text = (site / "posts/2025/leak.md").read_text()
    assert "aaaaaaaaaa" not in text and Path("/etc/hostname").read_text().strip() not in text


def test_everything_written_is_under_posts_or_pages(site):
    kb_import(site, "--uploads", str(UPLOADS), *MAPS)
    kb_import(site, source=FEED)
    # And the old addresses (kb_old_addresses), beside conf.py.
    assert all(path.startswith(("posts/", "pages/")) or path == "redirects.toml"
               for path in written(site))  # fmt: skip
    assert run_check(site)[:2] == (0, [])


# -- Feeds ---------------------------------------------------------------------------------------


def test_feed_items_become_posts_or_external_posts(site):
    status, lines, summary = kb_import(site, source=FEED)
    assert status == 0
    assert summary[0] == "kb import: wrote 3 post(s) and 0 image(s)"
    assert summary[1].startswith("kb import: 5 old address(es) the site cannot redirect")
    front, tokens = read_post(site / "posts/2025/flashattention-3-ping-pong.md")
    assert front == {
        "blogpost": True,
        "date": date(2025, 3, 10),
        "category": "Article",
        "tags": ["FlashAttention", "Hopper"],  # the terms that are no category
        "author": "mira",  # "Mira Okafor" in the feed
        "description": "Two consumer warpgroups take turns: while one runs the softmax, the "
        "other keeps the tensor cores busy with the next GEMM. We measure how much of the "
        "softmax this hides on H100 & H200 …",
        "external_link": "https://gpu-notes.example.org/2025/03/10/flashattention-3-ping-pong/",
        "source_id": "https://gpu-notes.example.org/?p=131",
    }
    assert [t.type for t in tokens if t.type.endswith("_open")] == ["heading_open"]  # title only
    front, _ = read_post(site / "posts/2025/stream-k-one-picture.md")
    assert front["description"].endswith("three shapes, and the speedup on each.")
    assert "appeared first on" not in front["description"]
    front, tokens = read_post(site / "posts/2025/tma-bandwidth-h200.md")
    assert "external_link" not in front
    assert front["redirect"] == "2025/02/11/tma-bandwidth-h200/index"
    assert (front["category"], front["tags"]) == ("Benchmarks", ["TMA", "H200"])
    text = (site / "posts/2025/tma-bandwidth-h200.md").read_text()
    assert "appeared first on" not in text
    assert [t.info for t in of_type(tokens, "fence")] == ["python"]
    assert len(of_type(tokens, "tr_open")) == 3
    assert kb_import(site, source=FEED)[0] == 0 and len(written(site)) == 3


def test_atom_feed(site, tmp_path):
    path = tmp_path / "atom.xml"
    path.write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom"><title>GPU Notes</title>'
        '<link rel="alternate" href="https://gpu-notes.example.org/"/>'
        "<id>https://gpu-notes.example.org/</id><updated>2025-03-01T00:00:00Z</updated>\n"
        "<entry><title>Register pressure in the epilogue</title>"
        '<link rel="alternate" href="https://gpu-notes.example.org/2025/03/01/register-pressure/"/>'
        "<id>tag:gpu-notes.example.org,2025:141</id><published>2025-03-01T23:30:00-02:00</published>"
        '<author><name>Priya Raman</name></author><category term="Article"/>'
        '<summary type="html">Spills, and how to read them.</summary>'
        '<content type="html">&lt;p&gt;Spills show up as &lt;code&gt;STL&lt;/code&gt; in SASS.'
        "&lt;/p&gt;</content></entry>\n</feed>\n"
    )
    assert kb(site, "import", str(path))[0] == 0
    front, tokens = read_post(site / "posts/2025/register-pressure.md")
    assert (front["date"], front["author"], front["source_id"]) == (
        date(2025, 3, 2),  # 23:30 at UTC-2 is the next day in UTC
        "priya",
        "tag:gpu-notes.example.org,2025:141",
    )
    assert [t.content for t in of_type(tokens, "code_inline")] == ["STL"]


def test_rtd_redirects_are_printed_and_nothing_is_written(site):
    before = snapshot(site)
    status, out, _ = kb(site, "import", str(WXR), "--rtd-redirects", *MAPS)
    assert status == 0 and snapshot(site) == before
    lines = out.splitlines()
    assert lines[:6] == [
        "/2025/01/14/tiling-flashattention-hopper/ /posts/2025/tiling-flashattention-hopper.html",
        "/2024/11/02/cutlass-gemm-budget/ /posts/2024/cutlass-gemm-budget.html",
        "/2023/05/20/profiling-gemm-epilogues/ /posts/2023/profiling-gemm-epilogues.html",
        "/2024/09/10/persistent-kernels-stream-k/ /posts/2024/persistent-kernels-stream-k.html",
        "/2024/12/05/guest-warp-specialization/ /posts/2024/guest-warp-specialization.html",
        "/about/ /pages/about.html",
    ]
    # The feed and ?p=ID: what a static site cannot serve by itself. The archives are pages
    # the build writes from redirects.toml (which an --rtd-redirects run does not write).
    assert not [line for line in lines if line.startswith(("/category/", "/tag/", "/author/"))]
    assert lines[-1].startswith("# The old archives (/category/, /tag/, /author/) need no host")
    assert "/feed/ /feeds/rss.xml" in lines
    assert "# /?p=101 /posts/2025/tiling-flashattention-hopper.html" in lines


# -- The converter on its own --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("html", "markdown"),
    [
        ("<p>From $5 to $10 a month</p>", "From \\$5 to \\$10 a month\n"),
        ("<p>Jetpack: $latex \\alpha_k^2&bg=ffffff$.</p>", "Jetpack: $\\alpha_k^2$.\n"),
        ("<p>Escaped: [[gallery]]</p>", "Escaped: \\[gallery\\]\n"),
        ("<h4>Deep</h4><p>x</p><h2>Top</h2>", "## Deep\n\nx\n\n## Top\n"),
        ("<p>H<sub>2</sub>O and 2<sup>10</sup></p>", "H{sub}`2`O and 2{sup}`10`\n"),
        ("<p>% of peak</p>", "\\% of peak\n"),
        ("<table><tr><th>a|b</th><th>c</th></tr><tr><td>`</td><td><code>|</code></td></tr></table>",
         "| a\\|b | c |\n| --- | --- |\n| \\` | `\\|` |\n"),
        ("<table><tr><td>a|b</td><td>c</td></tr></table>",
         "```{list-table}\n:header-rows: 0\n\n* - a\\|b\n  - c\n```\n"),
        ('<pre class="brush: cpp; title: ; notranslate">int x = a &lt; b;</pre>',
         "```cpp\nint x = a < b;\n```\n"),
        ('<pre><code class="language-nosuchlang">x</code></pre>', "```\nx\n```\n"),
        ('<img src="https://s0.wp.com/latex.php?latex=x%5E2" alt="x^2">', "$x^2$\n"),
        ('<p>Use <code>$HOME</code> and <code>a_b*c</code></p>', "Use `$HOME` and `a_b*c`\n"),
        ("<hr><p>a</p><hr><hr><p>b</p><hr>", "a\n\n---\n\nb\n"),  # docutils' rules for transitions
        ("<h2>x</h2><hr><p>a</p>", "## x\n\na\n"),
    ],
)  # fmt: skip
def test_converter(html, markdown):
    assert to_myst(html, raw=False).markdown == markdown


def test_converter_keeps_image_addresses_by_default():
    # A thumbnail linked to its full size: to_myst's default image function once took no
    # `note` and raised TypeError on it (issue 33, found by mypy).
    html = (
        '<p><a href="https://x.org/a.png"><img src="https://x.org/a-150x150.png" alt="a"></a></p>'
    )
    assert to_myst(html, raw=False).markdown == "[Image: a](https://x.org/a.png)\n"


def test_converter_reports_what_it_cannot_keep():
    conversion = to_myst(
        '<p>[audio src="talk.mp3"]</p><pre><code class="language-nosuchlang">x</code></pre>'
        '<iframe src="https://www.youtube.com/embed/abc"></iframe><script>track()</script>',
        raw=False,
    )
    assert conversion.notes == [
        "a <script> was left out",
        "code in nosuchlang that Pygments cannot highlight kept without a language",
        "an embed from www.youtube.com became a link card",
    ]


# -- The imported posts build --------------------------------------------------------------------


def test_imported_posts_build_without_warnings_and_old_addresses_redirect(site):
    assert kb_import(site, "--uploads", str(UPLOADS), *MAPS)[0] == 0
    assert kb_import(site, source=FEED)[0] == 0
    app, warnings = build(site)
    assert warnings == []
    out = Path(app.outdir)
    post = BeautifulSoup((out / "posts/2025/tiling-flashattention-hopper.html").read_text(), "lxml")
    body = post.select_one("article")
    assert body.select_one("figure img")["src"] == "../../_images/fa-tiles-1024x576.png"
    assert (out / "_images/fa-tiles-1024x576.png").is_file()
    assert (
        body.select_one("table caption")
        .get_text(" ", strip=True)
        .startswith("FlashAttention forward, BF16, H100 SXM")
    )
    assert len(body.select("math")) == 9 and body.select_one("div.highlight-cuda")
    for old, new in [
        ("2025/01/14/tiling-flashattention-hopper", "posts/2025/tiling-flashattention-hopper"),
        ("2024/11/02/cutlass-gemm-budget", "posts/2024/cutlass-gemm-budget"),
        ("2025/02/11/tma-bandwidth-h200", "posts/2025/tma-bandwidth-h200"),
    ]:
        page = out / old / "index.html"
        refresh = BeautifulSoup(page.read_text(), "lxml").select_one('meta[http-equiv="refresh"]')
        target = refresh["content"].split("url=", 1)[1]
        assert (page.parent / target).resolve() == (out / f"{new}.html").resolve()
    assert not (out / "2025/03/10/flashattention-3-ping-pong").exists()  # external: no redirect
    shutil.rmtree(out.parent)


HOSTILE = [
    "<div>" * 3000 + "nested too deep" + "</div>" * 3000,
    "<p>unclosed <b>bold <i>both</p><table></table><pre></pre><img><a>no address</a>",
    "<p>[caption]no image[/caption] [code]x < y[/code] [latex][/latex] $$ $$ \\( \\) text</p>",
    "<figure><img src=''><figcaption></figcaption></figure><p>after an empty figure</p>"
    "<figure><table><tr><td>x</td></tr></table><figcaption>two\nlines</figcaption></figure>",
    "<h1></h1><h6>six</h6><hr><p>$a$b$c$ $ x $ $$a$$b$$</p>",
    "<p>A deep path.</p><img src='/wp-content/uploads/../../../etc/passwd' alt='x'>",
]


def test_hostile_html_is_reported_never_a_crash(site, tmp_path):
    items = "".join(
        f"<item><title>Odd {number} &lt;b&gt;*_[x]$</title><link>https://h.example.org/2025/01/0"
        f"{number + 1}/{'s' * (300 if number == 5 else 4)}{number}/</link><pubDate>Wed, 01 Jan "
        f"2025 00:00:00 +0000</pubDate><category>Article</category><guid>odd-{number}</guid>"
        f"<content:encoded><![CDATA[{body}]]></content:encoded></item>"
        for number, body in enumerate(HOSTILE)
    )
    path = tmp_path / "odd.xml"
    path.write_text(
        '<?xml version="1.0"?><rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/'
        f'content/"><channel><link>https://h.example.org</link>{items}</channel></rss>'
    )
    status, lines, _ = kb_import(site, "--uploads", str(UPLOADS), source=path)
    assert status == 1
    assert lines[0].startswith('1: error: "Odd 0 <b>*_[x]$" not imported: its HTML cannot be ')
    assert sum("wrote" in line for line in lines) == 5
    shown = "\n".join(lines)
    assert "no redirect from /2025/01/06/" + "s" * 300 + "5/: not a path a file can have" in shown
    assert "image https://h.example.org/etc/passwd is not in" in shown  # ../ cannot leave uploads
    assert run_check(site)[:2] == (0, [])
    assert build(site)[1] == []


def wxr_item(post_id: int, slug: str, content: str, excerpt: str = "") -> str:
    return (
        f"<item><title>Post {post_id}</title><link>https://w.example.org/blog/2025/03/"
        f"0{post_id % 9}/{slug}/</link><dc:creator>priya</dc:creator><guid>https://w.example.org/blog/?p="
        f"{post_id}</guid><content:encoded><![CDATA[{content}]]></content:encoded>"
        f"<excerpt:encoded><![CDATA[{excerpt}]]></excerpt:encoded><wp:post_id>{post_id}"
        f"</wp:post_id><wp:post_date_gmt>2025-03-0{post_id % 9} 12:00:00</wp:post_date_gmt>"
        f"<wp:post_name>{slug}</wp:post_name><wp:status>publish</wp:status><wp:post_type>post"
        '</wp:post_type><category domain="category" nicename="benchmarks">Benchmarks</category>'
        "</item>"
    )


def test_wxr_links_by_id_a_blog_prefix_and_a_post_without_body(site, tmp_path):
    path = tmp_path / "export.xml"
    path.write_text(
        '<?xml version="1.0"?>\n<rss version="2.0" xmlns:wp="http://wordpress.org/export/1.1/" '
        'xmlns:excerpt="http://wordpress.org/export/1.1/excerpt/" '
        'xmlns:content="http://purl.org/rss/1.0/modules/content/" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/"><channel>'
        "<wp:base_blog_url>https://w.example.org/blog</wp:base_blog_url>"
        + wxr_item(1, "only-an-excerpt", "", "Numbers first, words later.")
        + wxr_item(2, "linking", '<p>See <a href="https://w.example.org/blog/?p=1">this</a> and '
                   '<a href="/blog/2025/03/01/only-an-excerpt/#table">its table</a>.</p>')
        + "</channel></rss>\n"
    )  # fmt: skip
    assert kb(site, "import", str(path))[0] == 0
    front, tokens = read_post(site / "posts/2025/only-an-excerpt.md")
    assert "external_link" not in front  # a WordPress post is never an external post
    assert front["redirect"] == "2025/03/01/only-an-excerpt/index"  # without the /blog prefix
    assert front["description"] == "Numbers first, words later."
    _, tokens = read_post(site / "posts/2025/linking.md")
    assert [t.attrs["href"] for t in of_type(tokens, "link_open")] == [
        "/posts/2025/only-an-excerpt.md",
        "/posts/2025/only-an-excerpt.md",  # the old anchor may not exist in the new post
    ]
