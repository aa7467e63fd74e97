"""Synthetic, realistic posts for the build-speed benchmark.

Each post is about 1200 words of MyST Markdown in the shape our authors write: front matter
(category, tags, several authors, dates over several years, sometimes a series), sections
of prose with inline math, one display equation, one code block and one table. The corpus is
deterministic: the same ``n`` and ``seed`` always give the same files, so stock ablog and our
site are timed on identical input.
"""

from __future__ import annotations

import collections
import random
import re
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

TAGS = (
    "cutlass",
    "cute",
    "attention",
    "hopper",
    "blackwell",
    "fp8",
    "triton",
    "profiling",
    "memory",
    "scheduling",
    "tensor-cores",
    "nccl",
)
FIRST_DAY = date(2019, 1, 7)
LAST_DAY = date(2025, 12, 15)
#: Posts added by the benchmark are dated after every corpus post, so they head every listing.
#: Added posts are dated from here on: after every post of the corpus, and before the day the
#: benchmark builds on (SOURCE_DATE_EPOCH, 2026-01-01), or they would be drafts, left out.
ADDED_DAY = date(2025, 12, 18)
#: The days from ADDED_DAY to the day the benchmark builds on: the added posts' days go round
#: them (a fifteenth post added dated 2026-01-02 was a draft, and a benchmark of 15 rounds of
#: additions waited for its page for ever).
ADDED_DAYS = (date(2026, 1, 1) - ADDED_DAY).days
SERIES_EVERY = 25  # one post in this many starts a four-part series

SUBJECTS = (
    "the kernel",
    "the epilogue",
    "each warp group",
    "the producer warp",
    "the tensor core",
    "the scheduler",
    "shared memory",
    "the L2 cache",
    "the TMA unit",
    "the softmax stage",
    "the persistent tile loop",
    "every thread block",
    "the memory pipeline",
    "the reduction",
)
VERBS = (
    "overlaps",
    "waits on",
    "hides",
    "saturates",
    "reorders",
    "stages",
    "prefetches",
    "splits",
    "fuses",
    "bounds",
    "streams",
    "accumulates",
)
OBJECTS = (
    "the next tile of operands",
    "the global memory loads",
    "two rounds of matrix multiply",
    "the exponentials of one row",
    "the barrier arrivals",
    "a block of partial sums",
    "the FP8 scaling factors",
    "the register file",
    "the swizzled layout",
    "the all-reduce traffic",
    "the key and value tiles",
    "the bank conflicts",
)
TAILS = (
    "so the critical path shrinks",
    "which keeps the issue slots busy",
    "before the next stage begins",
    "at the cost of a few registers",
    "and the profiler confirms it",
    "without touching the host code",
    "as the roofline model predicts",
    "once the pipeline is warm",
    "on every architecture we tried",
    "unless the problem size is tiny",
)
HEADINGS = (
    "Where the time goes",
    "The baseline kernel",
    "Changing the data layout",
    "Pipelining the main loop",
    "What the profiler shows",
    "Scaling to more devices",
    "Numerical accuracy",
    "Results and next steps",
)
TITLE_TOPICS = (
    "Pipelined GEMM",
    "Fused attention",
    "FP8 scaling",
    "Stream-K scheduling",
    "Warp specialization",
    "TMA multicast",
    "Split-K reductions",
    "All-reduce overlap",
    "Epilogue fusion",
    "Register pressure",
)
TITLE_PLACES = ("on Hopper", "on Blackwell", "in CUTLASS", "in Triton", "with CuTe", "at scale")

CODE = """```cuda
// Illustrative main loop, variant {n}: stage {stages} tiles ahead of the tensor cores.
template <int kStages>
__global__ void gemm_kernel_{n}(const half* A, const half* B, float* C, int M, int N, int K) {{
    extern __shared__ half smem[];
    float acc[8][8] = {{}};
    int tile = blockIdx.x * {stages} + threadIdx.y;
    for (int k = 0; k < K; k += 64) {{
        pipeline_acquire(smem, tile, k);
        #pragma unroll
        for (int i = 0; i < 8; ++i) {{
            for (int j = 0; j < 8; ++j) {{
                acc[i][j] += __half2float(smem[i * 64 + j]) * {scale}f;
            }}
        }}
        pipeline_release(smem, tile, k);
    }}
    store_tile(C, acc, M, N, tile);
}}
```"""


