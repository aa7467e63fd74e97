"""Fidelity of `kb import` on a real WordPress export: what arrives, item by item (issue 35).

Imports the export into a fresh site in one run with only ``--default-category``, builds the
site with ``sphinx -nW`` into a temporary folder, and compares each published post (and page)
with its source HTML:

- imported, or why not (the importer's own line for it);
- words kept: the share of the source's words (its text as WordPress shows it: HTML text,
  shortcode brackets dropped) found on the built page, counted with multiplicity;
- images kept: the source's images (``<img>``, gallery attachments) shown on the page or
  linked from it ("Image: ..." links to the old host, when no uploads were given);
- ``<pre>`` lines kept: each line of each source ``<pre>`` found exactly as a line of a code
  block of the page;
- embeds shown: each embed (iframe, embed block, ``[embed]``, a provider's URL alone in a
  paragraph, audio and video) shown as a link card or a link;
- literal syntax: Markdown, MyST or shortcode syntax visible in the page's text (outside code),
  beyond what the source text itself shows;
- old archives: the category, tag and author addresses kb import wrote into redirects.toml,
  and how many became a page of the build that leads to the archive page the build wrote.

A second run gives the importer an uploads folder made of the export's own attachments (their
originals, at their date paths), to measure matching images from any WordPress host and size
variants. Targets: every published post imported; words >= 98% per post; 100% of <pre>
lines; 0 literal syntax.

    python benchmarks/import_fidelity.py                       # the theme unit test export
    python benchmarks/import_fidelity.py --export FILE.xml --out RESULTS.md
"""

from __future__ import annotations

import argparse
import html
import json
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from pathlib import Path

from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from kb.importer.convert import raw_text  # noqa: E402
from kb.importer.detect import read  # noqa: E402
from kb.importer.media import embed_host, upload_path  # noqa: E402
from kb.importer.shortcodes import wpautop  # noqa: E402

EXPORT = Path("/work/shared/fixtures/wordpress/themeunittestdata.wordpress.xml")
RESULTS = ROOT / "benchmarks" / "import_fidelity.md"
CONF = """\
extensions = ["myst_parser", "ablog", "kb"]
project = "Imported"
html_theme = "furo"
exclude_patterns = ["_build"]
nitpicky = True
blog_path = "blog"
blog_baseurl = "https://imported.example.org/"
blog_post_pattern = "posts/*/*.md"
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
post_auto_orphan = True
myst_enable_extensions = ["colon_fence", "dollarmath", "amsmath", "deflist", "attrs_inline"]
kb_categories = ["Article"]
"""
_SHORTCODE_TAG = re.compile(r"\[/?[a-z][\w-]*(?:\s[^\]]*)?\]", re.I)
_LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+): (?P<message>.*)$")
#: Syntax a reader should never see as text.
LITERAL = {
    "link": re.compile(r"\]\("),
    "image": re.compile(r"!\["),
    "fence": re.compile(r"```|:::"),
    "directive or role": re.compile(r"\{[a-z][\w-]*\}`?"),
    "shortcode": re.compile(r"\[/?(?:gallery|caption|audio|video|embed|code|latex|playlist)\b"),
    "emphasis": re.compile(r"\*\*|__|~~"),
    "escape": re.compile(r"\\[\\`*_\[\]<>$#|~{}]"),
    "math": re.compile(r"\$\$"),
}
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6300010000000500010d0a2db40000000049454e44ae426082"
)


def words(text: str) -> Counter:
    return Counter(re.findall(r"\w+", text.casefold()))


