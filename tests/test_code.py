"""Code: CUDA, PTX, Python and shell highlighted; captions, emphasized lines, copy buttons."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import soup
from markdown_it.renderer import RendererHTML
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.mdit import create_md_parser
from pygments.lexers import get_lexer_by_name
from pygments.token import Error, Keyword

from kb.markup.highlighting import ModernPtxLexer

REPO = Path(__file__).parent.parent
LANGUAGES = ("cuda", "ptx", "python", "shell")


@pytest.mark.sphinx("html", testroot="code")
def test_highlighting_captions_and_emphasis(app, warning):
    app.build()
    assert warning.getvalue() == ""
    page = soup(app.outdir / "index.html")
    blocks = page.select("article div[class*='highlight-']")
    assert [b["class"][0] for b in blocks] == [f"highlight-{lang}" for lang in LANGUAGES]
    sources = [code for _, code in _fences(app.srcdir / "index.md")]
    for block, source in zip(blocks, sources, strict=True):
        spans = block.select("pre span[class]")
        assert {s["class"][0] for s in spans} - {"hll"}, block["class"]  # real tokens
        assert block.select("span.err") == [], block["class"]  # nothing the lexer gave up on
        # Blanks are plain text, not one <span class="w"> each; the code reads as written.
        assert block.select("span.w") == [], block["class"]
        assert block.select_one("pre").get_text() == source
    ptx = blocks[1]
    assert ptx.select_one("span.k").get_text().startswith("cp.async.bulk.tensor")

    captions = [c.get_text(strip=True).rstrip("¶") for c in page.select(".code-block-caption")]
    assert captions == ["A CUDA kernel", "Hopper and Blackwell PTX"]
    emphasized = [[line.get_text() for line in b.select("span.hll")] for b in blocks]
    assert [len(lines) for lines in emphasized] == [2, 1, 0, 0]
    assert "blockIdx" in emphasized[0][0] and "x[i] *= a" in emphasized[0][1]
    assert emphasized[1][0].startswith("wgmma.mma_async")


@pytest.mark.sphinx("html", testroot="code")
def test_copy_buttons_ship_their_own_script(app):
    app.build()
    page = soup(app.outdir / "index.html")
    sources = [tag["src"].split("?")[0] for tag in page.find_all("script", src=True)]
    assert "_static/copybutton.js" in sources and "_static/clipboard.min.js" in sources
    assert all(not src.startswith(("http:", "https:", "//")) for src in sources)
    for src in sources:
        assert (app.outdir / src).is_file()


def _fences(path: Path):
    """(language, code) of each fenced block of a MyST file; a code-block's options left out."""
    parser = create_md_parser(MdParserConfig(), RendererHTML)
    for token in parser.parse(path.read_text(encoding="utf-8")):
        if token.type != "fence":
            continue
        language, code = token.info.strip(), token.content
        if language.startswith("{code-block}"):
            language = language.removeprefix("{code-block}").strip()
            lines = code.splitlines(keepends=True)
            while lines and lines[0].startswith(":"):
                lines.pop(0)
            code = "".join(lines).lstrip("\n")
        yield language, code


def _real_code_blocks():
    for path in sorted((REPO / "posts").glob("*/*.md")):
        for language, code in _fences(path):
            if language in LANGUAGES:
                yield path.relative_to(REPO), language, code


def test_real_posts_code_lexes_without_errors():
    blocks = list(_real_code_blocks())
    if not blocks:
        pytest.skip(f"no post has a code block in {', '.join(LANGUAGES)}")
    assert {lang for _, lang, _ in blocks} <= set(LANGUAGES)
    for path, lang, code in blocks:
        lexer = ModernPtxLexer() if lang == "ptx" else get_lexer_by_name(lang)
        tokens = list(lexer.get_tokens(code))
        errors = [text for kind, text in tokens if kind in Error]
        assert errors == [], f"{path}: {lang} block does not lex: {errors}"
        if lang == "ptx":
            assert any(kind in Keyword for kind, _ in tokens), path
