"""`kb import` keeps what a WordPress reader saw (issue 35), on a small export of our own.

tests/fixtures/import/constructs.xml holds one post per construct (linked images on three
hosts, verse and classic code, strikethrough, a header-less table, a gallery of attachments,
audio, embeds, a title with markup, a post that opens with an image, a teaser, a page) and
constructs-uploads/ the originals of its images. The export is imported once, in one run with
only --default-category, and the site built once; the tests read the files and the HTML.
"""

from __future__ import annotations

import contextlib
import io
import tomllib
from pathlib import Path

import pytest
import yaml
from authoring import build, run_check
from bs4 import BeautifulSoup

from kb.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "import"
EXPORT = FIXTURES / "constructs.xml"
UPLOADS = FIXTURES / "constructs-uploads"
CONF = """\
extensions = ["myst_parser", "ablog", "kb"]
project = "Harbour"
html_theme = "furo"
exclude_patterns = ["_build"]
nitpicky = True
blog_path = "blog"
blog_baseurl = "https://harbour.example.org/"
blog_post_pattern = "posts/*/*.md"
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
post_auto_orphan = True
myst_enable_extensions = ["colon_fence", "dollarmath", "amsmath", "deflist", "attrs_inline"]
kb_categories = ["Article", "Photos"]
"""


