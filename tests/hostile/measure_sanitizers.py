"""Measure the HTML sanitizers kb could use, on raw HTML as posts and notebooks hold it.

Not a test (pytest collects test_*.py only): run it by hand, as the commit that chose nh3 did:

    .venv/bin/python tests/hostile/measure_sanitizers.py

The corpus is every raw HTML fragment of the test roots' Markdown (tokenized as MyST does),
the hostile probes, and what notebooks hold most: a pandas DataFrame of 5 and of 200 rows.
Each sanitizer cleans the whole corpus, best of 5 runs; then each one's output of the probes
is parsed again with html5lib and anything that could run a script is counted.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import html5lib

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from kb.checks.rawhtml import _blank_front_matter, _parser  # noqa: E402
from kb.checks.sanitize import Policy, _cleaner, sanitize  # noqa: E402

PROBES = [
    '<iframe src="data:text/html,<script>alert(1)</script>"></iframe>',
    '<object data="data:text/html,<script>alert(1)</script>"></object>',
    '<noembed><img title="</noembed><img src=x onerror=alert(1)>"></noembed>',
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></p></noscript>',
    '<svg><a><animate attributeName="href" values="javascript:alert(1)"/><text>x</text></a></svg>',
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    '<a href="jav&#x09;ascript:alert(1)">x</a>',
    '<form><button formaction="javascript:alert(1)">b</button></form>',
    '<details open ontoggle="alert(1)"><summary>s</summary></details>',
    '<xmp><img title="</xmp><img src=x onerror=alert(1)>"></xmp>',
    "<svg><script>alert(1)</script></svg>",
    '<a href="data:text/html,<script>alert(1)</script>">d</a>',
]


def dataframe(rows: int) -> str:
    body = "".join(
        f"    <tr>\n      <th>{i}</th>\n      <td>{i * 1.5}</td>\n      <td>h200</td>\n    </tr>\n"
        for i in range(rows)
    )
    return (
        "<div>\n<style scoped>\n    .dataframe tbody tr th:only-of-type {\n"
        "        vertical-align: middle;\n    }\n</style>\n"
        '<table border="1" class="dataframe">\n  <thead>\n    <tr style="text-align: right;">\n'
        "      <th></th>\n      <th>tflops</th>\n      <th>gpu</th>\n    </tr>\n  </thead>\n"
        f"  <tbody>\n{body}  </tbody>\n</table>\n</div>"
    )


def corpus() -> list[str]:
    fragments = []
    parser = _parser(("colon_fence", "dollarmath"))
    for path in sorted((ROOT / "tests/roots").rglob("*.md")):
        for token in parser.parse(_blank_front_matter(path.read_text(encoding="utf-8"))):
            if token.type == "html_block":
                fragments.append(token.content)
            for child in token.children or ():
                if child.type == "html_inline":
                    fragments.append(child.content)
    return fragments


def best(function, fragments, runs=5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        for fragment in fragments:
            function(fragment)
        times.append(time.perf_counter() - start)
    return min(times)


def dangerous(html: str) -> int:
    """Elements, attributes and URLs of ``html`` (parsed by html5lib) that could run script."""
    tree = html5lib.parseFragment(html, treebuilder="etree", namespaceHTMLElements=False)
    count = 0
    for element in tree.iter():
        tag = str(element.tag).rpartition("}")[2].lower()
        if tag in ("script", "iframe", "object", "embed", "animate", "set", "form", "button"):
            count += 1
        for name, value in element.attrib.items():
            name = str(name).rpartition("}")[2].lower()
            cleaned = "".join(value.split()).lower()
            if name.startswith("on") or cleaned.startswith(("javascript:", "data:text")):
                count += 1
    return count


def main() -> None:
    import bleach
    import nh3
    from justhtml import JustHTML

    policy = Policy.make((), "example.org")
    cleaner = _cleaner(policy)
    posts = corpus()
    sets = {
        f"test roots' raw HTML ({len(posts)} fragments)": posts,
        f"probes ({len(PROBES)})": PROBES,
        "DataFrame, 5 rows": [dataframe(5)],
        "DataFrame, 200 rows": [dataframe(200)],
    }
    sanitizers = {
        "nh3 (kb's policy)": cleaner.clean,
        "nh3 defaults": nh3.clean,
        "kb sanitize() (nh3 + justhtml report)": lambda h: sanitize(h, policy),
        "justhtml sanitize (its default policy)": lambda h: JustHTML(h, fragment=True).to_html(),
        "bleach.clean (html5lib)": bleach.clean,
    }
    print(f"{'sanitizer':42} " + " ".join(f"{name[:26]:>28}" for name in sets))
    for label, function in sanitizers.items():
        cells = []
        for fragments in sets.values():
            seconds = best(function, fragments)
            cells.append(f"{seconds * 1e3 / len(fragments):9.3f} ms/fragment")
        print(f"{label:42} " + " ".join(f"{cell:>28}" for cell in cells))
    print("\nWhat could still run a script after cleaning the probes (html5lib re-parse):")
    for label, function in sanitizers.items():
        outputs = [function(probe) for probe in PROBES]
        outputs = [out.html if hasattr(out, "html") else out for out in outputs]
        print(f"  {label:42} {sum(dangerous(out) for out in outputs)}")
    print("\nWhat a 5-row DataFrame keeps (characters of 2 sanitizers' output / input):")
    frame = dataframe(5)
    for label in ("nh3 (kb's policy)", "justhtml sanitize (its default policy)"):
        print(f"  {label:42} {len(sanitizers[label](frame))} / {len(frame)}")


if __name__ == "__main__":
    main()