@dataclass(frozen=True)
class CorpusPost:
    relpath: str  # e.g. posts/2021/pipelined-gemm-on-hopper-0042.md
    title: str
    text: str


def _sentence(rng: random.Random, math: bool = True) -> str:
    words = f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.choice(TAILS)}"
    if math and rng.random() < 0.25:
        words += f", with $t_{{{rng.randint(1, 9)}}} = {rng.randint(2, 64)}\\,\\mu s$"
    return words[0].upper() + words[1:] + "."


def _paragraph(rng: random.Random, sentences: int, math: bool = True) -> str:
    return " ".join(_sentence(rng, math) for _ in range(sentences))


def _table(rng: random.Random) -> str:
    rows = ["| configuration | tile | TFLOP/s | speed-up |", "| --- | --- | --- | --- |"]
    base = rng.uniform(300, 600)
    for name in ("baseline", "pipelined", "warp-specialized", "persistent", "fused epilogue"):
        value = base * rng.uniform(1.0, 1.8)
        rows.append(
            f"| {name} | 128x{rng.choice((64, 128, 256))} | {value:.0f} | {value / base:.2f}x |"
        )
    return "\n".join(rows)


def _display_math(rng: random.Random) -> str:
    k = rng.randint(2, 8)
    return (
        "$$\n"
        f"T_{{\\text{{tile}}}} = \\max\\left(\\frac{{4MNd}}{{{k}\\,T_{{\\text{{mma}}}}}},"
        " \\frac{MN}{E}\\right) + \\sum_{i=1}^{S} \\frac{B_i}{\\beta}\n"
        "$$"
    )