def kb(root: Path, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return status, out.getvalue(), err.getvalue()


def new_site(root: Path) -> Path:
    (root / "posts").mkdir(parents=True)
    (root / "conf.py").write_text(CONF, encoding="utf-8")
    (root / "index.md").write_text("# Harbour\n\nThe imported site.\n", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    root = new_site(tmp_path_factory.mktemp("fidelity") / "site")
    status, out, err = kb(
        root, "import", str(EXPORT), "--default-category", "Article", "--uploads", str(UPLOADS)
    )
    app, warnings = build(root)
    return root, status, out, err, Path(app.outdir), warnings


def front(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8").split("---\n")[1])


def page(outdir: Path, name: str) -> BeautifulSoup:
    soup = BeautifulSoup((outdir / name).read_text(encoding="utf-8"), "html.parser")
    return soup.find("article") or soup


def test_one_run_imports_every_published_item_and_builds_clean(imported):
    root, status, out, err, _, warnings = imported
    assert status == 0, out + err
    assert warnings == []
    assert run_check(root)[:2] == (0, [])  # kb check agrees with the build
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md")) == [
        "index.md",
        "pages/about.md",
        "posts/2013/code-and-verse.md",
        "posts/2013/gallery.md",
        "posts/2013/image-first.md",
        "posts/2013/linked-images.md",
        "posts/2013/teaser.md",
    ]
    # Attachments and menu items: one line for all of them, none of their own.
    assert "kb import: not imported (not published posts): 2 attachment, 1 menu item" in err
    assert "menu item" not in out and "attachment" not in out


def test_a_linked_image_is_a_figure_that_links_to_its_full_size(imported):
    root, _, _, _, outdir, _ = imported
    # On <site>.files.wordpress.com, asked for at -300x200 and ?w=300: the original is copied.
    assert (root / "posts/2013/linked-images/harbour.png").is_file()
    figure = page(outdir, "posts/2013/linked-images.html").find("figure")
    link = figure.find("a")
    assert link["href"].endswith("harbour.png") and link.find("img")["alt"] == "The harbour at dawn"
    assert figure.find("figcaption").get_text(strip=True).rstrip("¶") == "The harbour at dawn"


def test_images_from_any_wordpress_host_and_only_images_are_copied(imported):
    root, _, out, _, outdir, _ = imported
    assert (root / "posts/2013/linked-images/bell.png").is_file()  # through i0.wp.com
    assert not list(root.rglob("notes.md"))  # an "image" that is a page: never copied
    body = page(outdir, "posts/2013/linked-images.html")
    ship = body.find("a", string="Image: A ship")  # another host: a link, never a load
    assert ship["href"] == "https://elsewhere.example.net/big/ship.jpg"
    assert all(not img["src"].startswith("http") for img in body.find_all("img"))
    assert "notes.md is not in" in out


def test_pre_keeps_its_lines_and_a_code_listing_is_a_block(imported):
    root, _, _, _, outdir, _ = imported
    body = page(outdir, "posts/2013/code-and-verse.html")
    blocks = [pre.get_text() for pre in body.find_all("pre")]
    assert blocks[0] == "The tide comes in,\n```{eval-rst}\n  and goes    out.\n"
    assert blocks[1] == "for boat in harbour:\n    boat.moor()\n"


def test_strikethrough_renders_and_a_headerless_table_stays_headerless(imported):
    _, _, _, _, outdir, _ = imported
    body = page(outdir, "posts/2013/code-and-verse.html")
    assert [d.get_text() for d in body.find_all("del")] == ["12 EUR", "13 EUR"]
    table = body.find("table")
    assert table.find("thead") is None and table.find("th") is None
    assert [td.get_text(strip=True) for td in table.find_all("td")] == [
        "Tide",
        "Height",
        "High",
        "4 m",
    ]


def test_a_gallery_audio_and_embeds(imported):
    root, _, _, _, outdir, _ = imported
    body = page(outdir, "posts/2013/gallery.html")
    gallery = body.select_one(".kb-gallery")  # a grid (kb.css) of the figures
    images = [img["alt"] for img in gallery.find_all("img")]
    assert images == ["bell", "A blue boat"]  # the gallery's attachments, in its order
    assert "The harbour bell" in gallery.get_text()  # the attachment's caption
    audio, video = body.select(".kb-player > audio"), body.select(".kb-player > video")
    assert (
        len(audio) == 1 and audio[0]["src"].endswith("/talk.mp3") and "controls" in audio[0].attrs
    )
    fallback = audio[0].find("a", class_="download")  # for a browser without a player
    assert fallback.get_text() == "Audio: talk.mp3" and fallback["href"] == audio[0]["src"]
    assert (outdir / "posts/2013" / audio[0]["src"]).resolve().is_file()
    assert len(video) == 1 and video[0]["src"].endswith("/tide.mp4")
    assert video[0]["poster"].endswith("/boat.png")  # the poster from the uploads too
    caption = video[0].find_parent("figure").find("figcaption")
    assert caption.get_text(strip=True) == "The tide, filmed from the pier"
    storm = body.find("a", string="Video: storm.mp4")  # another host's file: a link
    assert storm["href"] == "https://videos.example.net/storm.mp4"
    assert all(not m["src"].startswith(("http", "//")) for m in body.find_all(["audio", "video"]))
    cards = body.select(".kb-embed")
    assert [c.find("a")["href"] for c in cards] == [
        "https://www.youtube.com/watch?v=harbour1",
        "https://twitter.com/harbour/status/1",
    ]
    assert "A harbour film" in cards[0].get_text() and "www.youtube.com" in cards[0].get_text()
    assert body.find(["iframe", "script", "object", "embed"]) is None  # nothing from elsewhere


def test_a_title_with_markup_is_its_text(imported):
    _, _, _, _, outdir, _ = imported
    assert (
        page(outdir, "posts/2013/gallery.html")
        .find("h1")
        .get_text(strip=True)
        .startswith("A gallery & sounds")
    )


def test_excerpts_come_from_prose_else_alt_text(imported):
    root, _, _, _, _, _ = imported
    assert front(root / "posts/2013/gallery.md")["description"] == (
        "The harbour band played all night, and the boats rang their bells."
    )  # not "Pictures", its first heading
    assert front(root / "posts/2013/image-first.md")["description"] == "A blue boat"
    assert "description" not in front(root / "posts/2013/linked-images.md")  # opens with prose


def test_a_teaser_becomes_an_external_post(imported):
    root, _, _, _, _, _ = imported
    fields = front(root / "posts/2013/teaser.md")
    assert fields["external_link"] == "https://harbour.example.org/2013/03/teaser/"
    assert fields["description"] == "The first lines of a long story about the harbour …"
    body = (root / "posts/2013/teaser.md").read_text(encoding="utf-8").split("---\n", 2)[2]
    assert body.strip() == "# Only a teaser"


def test_categories_fall_back_to_the_default(imported):
    root, _, _, _, _, _ = imported
    assert front(root / "posts/2013/linked-images.md")["category"] == "Photos"  # the site's
    assert front(root / "posts/2013/teaser.md")["category"] == "Article"  # Stories: not
    assert front(root / "posts/2013/code-and-verse.md")["category"] == "Article"  # Uncategorized


def test_a_page_is_written_under_pages_and_built(imported):
    root, _, _, _, outdir, _ = imported
    assert (
        (root / "pages/about.md")
        .read_text(encoding="utf-8")
        .endswith("# About the harbour\n\nWe write about the harbour.\n")
    )
    assert "We write about the harbour." in page(outdir, "pages/about.html").get_text()


def test_an_old_address_under_blog_becomes_a_host_redirect(imported, tmp_path):
    root, _, out, _, _, _ = imported
    assert "redirect" not in front(root / "posts/2013/image-first.md")
    assert "no redirect page at /blog/2013/03/image-first/" in out
    status, printed, _ = kb(
        new_site(tmp_path / "again"), "import", str(EXPORT), "--default-category", "Article"
    )
    status, printed, _ = kb(tmp_path / "again", "import", str(EXPORT), "--rtd-redirects")
    lines = printed.splitlines()
    assert "/blog/2013/03/image-first/ /posts/2013/image-first.html" in lines
    assert "/feed/ /feeds/rss.xml" in lines
    assert "# /?p=12 /posts/2013/gallery.html" in lines


def test_old_archives_are_redirect_pages_of_the_build(imported):
    root, _, _, err, outdir, _ = imported
    table = tomllib.loads((root / "redirects.toml").read_text(encoding="utf-8"))["redirects"]
    assert table == {
        "/author/ana/": "/blog/author/ana.html",
        "/category/photos/": "/blog/category/photos.html",
        "/category/stories/": "/blog/category/article.html",  # through the default category
        "/category/uncategorized/": "/blog/category/article.html",
        "/tag/boats/": "/blog/tag/boats.html",
    }
    assert "wrote redirects.toml: 5 old archive address(es)" in err
    for old, new in table.items():  # each a page of the build, leading to the archive
        page = BeautifulSoup((outdir / old.strip("/") / "index.html").read_bytes(), "html.parser")
        href = page.select_one(".kb-redirect a")["href"]
        assert (outdir / old.strip("/") / href).resolve() == (outdir / new.strip("/")).resolve()
        assert (outdir / new.strip("/")).is_file()


def test_categories_as_tags_and_a_map_file(tmp_path):
    root = new_site(tmp_path / "site")
    mapping = tmp_path / "map.toml"
    mapping.write_text('[categories]\n"Stories" = "Photos"\n[tags]\nboats = "Boats"\n', "utf-8")
    status, out, err = kb(
        root, "import", str(EXPORT), "--map", str(mapping), "--default-category", "Article",
        "--categories-as-tags",
    )  # fmt: skip
    assert status == 0, out + err
    assert front(root / "posts/2013/teaser.md")["category"] == "Photos"
    assert front(root / "posts/2013/gallery.md")["tags"] == ["Boats"]
    fields = front(root / "posts/2013/code-and-verse.md")
    assert fields["category"] == "Article" and "tags" not in fields  # Uncategorized: nothing


def test_without_a_default_every_problem_is_reported_in_one_run(tmp_path):
    root = new_site(tmp_path / "site")
    status, out, err = kb(root, "import", str(EXPORT))
    assert status == 1
    assert out.count("error:") == 3  # Stories, no category (two posts)
    assert (
        "kb import: 3 error(s) of kind category [(none) (2), Stories]: use --default-category "
        "CATEGORY" in err
    )


@pytest.mark.parametrize(
    "content", ["<rss><channel>\x01\x1b[31m</channel></rss>", "<rss><channel><item>\n\n"]
)
def test_malformed_xml_is_one_line_without_control_characters(tmp_path, content):
    root = new_site(tmp_path / "site")
    source = tmp_path / "bad.xml"
    source.write_text(content, encoding="utf-8")
    status, out, err = kb(root, "import", str(source))
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"{source}:")
    assert all(c.isprintable() for c in err.rstrip("\n"))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            '[categories]\n"Stories" = "Nope"\n',
            '--map-category (or --map): "Nope" is not a category',
        ),
        ("[categories\n", "not TOML (Expected ']' at the end of a table declaration"),
        ('[colors]\na = "b"\n', "[colors]: only [categories], [authors], [tags]"),
        ('[tags]\nboats = ""\n', '[tags] holds "old" = "new" lines, new not empty'),
    ],
)
def test_a_bad_map_file_is_refused_before_anything_is_read(tmp_path, content, message):
    root = new_site(tmp_path / "site")
    mapping = tmp_path / "map.toml"
    mapping.write_text(content, encoding="utf-8")
    status, out, err = kb(root, "import", str(EXPORT), "--map", str(mapping))
    assert (status, out) == (2, "")
    assert err.startswith("kb import: --map") and message in err
    assert not list((root / "posts").rglob("*"))