def source_soup(item) -> BeautifulSoup:
    """The post's HTML as WordPress shows it: the classic editor's paragraphs added (never
    inside <pre>, as WordPress's own wpautop leaves it alone)."""
    content = item.content.replace("\r\n", "\n")
    if "<!-- wp:" not in content:
        held: list[str] = []

        def hold(match: re.Match) -> str:
            held.append(match.group(0))
            return f"\n\nbenchheld{len(held) - 1}x\n\n"

        content = re.sub(r"<pre\b.*?</pre>", hold, content, flags=re.S | re.I)
        content = wpautop(content, re.compile(r"benchheld\d+x"))
        content = re.sub(r"benchheld(\d+)x", lambda m: held[int(m.group(1))], content)
    return BeautifulSoup(content, "html.parser")


def source_text(soup: BeautifulSoup) -> str:
    """Its text, as a reader sees it: shortcode brackets dropped, a caption's text kept."""
    for element in soup.find_all(["script", "style"]):
        element.decompose()
    text = html.unescape(soup.get_text(" "))
    text = re.sub(r"\[caption[^\]]*?caption=\"([^\"]*)\"[^\]]*\]", r" \1 ", text)
    return _SHORTCODE_TAG.sub(" ", text)


def count_embeds(item, soup: BeautifulSoup) -> int:
    found = len(soup.find_all(["iframe", "video", "audio", "object"]))
    found += len([f for f in soup.find_all("figure") if "wp-block-embed" in (f.get("class") or [])])
    found += len(re.findall(r"\[(?:embed|audio|video)\b", item.content))
    for paragraph in soup.find_all("p"):
        if embed_host(paragraph.get_text().strip()):
            found += 1
    return found


def count_images(item, soup: BeautifulSoup, attachments) -> int:
    images = len([i for i in soup.find_all("img") if i.get("src")])
    images += len(
        [
            d
            for d in soup.find_all(style=True)
            if "background-image" in str(d.get("style")) and d.find("img") is None
        ]
    )
    for gallery in re.finditer(r"\[gallery([^\]]*)\]", item.content):
        ids = re.search(r'ids="([^"]+)"', gallery.group(1))
        if ids:
            images += len([i for i in ids.group(1).split(",") if i.strip() in attachments])
        else:
            images += len(
                [a for a in attachments.values() if a["parent"] == item.post_id and a["image"]]
            )
    return images


def pre_lines(soup: BeautifulSoup) -> list[str]:
    lines = []
    for pre in soup.find_all("pre"):
        code = html.unescape(raw_text(pre)).strip("\n")
        lines += [line.rstrip() for line in code.split("\n") if line.strip()]
    return lines


def page_parts(page: Path):
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    body = soup.find(attrs={"role": "main"}) or soup.find("article") or soup
    for part in body.find_all(class_=re.compile(r"^kb-(post-header|related|cite|backlinks)")):
        part.decompose()
    return body


def shown_text(body) -> str:
    """The page's text; a code block's as it is (highlighting splits it into many spans)."""
    for pre in body.find_all("pre"):
        pre.replace_with(" " + pre.get_text() + " ")
    return body.get_text(" ")


def built_pre_lines(body) -> set[str]:
    lines = set()
    for pre in body.find_all("pre"):
        lines |= {line.rstrip() for line in pre.get_text().split("\n")}
    return lines


def visible_syntax(body, source: str) -> Counter:
    text_body = BeautifulSoup(str(body), "html.parser")
    for element in text_body.find_all(["pre", "code", "script", "style"]):
        element.decompose()
    shown = text_body.get_text(" ")
    found = Counter()
    for name, pattern in LITERAL.items():
        extra = len(pattern.findall(shown)) - len(pattern.findall(source))
        if extra > 0:
            found[name] += extra
    return found