def dates(n: int) -> list[date]:
    """``n`` publication dates spread evenly over the corpus years, oldest first."""
    span = (LAST_DAY - FIRST_DAY).days
    return [FIRST_DAY + timedelta(days=(span * i) // max(n - 1, 1)) for i in range(n)]


def make_post(
    index: int, when: date, authors: list[str], categories: list[str], seed: int = 0
) -> CorpusPost:
    """One post; ``index`` makes its slug and content unique."""
    rng = random.Random(seed * 1_000_003 + index)
    title = f"{rng.choice(TITLE_TOPICS)} {rng.choice(TITLE_PLACES)}, part of study {index}"
    slug = f"{title.split(',')[0].lower().replace(' ', '-')}-{index:04d}"
    tags = sorted(rng.sample(TAGS, rng.randint(2, 4)))
    post_authors = rng.sample(authors, min(len(authors), 2 if rng.random() < 0.3 else 1))
    category = categories[index % len(categories)]
    front = [
        "---",
        "blogpost: true",
        f"date: {when.isoformat()}",
        f"category: {category}",
        f"tags: [{', '.join(tags)}]",
        f"author: {', '.join(post_authors)}",
    ]
    if index % 2:
        # Plain text: front matter is YAML, where a backslash in TeX would be an escape.
        front.append(f'description: "{_paragraph(rng, 2, math=False)}"')
    series_start = index - index % SERIES_EVERY
    if index % SERIES_EVERY < 4:
        front.append(f"series: study-{series_start:04d}")
        front.append(f"part: {index % SERIES_EVERY + 1}")
    front.append("---")
    body = [f"# {title}", _paragraph(rng, 5), _paragraph(rng, 4)]
    sections = rng.sample(HEADINGS, 5)
    for number, heading in enumerate(sections):
        body.append(f"## {heading}")
        body.append(_paragraph(rng, 5))
        if number == 1:
            body.append(_display_math(rng))
        if number == 2:
            body.append(CODE.format(n=index, stages=rng.randint(2, 5), scale=rng.uniform(0.5, 2)))
        if number == 3:
            body.append(_table(rng))
        body.append(_paragraph(rng, 4))
        body.append(_paragraph(rng, 5))
    body.append(f"The last word on study {index}: {_sentence(rng)}")
    text = "\n".join(front) + "\n\n" + "\n\n".join(body) + "\n"
    return CorpusPost(f"posts/{when.year}/{slug}.md", title, text)


def write_corpus(
    srcdir: Path, n: int, authors: list[str], categories: list[str], seed: int = 0
) -> list[Path]:
    """Write ``n`` posts under ``srcdir/posts`` and return their paths, oldest first."""
    paths = []
    for index, when in enumerate(dates(n)):
        post = make_post(index, when, authors, categories, seed)
        path = srcdir / post.relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(post.text, encoding="utf-8")
        paths.append(path)
    return paths


def add_post(
    srcdir: Path, number: int, authors: list[str], categories: list[str], seed: int = 0
) -> Path:
    """Write one new post, newer than every post of the corpus (``number`` keeps repeated
    additions apart; its day is ADDED_DAY and the next, round the ADDED_DAYS before the day
    the benchmark builds on)."""
    day = ADDED_DAY + timedelta(days=number % ADDED_DAYS)
    post = make_post(100_000 + number, day, authors, categories, seed)
    path = srcdir / post.relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(post.text, encoding="utf-8")
    return path


def rewrite_post(path: Path, number: int) -> str:
    """Add a paragraph at the end of the body that names the post's three most frequent long
    words again, as an author adding to what the post is about would: its counts of frequent
    words change (kb's related lists, made from them, are computed again), unlike
    :func:`edit_post`'s sentence, whose words stay the same from one edit to the next. The
    paragraph holds a new word (:func:`edit_word`), which is returned."""
    text = path.read_text(encoding="utf-8")
    body = text.split("\n---\n", 1)[-1]
    counts = collections.Counter(re.findall(r"[a-z][a-z0-9]{5,}", body.lower()))
    frequent = [word for word, _ in counts.most_common(3)]
    word = edit_word(number)
    paragraph = " ".join([*frequent, *frequent[:1]]) + f" were revised ({word})."
    path.write_text(text.rstrip("\n") + f"\n\n{paragraph.capitalize()}\n", encoding="utf-8")
    return word


def reword_post(path: Path, number: int) -> str:
    """Add a paragraph at the end of the body that uses a new word (:func:`edit_word`, which
    is returned) more often than the post's fortieth most frequent word: kb keeps it among the
    post's frequent words and drops another, which other posts keep, so that their related
    vectors change too (unlike :func:`rewrite_post`, whose words are the post's own)."""
    text = path.read_text(encoding="utf-8")
    body = text.split("\n---\n", 1)[-1]
    counts = collections.Counter(re.findall(r"[a-z][a-z0-9]{2,}", body.lower()))
    ranked = counts.most_common(40)
    word = edit_word(number)
    times = (ranked[-1][1] if ranked else 0) + 1
    paragraph = f"Revised: {' '.join([word] * times)}."
    path.write_text(text.rstrip("\n") + f"\n\n{paragraph}\n", encoding="utf-8")
    return word


def edit_word(number: int) -> str:
    """A word no post holds, different for each edit, that no stemmer shortens (consonants)."""
    letters, word = "bcdfghjkmnpqrtvwxz", ""
    while True:
        number, digit = divmod(number, len(letters))
        word += letters[digit]
        if not number:
            return "zqvoka" + word + "k"


def edit_post(path: Path, number: int) -> str:
    """Change one sentence in the body (not the excerpt), as an author fixing a typo would;
    the new sentence holds a new word (:func:`edit_word`), which is returned."""
    text = path.read_text(encoding="utf-8")
    marker = "The last word on study "
    start = text.rindex(marker)
    end = text.index("\n", start)
    word = edit_word(number)
    text = (
        text[:start]
        + f"{marker}{number} edits in: this sentence was revised ({word})."
        + text[end:]
    )
    path.write_text(text, encoding="utf-8")
    return word
