"""The machine (/vol1/machine): computed from the record, drawn, listed, and its twin."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser as HTMLParser
from site_fixtures import build, crawl, file_for

from sourcebook.derive.machine import Edge, Holding, Machine, Node
from sourcebook.publish.site.drawing.machine import (
    BUILDING,
    MAX_NODES,
    ROLE_ORDER,
    SUPPLYING,
    draw,
    party_layers,
    primary_role,
)
from sourcebook.publish.site.drawing.machine_page import MachineView

BUNDLED = Path(__file__).resolve().parent.parent / "examples" / "compute-race"
NEW_CAMPUS = """\
---
title: Colossus 3
location: Southaven, Mississippi
country: US
status: operating
parties:
  - party: xai
    roles: [owner]
    source: ciol-xai-southaven-20b
  - party: nvidia
    roles: [supplier]
    supplies: GB300 racks
    source: ciol-xai-southaven-20b
figures:
  - metric: it-power
    value: 250
    unit: MW
    status: operating
    as_of: 2026-06
    grade: reported
    source: ciol-xai-southaven-20b
  - metric: chips
    value: 50000
    unit: chips
    chip: GB300
    status: operating
    as_of: 2026-06
    grade: reported
    source: ciol-xai-southaven-20b
---
"""


def copy_of_bundled(tmp: Path) -> Path:
    root = tmp / "record"
    shutil.copytree(
        BUNDLED, root, ignore=shutil.ignore_patterns("_site", "_site.*", ".sourcebook-cache")
    )
    return root


def twin(site: Path) -> dict:
    text = (site / "vol1" / "api" / "machine.json").read_text(encoding="utf-8")
    return json.loads(text)["machine"]


def owner(data: dict, party: str) -> dict:
    return next(o for o in data["owners"] if o["owner"] == party)


@pytest.fixture(scope="module")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(BUNDLED, tmp_path_factory.mktemp("bundled") / "site")


def test_the_summary_is_computed_from_the_record(bundled: Path) -> None:
    data = twin(bundled)
    assert (data["campuses"], data["parties"], len(data["edges"])) == (10, 20, 32)
    # Colossus 1 at 150 MW of grid supply (its 300 MW corrected), Colossus 2 at 200 MW and
    # Prometheus at 500 MW; 200,000 GPUs at Colossus 1 and 500,000 Trainium2 at Rainier.
    assert data["total"]["power_mw"] == 850 and data["total"]["chips"] == 700_000
    xai = owner(data, "xai")
    assert xai["campuses"] == ["colossus-1", "colossus-2", "southaven"]
    assert xai["power_mw"] == 350
    tesla = [e for e in data["edges"] if e["party"] == "tesla"]
    assert {e["supplies"] for e in tesla} == {"Megapack batteries"}
    assert all(e["source"] and e["quote_status"] == "verified" for e in tesla)
    html = HTMLParser(file_for(bundled, "/vol1/machine").read_text(encoding="utf-8"))
    summary = html.css_first(".machine-summary").text()
    assert "10 campuses" in " ".join(summary.split()) and "850 MW" in summary


def test_a_campus_added_to_the_record_changes_the_summary(tmp_path: Path, bundled: Path) -> None:
    root = copy_of_bundled(tmp_path)
    (root / "campuses" / "colossus-3.md").write_text(NEW_CAMPUS, encoding="utf-8")
    site = build(root, tmp_path / "site")
    before, after = twin(bundled), twin(site)
    assert after["campuses"] == before["campuses"] + 1
    assert owner(after, "xai")["power_mw"] == owner(before, "xai")["power_mw"] + 250
    assert after["total"]["chips"] == before["total"]["chips"] + 50_000
    html = HTMLParser(file_for(site, "/vol1/machine").read_text(encoding="utf-8"))
    assert "1,100 MW" in html.css_first(".machine-summary").text()
    rows = [" ".join(r.text().split()) for r in html.css("table.machine-roles tbody tr")]
    assert any(r.startswith("NVIDIA supplier Colossus 3 GB300 racks") for r in rows)
    assert html.css_first('svg.machine a[href="/vol1/ledger/colossus-3"]')


def test_the_table_lists_every_role_with_its_source(bundled: Path) -> None:
    html = HTMLParser(file_for(bundled, "/vol1/machine").read_text(encoding="utf-8"))
    rows = html.css("table.machine-roles tbody tr")
    assert len(rows) == len(twin(bundled)["edges"])
    for row in rows:
        cells = row.css("th, td")
        assert cells[0].css_first("a") and cells[2].css_first("a")
        assert cells[4].css_first("a").attributes["href"].startswith("/vol1/sources/")
    megapacks = [r for r in rows if "Megapack batteries" in r.text()]
    assert len(megapacks) == 2


def test_the_page_is_in_the_navigation_after_the_record_at_a_glance(bundled: Path) -> None:
    html = HTMLParser(file_for(bundled, "/vol1/ledger").read_text(encoding="utf-8"))
    links = [(a.text(), a.attributes["href"]) for a in html.css("nav.site-nav a")]
    at = links.index(("The machine", "/vol1/machine"))
    assert links[at - 1][0] == "The record at a glance"  # the exemplar's order
    reached, problems = crawl(bundled, "/vol1/machine")
    assert problems == []
    assert "/vol1/machine" in reached and "/vol1/ledger/colossus-1" in reached


def test_every_number_links_to_the_figures_it_sums(bundled: Path) -> None:
    html = HTMLParser(file_for(bundled, "/vol1/machine").read_text(encoding="utf-8"))
    hrefs = [a.attributes["href"] for a in html.css("table.owners td.number a")]
    assert "/vol1/ledger/prometheus#figure-campus:prometheus:3" in hrefs
    _, problems = crawl(bundled, "/vol1/machine")
    assert problems == []


def machine_of(campuses: int, parties: int, title: str = "Party") -> Machine:
    nodes = [Node("campus", f"c{i}", f"Campus {i}", "operating", 2) for i in range(campuses)]
    nodes += [Node("party", f"p{i}", f"{title} {i}", "company", 0) for i in range(parties)]
    edges = [
        Edge(f"c{i}", f"p{(i * 7 + k) % parties}", ("supplier",), "GB200s", None, None, None, None)
        for i in range(campuses)
        for k in range(2)
    ]
    empty = Holding("", (), 0.0, (), 0.0, ())
    return Machine(tuple(nodes), tuple(edges), {}, {}, (), empty)


def test_a_large_record_is_drawn_capped_and_says_so() -> None:
    drawing = draw(machine_of(1000, 1000), lambda k, i: f"/{k}/{i}", title="t", description="d")
    assert drawing.capped and 0 < drawing.nodes <= MAX_NODES
    assert str(drawing.svg).count("<a href=") == drawing.nodes


def test_the_drawing_is_the_same_every_time_and_escapes_the_record() -> None:
    hostile = machine_of(3, 2, title='<script>alert("x")</script> & co')
    first = draw(hostile, lambda k, i: f"/{k}/{i}?a=1&b=2", title="<t>", description="d")
    second = draw(hostile, lambda k, i: f"/{k}/{i}?a=1&b=2", title="<t>", description="d")
    assert str(first.svg) == str(second.svg)
    svg = str(first.svg)
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    assert 'href="/party/p0?a=1&amp;b=2"' in svg
    assert '<title id="machine-t">&lt;t&gt;</title>' in svg


class Counted(tuple):  # type: ignore[type-arg]
    """The machine's edges, counting each one read."""

    read = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        for edge in super().__iter__():
            Counted.read += 1
            yield edge