def run(export: Path, uploads: bool, workdir: Path) -> dict:
    site = workdir / ("site-uploads" if uploads else "site")
    (site / "posts").mkdir(parents=True)
    (site / "conf.py").write_text(CONF, encoding="utf-8")
    (site / "index.md").write_text("# Imported\n\nThe imported site.\n", encoding="utf-8")
    source = read(export, str(export))
    command = [sys.executable, "-m", "kb.cli", "import", str(export), "--default-category"]
    command.append("Article")
    if uploads:
        folder = workdir / "uploads"
        for attachment in source.attachments.values():
            for candidate in upload_path(attachment["url"])[:1]:
                file = folder / candidate
                file.parent.mkdir(parents=True, exist_ok=True)
                file.write_bytes(PNG)
        command += ["--uploads", str(folder)]
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
    started = time.perf_counter()
    done = subprocess.run(command, cwd=site, capture_output=True, text=True, env=env)
    import_seconds = time.perf_counter() - started
    lines: dict[int, list[str]] = {}
    for line in done.stdout.splitlines():
        found = _LINE.match(line)
        if found:
            lines.setdefault(int(found["line"]), []).append(found["message"])
    started = time.perf_counter()
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-nW", "--keep-going", "-q", "-b", "html"]
        + ["-d", str(workdir / "doctrees"), str(site), str(workdir / "html")],
        capture_output=True,
        text=True,
        env=env,
    )
    build_seconds = time.perf_counter() - started
    items = []
    for item in source.items:
        if item.status != "publish" or item.kind not in ("post", "page"):
            continue
        messages = lines.get(item.line, [])
        wrote = next((m for m in messages if m.startswith("wrote ")), "")
        row = {
            "line": item.line,
            "kind": item.kind,
            "title": " ".join(item.title.split())[:60] or "(no title)",
            "password": item.password,
            "imported": bool(wrote),
            "why": "" if wrote else next(iter(messages), "no line about it"),
        }
        if wrote:
            relpath = wrote.split()[1]
            page = workdir / "html" / (relpath.removesuffix(".md") + ".html")
            soup = source_soup(item)
            images = count_images(item, soup, source.attachments)
            embeds = count_embeds(item, soup)
            pres = pre_lines(soup)
            text = source_text(soup)
            body = page_parts(page)
            built_pres = built_pre_lines(body)
            shown = shown_text(page_parts(page))
            kept = words(text)
            overlap = sum((kept & words(shown)).values()) / sum(kept.values()) if kept else 1.0
            local = len(body.find_all("img"))
            linked = len([a for a in body.find_all("a") if a.get_text().startswith("Image:")])
            cards = len(body.select(".kb-embed")) + len(
                [a for a in body.find_all("a") if a.get_text().startswith(("Video:", "Audio:"))]
            )
            row.update(
                file=relpath,
                words=sum(kept.values()),
                overlap=round(overlap, 4),
                images=images,
                images_shown=local,
                images_linked=linked,
                pre_lines=len(pres),
                pre_kept=sum(line in built_pres for line in pres),
                embeds=embeds,
                embeds_shown=cards,
                literal=dict(visible_syntax(body, text)),
            )
        items.append(row)
    return {
        **old_archive_pages(site, workdir / "html"),
        "uploads": uploads,
        "import_exit": done.returncode,
        "import_seconds": round(import_seconds, 1),
        "import_summary": done.stderr.strip().splitlines(),
        "build_exit": build.returncode,
        "build_seconds": round(build_seconds, 1),
        "build_warnings": [line for line in build.stderr.splitlines() if "WARNING" in line][:20],
        "items": items,
    }


def old_archive_pages(site: Path, html: Path) -> dict:
    """The old archives kb import wrote into redirects.toml, and how many the build turned
    into a page that leads to a page it wrote."""
    table = site / "redirects.toml"
    pairs = tomllib.loads(table.read_text("utf-8"))["redirects"] if table.is_file() else {}
    leading = 0
    for old, new in pairs.items():
        page = html / old.strip("/") / "index.html"
        if page.is_file() and (html / new.strip("/")).is_file():
            href = BeautifulSoup(page.read_bytes(), "html.parser").select_one(".kb-redirect a")
            target = (page.parent / href["href"]).resolve() if href else None
            leading += target == (html / new.strip("/")).resolve()
    return {"old_archives": len(pairs), "old_archive_pages": leading}


