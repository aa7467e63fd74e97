"""furo's table and math wrappers must not repeat the ids of what they wrap."""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import soup


@pytest.mark.sphinx("html", testroot="uniqueids")
def test_every_id_once_and_links_land_on_the_wrapped_node(app, warning):
    app.build()
    assert warning.getvalue() == ""
    page = soup(app.outdir / "index.html")
    ids = Counter(element["id"] for element in page.find_all(id=True))
    assert [id_ for id_, count in ids.items() if count > 1] == []

    equation = page.find(id="equation-eq-pythagoras")
    assert "math" in equation["class"]
    assert "math-wrapper" in equation.parent["class"]
    assert equation.find("a", class_="headerlink")["href"] == "#equation-eq-pythagoras"

    table = page.find(id="tbl-sizes")
    assert table.name == "table"
    assert "table-wrapper" in table.parent["class"]
    # Both references point at ids that exist, exactly once.
    references = {a["href"] for a in page.select("a.reference.internal")}
    assert references == {"#equation-eq-pythagoras", "#tbl-sizes"}