class Named:
    def __init__(self, kind: str, ident: str, title: str):
        self.KIND, self.id, self.title = kind, ident, title


def page_of(machine: Machine) -> MachineView:
    """The machine's page as a site shows it, its entities stand-ins with a kind, an id
    and a title (no drawing: `by_campus` reads the machine alone)."""
    page = MachineView.__new__(MachineView)
    page.machine = machine
    page._entities = {(n.kind, n.id): Named(n.kind, n.id, n.title) for n in machine.nodes}
    return page


def test_the_campus_by_campus_list_reads_each_role_a_bounded_number_of_times() -> None:
    """The narrow screen's list, campus by campus: its work grows with the roles, not with
    the roles times the campuses or the parties (it once read every role for each)."""
    machine = machine_of(2000, 500)
    counted = Machine(machine.nodes, Counted(machine.edges), {}, {}, (), machine.total)
    Counted.read = 0
    listed = page_of(counted).by_campus()
    assert len(listed) == 2000
    assert sum(len(rows) for _, layers in listed for _, rows in layers) == len(machine.edges)
    assert Counted.read <= 3 * len(machine.edges)


def naive_layer(party: str, edges: list[Edge]) -> int:
    """A party's column as the drawing defines it, counted for it alone."""
    counts = {1: 0, 4: 0, 0: 0}
    for edge in edges:
        if edge.party == party:
            role = primary_role(edge.roles)
            counts[1 if role in BUILDING else 4 if role in SUPPLYING else 0] += 1
    return max(counts, key=lambda rank: counts[rank])


@given(
    st.lists(
        st.tuples(
            st.integers(0, 4),
            st.integers(0, 5),
            st.lists(st.sampled_from([*ROLE_ORDER, "lender"]), min_size=1, max_size=3),
        ),
        max_size=30,
    )
)
def test_every_partys_column_is_what_counting_its_roles_alone_gives(roles: list) -> None:
    edges = [Edge(f"c{c}", f"p{p}", tuple(r), None, None, None, None, None) for c, p, r in roles]
    found = party_layers(edges)
    assert set(found) == {edge.party for edge in edges}
    for party, column in found.items():
        assert column == naive_layer(party, edges)


DRAW_IN_A_PROCESS = """
from sourcebook.derive.machine import Edge, Holding, Machine, Node
from sourcebook.publish.site.drawing.machine import draw

def edge(campus, party):
    return Edge(campus, party, ("owner",), None, None, None, None, None)

nodes = [Node("campus", f"c{i}", f"Campus {i}", "operating", 2) for i in range(9)]
nodes += [Node("party", f"p{i}", f"Party {i}", "company", 0) for i in range(5)]
edges = [edge(f"c{i}", f"p{i % 3}") for i in range(6)]  # one large part...
edges += [edge("c6", "p3"), edge("c7", "p3"), edge("c8", "p4")]  # ...and two small ones
empty = Holding("", (), 0.0, (), 0.0, ())
machine = Machine(tuple(nodes), tuple(edges), {}, {}, (), empty)
print(draw(machine, lambda k, i: f"/{k}/{i}", title="t", description="d").svg)
"""


def test_the_drawing_is_the_same_whatever_order_python_hashes_in() -> None:
    """A part of the graph smaller than half of it is laid out in a set's order, unless the
    drawing sorts it: each process hashes strings differently."""
    import os
    import subprocess
    import sys

    drawn = set()
    for seed in ("1", "2", "3", "4"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", DRAW_IN_A_PROCESS], env=env, capture_output=True, check=True
        )
        drawn.add(done.stdout)
    assert len(drawn) == 1
