"""What derive computes, as a reader finds it on the built site: scorecard values with their
evidence and history, test verdicts, campus timelines with charts, conflicts, and the
Hyperion scenario page."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import BUNDLED
from selectolax.lexbor import LexborHTMLParser as HTMLParser

from sourcebook import derive, pipeline


def built(record: Path, out: Path, *extra: str) -> Path:
    result = subprocess.run(
        [sys.executable, "-m", "sourcebook", "build", str(record), "--out", str(out), "-q", *extra],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return out / "vol1"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return built(BUNDLED, tmp_path_factory.mktemp("site"))


def doc(site: Path, name: str) -> HTMLParser:
    return HTMLParser((site / name).read_text(encoding="utf-8"))


def words(node) -> str:
    return " ".join(node.text(separator=" ").split())


def test_row_11_shows_the_value_the_figures_give_with_its_evidence(site: Path) -> None:
    row = doc(site, "scorecard/index.html").css_first("#row-11")
    answer = row.css_first(".answer")
    assert words(answer.css_first(".value")) == "500 MW"
    assert answer.css_first(".at a").attributes["href"] == "/vol1/ledger/prometheus"
    evidence = row.css_first(".evidence")
    assert evidence.css_first(".grade").text() == "reported"
    assert "quote verified in the Library" in words(evidence)
    source = [
        a.attributes["href"] for a in evidence.css("a") if "/sources/" in a.attributes["href"]
    ]
    assert source and source[0].startswith("/vol1/sources/")


def test_a_row_shows_how_its_value_moved(site: Path) -> None:
    history = doc(site, "scorecard/index.html").css_first("#row-11 details.history")
    rows = [[words(c) for c in tr.css("td")] for tr in history.css("tbody tr")]
    assert rows[0][1] == "500 MW" and rows[0][2] == "Prometheus"
    assert rows[-1][1:3] == ["150 MW", "Colossus 1"]


def test_every_row_shows_what_derive_computed(site: Path) -> None:
    checked = pipeline.check(BUNDLED)
    rows = pipeline.derive_checked(checked).rows
    page = doc(site, "scorecard/index.html")
    for row in rows:
        shown = page.css_first(f"#row-{row.row} .answer .value")
        assert shown is not None and words(shown) == row.answer.shown


def test_tests_show_their_verdict_and_why(site: Path) -> None:
    listing = doc(site, "tests/index.html")
    verdicts = [words(v) for v in listing.css(".verdict")]
    assert len(verdicts) == 3
    assert all(v.startswith("Pending as of 8 November 2026") for v in verdicts)
    page = doc(site, "tests/h100-price-above-trough/index.html")
    verdict = page.css_first(".verdict")
    assert "lowest 2026 price so far: $2.35" in words(verdict)
    assert "verdict-pending" in verdict.attributes["class"]


def test_a_campus_page_has_a_table_and_a_chart_per_metric(site: Path) -> None:
    page = doc(site, "ledger/colossus-1/index.html")
    timelines = {words(t.css_first("h3")): t for t in page.css("section.timeline")}
    assert list(timelines)[:2] == ["Facility power", "Grid supply"]
    chips = timelines["Chips"].css_first("svg.chart")
    assert chips is not None and chips.attributes["role"] == "img"
    assert words(chips.css_first("title")) == "Chips over time"
    assert len(chips.css("circle")) == 3
    # The corrected 300 MW is listed, struck through, and drawn nowhere: what counts of
    # facility power is one plan, on one day, so there is a table and nothing to draw.
    facility = timelines["Facility power"]
    assert facility.css_first("svg") is None
    (struck,) = facility.css("tr.retired")
    assert words(struck.css_first("del")) == "300 MW"
    assert "corrected by" in words(struck) and struck.css_first("a[href*='corrections']")
    assert timelines["Grid supply"].css_first("svg") is None


def test_the_scenario_page_computes_each_future(site: Path) -> None:
    home = doc(site, "index.html")
    nav = {words(a): a.attributes["href"] for a in home.css("nav.menu-bar a")}
    assert nav["One campus, four futures"] == "/vol1/hyperion"
    page = doc(site, "hyperion/index.html")
    assert words(page.css_first("h1")) == "Hyperion: one campus, four futures"
    with derive.open_image(pipeline.check(BUNDLED).image) as db:
        result = derive.scenario(db, "hyperion")
    tables = page.css("table.years")
    assert len(tables) == len(result.futures) == 4
    first = result.futures[0]
    last_row = [words(c) for c in tables[0].css("tbody tr")[-1].css("th, td")]
    assert last_row[0] == str(result.end)
    assert last_row[1] == f"{first.years[-1].power_gw:g} GW"
    assert last_row[5] == "$60 billion"
    assert len(page.css("svg.chart")) == 2
    sources = page.css("table.parameters a")
    assert len(sources) == len(result.parameters)


def test_as_of_builds_the_scorecard_as_it_stood(tmp_path: Path) -> None:
    site = built(BUNDLED, tmp_path / "site", "--as-of", "2025-12-31")
    row = doc(site, "scorecard/index.html").css_first("#row-11")
    # Of the figures known by then: Colossus 1's grid supply, which Tom's Hardware's page,
    # undated, says it wrote in 2025; the other sites' power is known only later.
    assert words(row.css_first(".answer .value")) == "150 MW"
    assert "Colossus 1" in words(row.css_first(".answer"))
    assert "as of 31 December 2025" in words(doc(site, "tests/index.html").css_first(".verdict"))


def test_a_conflict_is_shown_on_the_campus_page_with_both_sources(tmp_path: Path) -> None:
    record = tmp_path / "record"
    shutil.copytree(BUNDLED, record, ignore=shutil.ignore_patterns("_site", ".sourcebook-cache"))
    campus = record / "campuses" / "colossus-2.md"
    text = campus.read_text(encoding="utf-8")
    extra = (
        "figures:\n"
        "  - metric: it-power\n    value: 900\n    unit: MW\n    status: operating\n"
        "    as_of: 2025-09\n    grade: claimed\n    source: sa-essay\n"
        "  - metric: it-power\n    value: 50\n    unit: MW\n    status: operating\n"
        "    as_of: 2025-09\n    grade: claimed\n    source: epoch-largest-data-center-compute\n"
    )
    assert "\nfigures:\n" in text
    campus.write_text(text.replace("\nfigures:\n", "\n" + extra, 1), encoding="utf-8")
    site = built(record, tmp_path / "site")
    section = doc(site, "ledger/colossus-2/index.html").css_first("section.conflicts")
    assert section is not None
    said = words(section)
    assert "IT power, operating, as of September 2025" in said
    assert "900 MW" in said and "50 MW" in said
    links = {a.attributes["href"] for a in section.css("a")}
    assert "/vol1/sources/other#sa-essay" in links
    assert len(links) >= 2