def totals(result: dict) -> dict:
    posts = [i for i in result["items"] if i["kind"] == "post" and not i["password"]]
    imported = [i for i in result["items"] if i["imported"]]
    post_rows = [i for i in posts if i["imported"]]
    return {
        "published posts": len(posts),
        "posts imported": len(post_rows),
        "pages imported": len([i for i in imported if i["kind"] == "page"]),
        "lowest word overlap": min((i["overlap"] for i in post_rows), default=0),
        "posts under 98% words": len([i for i in post_rows if i["overlap"] < 0.98]),
        "images": sum(i["images"] for i in imported),
        "images shown": sum(i["images_shown"] for i in imported),
        "images linked": sum(i["images_linked"] for i in imported),
        "pre lines": sum(i["pre_lines"] for i in imported),
        "pre lines kept": sum(i["pre_kept"] for i in imported),
        "embeds": sum(i["embeds"] for i in imported),
        "embeds shown": sum(i["embeds_shown"] for i in imported),
        "pages with literal syntax": len([i for i in imported if i["literal"]]),
        "old archive addresses": result["old_archives"],
        "old archive pages leading to their archive": result["old_archive_pages"],
    }


def markdown(results: list[dict], export: Path) -> str:
    out = [
        "# `kb import` fidelity on WordPress's theme unit test export",
        "",
        f"Measured by `python benchmarks/import_fidelity.py` on `{export.name}` "
        "(one run, `--default-category Article`; the site built with `sphinx -nW`).",
        "Words: the share of the source text's words (as a bag, with multiplicity) found on the "
        "built page. Images: shown on the page or linked from it. Literal syntax: Markdown, MyST "
        "or shortcode syntax in the page's text outside code, beyond what the source text shows. "
        "The module's docstring says how each is measured.",
        "",
    ]
    for result in results:
        name = (
            "with an uploads folder of the export's attachments"
            if result["uploads"]
            else ("without uploads (images stay links to the old host)")
        )
        out += [f"## {name}", ""]
        out += [
            f"- import: exit {result['import_exit']} in {result['import_seconds']} s; "
            f"build: exit {result['build_exit']} in {result['build_seconds']} s, "
            f"{len(result['build_warnings'])} warning(s)",
        ]
        out += [f"- {key}: {value}" for key, value in totals(result).items()]
        out += ["", "Summary printed by kb import:", "", "```text"]
        out += result["import_summary"] + ["```", ""]
        out += [
            "| line | kind | title | imported | words | overlap | images (shown/linked) "
            "| pre lines kept | embeds shown | literal syntax |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for i in result["items"]:
            title = i["title"].replace("|", "\\|")
            if not i["imported"]:
                why = i["why"].replace("|", "\\|")[:90]
                out.append(f"| {i['line']} | {i['kind']} | {title} | no: {why} | | | | | | |")
                continue
            literal = ", ".join(f"{k} {v}" for k, v in i["literal"].items()) or "0"
            out.append(
                f"| {i['line']} | {i['kind']} | {title} | yes | {i['words']} | "
                f"{i['overlap']:.1%} | {i['images']} ({i['images_shown']}/{i['images_linked']}) "
                f"| {i['pre_kept']}/{i['pre_lines']} | {i['embeds_shown']}/{i['embeds']} "
                f"| {literal} |"
            )
        out.append("")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--export", type=Path, default=EXPORT)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--json", type=Path, help="also write the raw results here")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="kb-import-fidelity-") as temp:
        for uploads in (False, True):
            workdir = Path(temp) / ("uploads" if uploads else "plain")
            workdir.mkdir()
            results.append(run(args.export, uploads, workdir))
            print(json.dumps(totals(results[-1]), indent=1), file=sys.stderr)
    args.out.write_text(markdown(results, args.export), encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
