"""One example for each message of :data:`kb.checks.messages.MESSAGES`, for the reference.

The guides' message catalogue (``docs/reference/messages.rst``) shows, for every code, what a
source said, what ``kb check`` and the build print (the message filled in with ``values``) and
the fix. A message added without an example fails the guides' build, so the catalogue stays
whole; ``tests/test_docs.py`` checks that each example fills its message.
"""

from __future__ import annotations

from dataclasses import dataclass, field

POST = "posts/2026/fp8-gemm.md"
NOTEBOOK = "posts/2026/roofline.ipynb"
AUTHORS = "mira, tomas, priya, kenji"


@dataclass(frozen=True)
class Example:
    values: dict = field(default_factory=dict)  # what the message is filled in with
    source: str = ""  # the lines at fault, as the author wrote them
    fix_source: str = ""  # the same lines, fixed
    fix: str = ""  # or the fix in words, when it is not an edit of those lines
    where: str = POST
    line: int = 3


def _ex(values=None, source="", fix_source="", fix="", where=POST, line=3) -> Example:
    return Example(values or {}, source, fix_source, fix, where, line)


EXAMPLES: dict[str, Example] = {
    # Reading the file
    "cannot_read": _ex(
        {"error": "Permission denied"}, fix="Make the file readable: chmod u+r FILE.", line=1
    ),
    "not_nfc": _ex(
        fix="Rename the file, typing its accented letters again (macOS tools can save é as "
        "e and an accent).",
        where="posts/2026/cafe\u0301.md",
        line=1,
    ),
    "not_utf8": _ex(
        {"byte": "0xe9", "line": 7},
        fix="Save the file as UTF-8 (in most editors: Save with Encoding, UTF-8).",
        line=1,
    ),
    "no_front_matter": _ex(
        source="# FP8 GEMM on Hopper",
        fix_source="---\nblogpost: true\ndate: 2026-03-14\ncategory: Article\n---\n\n"
        "# FP8 GEMM on Hopper",
        line=1,
    ),
    "key_not_name": _ex(
        source="---\n? [date, updated]\n: 2026-03-14",
        fix_source="---\ndate: 2026-03-14\nupdated: 2026-03-14",
        line=2,
    ),
    "no_front_matter_rst": _ex(
        source="FP8 GEMM on Hopper\n==================",
        fix_source=":blogpost: true\n:date: 2026-03-14\n:category: Article\n\n"
        "FP8 GEMM on Hopper\n==================",
        where="posts/2026/fp8-gemm.rst",
        line=1,
    ),
    "unclosed": _ex(
        source="---\nblogpost: true\ndate: 2026-03-14\n\n# FP8 GEMM",
        fix_source="---\nblogpost: true\ndate: 2026-03-14\n---\n\n# FP8 GEMM",
        line=1,
    ),
    "bad_yaml": _ex(
        {"problem": "mapping values are not allowed here"},
        source="description: Part 2: the mainloop",
        fix_source='description: "Part 2: the mainloop"',
        line=6,
    ),
    "yaml_tab": _ex(source="category:\tArticle", fix_source="category: Article", line=4),
    "not_mapping": _ex(
        source="---\n- Article\n---", fix_source="---\ncategory: Article\n---", line=2
    ),
    "yaml_deep": _ex(
        {"most": 20},
        source="tags: [[[[[[[[[[[[[[[[[[[[[[gemm]]]]]]]]]]]]]]]]]]]]]",
        fix_source="tags: [gemm]",
        line=5,
    ),
    "yaml_alias": _ex(
        {"key": "tags"},
        source="category: &c Article\ntags: *c",
        fix_source="category: Article\ntags: [article]",
        line=5,
    ),
    "twice": _ex(
        {"key": "date", "first": 3, "line": 8},
        source="date: 2026-03-14\n...\ndate: 2026-03-15",
        fix_source="date: 2026-03-15",
        line=8,
    ),
    # The body
    "no_title": _ex(
        source="---\n...\n---\n\nFP8 on Hopper...",
        fix_source="---\n...\n---\n\n# FP8 GEMM on Hopper\n\nFP8 on Hopper...",
        line=9,
    ),
    "section_post": _ex(
        source="```{post} 2026-03-12\n```\n\nFirst part...\n\n"
        "```{post} 2026-03-20\n:category: Article\n```",
        fix_source="```{post} 2026-03-12\n```\n\nFirst part...\n\n## Second Part\n\n"
        "```{post} 2026-03-20\n:category: Article\n```",
        line=24,
    ),
    "section_post_nested": _ex(
        source="## Second Part\n\n:::{note}\n```{post} 2026-03-20\n```\n:::",
        fix_source="## Second Part\n\n```{post} 2026-03-20\n```\n\n:::{note}\n...\n:::",
        line=27,
    ),
    "section_post_key": _ex(
        {"key": "redirect"},
        source="## Second Part\n\n```{post} 2026-03-20\n:redirect: old/second-part\n```",
        fix_source="## Second Part\n\n```{post} 2026-03-20\n```",
        line=26,
    ),
    "excerpt_not_count": _ex(
        {"shown": "first paragraph"},
        source="excerpt: first paragraph",
        fix_source='description: "How we reached 1.2 PFLOP/s with FP8 on H200."',
    ),
    "image_not_count": _ex(
        {"shown": "images/roofline.png"},
        source="image: images/roofline.png",
        fix_source="og:image: images/roofline.png",
    ),
    "no_excerpt": _ex(
        source="# FP8 GEMM on Hopper\n\n```cuda\n...",
        fix_source='description: "How we reached 1.2 PFLOP/s with FP8 on H200."',
        line=9,
    ),
    # Dates
    "no_date": _ex(
        source="---\nblogpost: true\ncategory: Article\n---",
        fix_source="---\nblogpost: true\ndate: 2026-03-14\ncategory: Article\n---",
        line=1,
        fix="Nothing, if the post is not ready: it is a draft until it has a date (kb serve "
        "--drafts previews it). kb check --strict makes it an error.",
    ),
    "empty_date": _ex({"key": "date"}, source="date:", fix_source="date: 2026-03-14"),
    "not_a_day": _ex(
        {"key": "date", "shown": "2026-02-30", "reason": "day is out of range for month"},
        source="date: 2026-02-30",
        fix_source="date: 2026-02-28",
    ),
    "zone": _ex(
        {"key": "date", "shown": "2026-03-14 09:30+02:00", "day": "2026-03-14"},
        source="date: 2026-03-14 09:30+02:00",
        fix_source="date: 2026-03-14",
    ),
    "not_a_date": _ex(
        {"key": "date", "shown": "March 14"},
        source="date: March 14",
        fix_source="date: 2026-03-14",
    ),
    "option_comment": _ex(
        source="```{post} 2026-03-14\n:category: Article\n:tags: fp8 #gemm\n```",
        fix_source="```{post} 2026-03-14\n:category: Article\n:tags: fp8, gemm\n```",
        line=5,
    ),
    "option_in_date": _ex(
        {"text": ":category: Article"},
        source=".. post:: 2026-03-14\n   :category: Article\n\n Why FP8 needs new kernels.",
        fix_source=".. post:: 2026-03-14\n   :category: Article\n\n   Why FP8 needs new kernels.",
        where="posts/2026/fp8-gemm.rst",
        line=5,
    ),
    "not_a_time": _ex(
        {
            "key": "date",
            "shown": "2026-03-14 25:00",
            "reason": "hour must be in 0..23",
            "day": "2026-03-14",
        },  # fmt: skip
        source="date: 2026-03-14 25:00",
        fix_source="date: 2026-03-14 09:30",
    ),
    "updated_early": _ex(
        {"shown": "2026-03-01", "day": "2026-03-14"},
        source="date: 2026-03-14\nupdated: 2026-03-01",
        fix_source="date: 2026-03-14\nupdated: 2026-04-02",
        line=4,
    ),
    "updated_future": _ex(
        {"shown": "2099-01-01", "today": "2026-12-01"},
        source="updated: 2099-01-01",
        fix_source="updated: 2026-11-30",
        line=4,
    ),
    "scheduled": _ex(
        {"day": "2026-12-24", "today": "2026-12-01"},
        source="date: 2026-12-24",
        fix="Nothing, if the post is meant for that day: it is a draft until then "
        "(kb serve --drafts previews it). kb check --strict makes it an error.",
    ),
    # Categories and authors
    "yaml_list": _ex(
        {
            "key": "category",
            "shown": "\"['Article', 'Benchmarks']\"",
            "names": "Article, Benchmarks",
        },  # fmt: skip
        source="category: [Article, Benchmarks]",
        fix_source="category: Article, Benchmarks",
        line=4,
    ),
    "empty_names": _ex({"key": "author"}, source="author:", fix_source="author: mira", line=6),
    "unknown_category": _ex(
        {
            "name": "Articel",
            "hint": ' (did you mean "Article"?)',
            "allowed": "Article, Benchmarks",
        },  # fmt: skip
        source="category: Articel",
        fix_source="category: Article",
        line=4,
    ),
    "unknown_author": _ex(
        {"name": "mirra", "hint": ' (did you mean "mira"?)', "allowed": AUTHORS},
        source="author: mirra",
        fix_source="author: mira",
        line=6,
    ),
    # Tags
    "tags_not_list": _ex(source="tags: {gemm: hopper}", fix_source="tags: [gemm, hopper]", line=5),
    "tag_empty": _ex(
        {"position": 2}, source="tags: [gemm, , hopper]", fix_source="tags: [gemm, hopper]", line=5
    ),
    "tag_value": _ex(
        {"position": 1, "shown": "True"}, source="tags: [yes]", fix_source='tags: ["yes"]', line=5
    ),
    "tag_nested": _ex(
        {"position": 1}, source="tags: [[gemm, hopper]]", fix_source="tags: [gemm, hopper]", line=5
    ),
    "typo": _ex(
        {"key": "catgory", "guess": "category"},
        source="catgory: Article",
        fix_source="category: Article",
        line=4,
    ),
    "tag_marks": _ex(
        {"tag": '"fp8'}, source="tags: ['\"fp8', gemm]", fix_source="tags: [fp8, gemm]", line=5
    ),
    "tag_no_slug": _ex({"tag": "++"}, source="tags: [++]", fix_source="tags: [cpp]", line=5),
    "series_no_slug": _ex(
        {"series": "---"},
        source='series: "---"',
        fix_source="series: CUTLASS GEMM tutorial",
        line=7,
    ),
    # Other keys
    "external_link": _ex(
        {"shown": "example.org/article"},
        source="external_link: example.org/article",
        fix_source="external_link: https://example.org/article",
        line=7,
    ),
    "external_spaces": _ex(
        {"shown": " https://example.org/a ", "stripped": "https://example.org/a"},
        source='external_link: " https://example.org/a "',
        fix_source="external_link: https://example.org/a",
        line=7,
    ),
    "redirect_not_text": _ex(
        source="redirect: {old: posts/2025/x}",
        fix_source="redirect: posts/2025/old-slug",
        line=8,
    ),
    "redirect_empty": _ex(source="redirect:", fix_source="redirect: posts/2025/old-slug", line=8),
    "redirect_bad": _ex(
        {
            "name": "https://old.example.org/x.html",
            "reason": "is a full URL",
            "instead": "posts/2025/x",
        },  # fmt: skip
        source="redirect: https://old.example.org/x.html",
        fix_source="redirect: posts/2025/x",
        line=8,
    ),
    "redirect_taken": _ex(
        {"name": "posts/2025/tiling", "what": "posts/2025/tiling.md"},
        source="redirect: posts/2025/tiling",
        fix="Remove the address from `redirect`: a post lives there.",
        line=8,
    ),
    "redirect_built": _ex(
        {"name": "blog/archive", "what": "blog/…"},
        source="redirect: blog/archive",
        fix="Remove the address from `redirect`: the build writes a page there.",
        line=8,
    ),
    "redirect_self": _ex(
        {"name": "posts/2026/fp8-gemm"},
        source="redirect: posts/2026/fp8-gemm",
        fix="Remove the post's own address from `redirect`.",
        line=8,
    ),
    "redirect_twice": _ex(
        {"name": "posts/2025/old", "where": "posts/2025/other.md:8"},
        source="redirect: posts/2025/old",
        fix="Keep the old address in one post's `redirect` only.",
        line=8,
    ),
    "nb_output_dropped": _ex(
        {
            "cell": "cell 3",
            "mime_type": "text/html",
            "reason": "HTML with a script",
            "others": "; its other forms are shown",
        },
        source='"data": {"text/html": ["<script>plot()</script>"], "text/plain": ["<Figure>"]}',
        fix="Clear the output in Jupyter and save the notebook, or tag the cell remove-output.",
        where=NOTEBOOK,
        line=41,
    ),
    "old_addresses_unreadable": _ex(
        {"reason": "Expected '=' after a key in a key/value pair"},
        source='"/category/cuda/" "/blog/category/cuda.html"',
        fix_source='"/category/cuda/" = "/blog/category/cuda.html"',
        where="redirects.toml",
    ),
    "old_address_bad": _ex(
        {
            "old": "category/cuda",
            "reason": "is not a path from the site root, ending in / or .html",
        },
        source='"category/cuda" = "/blog/category/cuda.html"',
        fix_source='"/category/cuda/" = "/blog/category/cuda.html"',
        where="redirects.toml",
    ),
    "old_address_target_bad": _ex(
        {"old": "/category/cuda/", "new": "https://example.org/cuda"},
        source='"/category/cuda/" = "https://example.org/cuda"',
        fix_source='"/category/cuda/" = "/blog/category/cuda.html"',
        where="redirects.toml",
    ),
    "old_address_taken": _ex(
        {"old": "/pages/about.html"},
        source='"/pages/about.html" = "/index.html"',
        fix="Remove the line: the page lives at that address.",
        where="redirects.toml",
    ),
    "old_address_unknown": _ex(
        {"old": "/category/cuda/", "new": "/blog/category/kuda.html"},
        source='"/category/cuda/" = "/blog/category/kuda.html"',
        fix_source='"/category/cuda/" = "/blog/category/cuda.html"',
        where="redirects.toml",
    ),
    "empty_description": _ex(
        source='description: ""',
        fix_source='description: "How we reached 1.2 PFLOP/s with FP8 on H200."',
        line=6,
    ),
    "description_not_text": _ex(
        source="description: [a, b]",
        fix_source='description: "One or two sentences."',
        line=6,
    ),
    "blogpost": _ex(
        {"shown": "false"}, source="blogpost: false", fix_source="blogpost: true", line=2
    ),  # fmt: skip
    "nocomments": _ex(source="nocomments: true", fix="Remove the line.", line=9),
    "series_not_name": _ex(
        source="series: [CUTLASS, GEMM]", fix_source="series: CUTLASS GEMM tutorial", line=7
    ),
    "bad_part": _ex({"shown": "two"}, source="part: two", fix_source="part: 2", line=8),
    "part_alone": _ex(
        source="part: 2", fix_source="series: CUTLASS GEMM tutorial\npart: 2", line=8
    ),
    # Across posts
    "slug_taken": _ex(
        {"slug": "fp8-gemm", "other": "posts/2025/fp8-gemm.md"},
        fix="Rename this file: posts/2026/fp8-gemm-on-blackwell.md.",
        line=1,
    ),
    "tag_slug": _ex(
        {"tag": "C#", "other": "C++", "where": "posts/2025/x.md:5", "page": "blog/tag/c.html"},
        source="tags: [C#]",
        fix_source="tags: [csharp]",
        line=5,
    ),
    "same_title": _ex(
        {"title": "FP8 GEMM on Hopper", "where": "posts/2025/fp8-gemm-hopper.md:9"},
        source="# FP8 GEMM on Hopper",
        fix_source="# FP8 GEMM on Hopper, revisited with CUTLASS 4",
        line=9,
    ),
    "same_part": _ex(
        {"part": 2, "series": "CUTLASS GEMM tutorial", "where": "posts/2025/tiling.md:8"},
        source="part: 2",
        fix_source="part: 3",
        line=8,
    ),
    "series_slug": _ex(
        {
            "series": "Kernel tutorial!",
            "other": "kernel tutorial",
            "where": "posts/2025/x.md:7",
            "page": "blog/series/kernel-tutorial.html",
        },  # fmt: skip
        source="series: Kernel tutorial!",
        fix_source="series: kernel tutorial",
        line=7,
    ),
    "unicode_name": _ex(
        {"other": "posts/2026/café.md"},
        fix="Delete the copy whose name is not NFC, or rename it.",
        where="posts/2026/cafe\u0301.md",
        line=1,
    ),
    "draft_link": _ex(
        {"shown": "/posts/2026/fp4.md", "day": "2026-12-24"},
        source="See [the FP4 post](/posts/2026/fp4.md).",
        fix="Add the link once that post is out, or date this post on or after it.",
        line=17,
    ),
    "undated_link": _ex(
        {"shown": "/posts/2026/fp4.md"},
        source="See [the FP4 post](/posts/2026/fp4.md).",
        fix="Add the link once that post has a date and is out.",
        line=17,
    ),
    "missing_link": _ex(
        {
            "shown": "/posts/2025/cutlass-gemm-pipeline.md",
            "hint": " (did you mean /posts/2025/cutlass-gemm-pipelining.md?)",
        },  # fmt: skip
        source="See [pipelining](/posts/2025/cutlass-gemm-pipeline.md).",
        fix_source="See [pipelining](/posts/2025/cutlass-gemm-pipelining.md).",
        line=17,
    ),
    # Pages and the glossary
    "page_no_title": _ex(
        source="Who we are and what we measure ...",
        fix_source="# About\n\nWho we are and what we measure ...",
        where="pages/about.md",
        line=1,
    ),
    "unknown_term": _ex(
        {"term": "WGMA", "hint": ' (did you mean "WGMMA"?)'},
        source="{term}`WGMA`",
        fix_source="{term}`WGMMA`",
        line=12,
    ),
    "ignored_file": _ex(
        {"path": "notes/about.md", "included": "index.md, posts/**, pages/**"},
        fix="git mv notes/about.md pages/about.md, or add notes to exclude_patterns in conf.py.",
        where="notes/about.md",
        line=1,
    ),
    # Notebooks
    "nb_not_json": _ex(
        {"problem": "Expecting ',' delimiter", "column": 5},
        fix="Restore the file from version control, or open and save it in Jupyter.",
        where=NOTEBOOK,
        line=12,
    ),
    "nb_not_notebook": _ex(
        {"what": 'no "cells"'},
        fix="Open and save it in Jupyter.",
        where=NOTEBOOK,
        line=1,
    ),
    "nb_version": _ex(
        {"version": 3}, fix="Open it in Jupyter and save it.", where=NOTEBOOK, line=1
    ),
    "nb_cell": _ex(
        {"cell": 3, "what": "'cell_type' is a required property"},
        fix="Open and save the notebook in Jupyter, or fix the cell.",
        where=NOTEBOOK,
        line=40,
    ),
    "nb_output": _ex(
        {"output": 1, "cell": 3, "what": "'output_type' is a required property"},
        fix="Clear the cell's outputs in Jupyter and run it again.",
        where=NOTEBOOK,
        line=52,
    ),
    "nb_no_id": _ex(
        {"cell": 2, "what": "missing"},
        fix="Open and save the notebook in Jupyter, which adds the ids.",
        where=NOTEBOOK,
        line=30,
    ),
    "nb_no_title": _ex(
        source="Roofline of the H200 ...",
        fix_source="# Roofline of the H200\n\n...",
        where=NOTEBOOK,
        line=20,
    ),
    "nb_unquoted": _ex(
        {"key": "milestones"},
        source="milestones: [2026-11-30]",
        fix_source='milestones: ["2026-11-30"]',
        where="posts/2026/roofline.md",
    ),
    "kb_execute": _ex(
        {"shown": "always"}, source="kb_execute: always", fix_source="kb_execute: cache"
    ),
    "kb_execute_kernel": _ex(
        {"where": "front matter"},
        source="kb_execute: cache",
        fix_source="kb_execute: cache\nkernelspec:\n  name: python3\n  display_name: Python 3\n"
        "  language: python",
        where="posts/2026/roofline.md",
    ),
    "kb_execute_markdown": _ex(
        source="kb_execute: cache",
        fix="Remove the line, or make the post a text notebook (file_format: mystnb and a "
        "kernelspec).",
    ),
    "nb_own_settings": _ex(
        {"key": "nb_execution_mode", "where": "notebook's metadata"},
        source='"nb_execution_mode": "force"',
        fix_source='"kb_execute": "cache"',
        where=NOTEBOOK,
    ),
    "nb_too_deep": _ex(
        {"most": 64},
        fix="Restore the file from version control.",
        where=NOTEBOOK,
        line=1,
    ),
    # The source files themselves
    "source_link_out": _ex(
        fix='Replace the link by the file: cp --remove-destination "$(readlink -f F)" F.',
        line=1,
    ),
    "source_link_loop": _ex(fix="Replace the link with the file.", line=1),
    "source_not_regular": _ex(
        {"what": "a named pipe"}, fix="Put an ordinary file at that path.", line=1
    ),
    "same_page": _ex(
        {"other": "posts/2026/tiling-basics.md"},
        fix="git mv posts/2026/tiling-basics.rst posts/2026/tiling-basics-in-rst.rst",
        where="posts/2026/tiling-basics.rst",
        line=1,
    ),
    "source_too_large": _ex(
        {"limit": "33554432 bytes"},
        fix="Split the post, or raise kb_max_file_bytes in conf.py.",
        line=1,
    ),
    "folder_link_out": _ex(
        fix="Put the folder itself in the repository instead of the link.", where="posts/2026"
    ),
    "folder_link_loop": _ex(fix="Remove the link.", where="posts/2026/loop", line=1),
    # Files a post names
    "path_refused": _ex(
        {
            "place": "image:",
            "path": "'images/roofline.png'",
            "reason": "is not a file of the repository",
            "advice": "put the file next to the post, or correct the path",
        },
        source="![The roofline](images/roofline.png)",
        fix="Put roofline.png in posts/2026/images/, or correct the path (it is relative to "
        "the post; a path starting with / starts at the site root).",
        line=12,
    ),
    # Headings
    "heading_start": _ex(
        {"marks": "##", "level": 2, "levels": "one level", "deeper": "###"},
        source="## FP8 GEMM on Hopper\n\n### The mainloop",
        fix_source="# FP8 GEMM on Hopper\n\n## The mainloop",
        line=9,
    ),
}
