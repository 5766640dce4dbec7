"""The bundled record's charts as a reader meets them on the built site, held to the record's
own meaning: each drawing's marks and text against the chart's data, and against the views
that define a campus's stage, power and chips (docs/database.md)."""

from __future__ import annotations

import json
import re
import sqlite3
from collections import defaultdict
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest
from drawn_svg import Drawn, Mark, read, svgs
from site_fixtures import page

from sourcebook.compile import compile_checked
from sourcebook.derive import open_record
from sourcebook.derive.campuses import campus_order
from sourcebook.model.units import shown
from sourcebook.pipeline import check
from sourcebook.publish.site.drawing.palette import (
    CAMPUS_COLOURS,
    STAGE_COLOURS,
    VERDICT_COLOURS,
    Palette,
)
from sourcebook.publish.site.drawing.vega import NARROW, WIDE

BUNDLED = Path(__file__).resolve().parent.parent / "examples" / "compute-race"
STAGE_RANK = {stage: rank for rank, stage in enumerate(STAGE_COLOURS)}
PHONE_MEASURE = 328
"""A 360 px screen less the page's margins: a narrow drawing shown at its own size fits."""
ISO_DAY = re.compile(r"\b\d{4}-\d{2}(-\d{2})?\b")
FIGURE_ID = re.compile(r"\b(campus|party):[\w-]+:\d+\b")


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_checked(check(BUNDLED), tmp_path_factory.mktemp("views") / "record.db")


@pytest.fixture(scope="module")
def db(compiled: Path) -> Iterator[sqlite3.Connection]:
    """The bundled record compiled, for its views."""
    connection = sqlite3.connect(compiled)
    connection.row_factory = sqlite3.Row
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def html(bundled_site: Path) -> str:
    return page(bundled_site, "/vol1/observatory")


@pytest.fixture(scope="module")
def twin(bundled_site: Path) -> dict[str, Any]:
    data = (bundled_site / "vol1" / "api" / "observatory.json").read_text(encoding="utf-8")
    return {c["id"]: c for c in json.loads(data)["charts"]}


def drawings(html: str, chart: str) -> dict[str, Drawn]:
    found = {layout: read(svg) for layout, svg in svgs(html, chart).items()}
    assert set(found) == {"wide", "narrow"}, chart
    return found


def record_day(db: sqlite3.Connection) -> str:
    return db.execute("SELECT day FROM record_day").fetchone()[0]


def said(day: str) -> str:
    """A day as Vega says it to a screen reader: 'Nov 08, 2026'."""
    return date.fromisoformat(day).strftime("%b %d, %Y")


def titles(db: sqlite3.Connection) -> dict[str, str]:
    return {r["id"]: r["title"] for r in db.execute("SELECT id, title FROM campuses")}


def time_axis_ends(drawn: Drawn) -> date:
    (axis,) = [a for a in drawn.axes if a.startswith("X-axis") and "time scale" in a]
    last = re.search(r"to \w+, (\d{2} \w+ \d{4})", axis)
    assert last, axis
    return datetime.strptime(last[1], "%d %B %Y").date()


def by_campus(marks: list[Mark], key: str = "campus") -> dict[str, list[Mark]]:
    found: dict[str, list[Mark]] = defaultdict(list)
    for mark in marks:
        found[mark.label[key]].append(mark)
    return found


def test_the_timeline_moves_each_campus_only_forward_to_the_record_day(
    html: str, db: sqlite3.Connection
) -> None:
    names = titles(db)
    steps = {
        (names[r["campus"]], r["stage"], said(r["day"]))
        for r in db.execute("SELECT campus, stage, day FROM campus_stages")
    }
    for layout, drawn in drawings(html, "campus-timeline").items():
        assert time_axis_ends(drawn) == date.fromisoformat(record_day(db)), layout
        (plot,) = drawn.plots
        bars = by_campus(drawn.of("bar"))
        assert set(bars) == set(names.values()), layout
        shown = set()
        for campus, marks in bars.items():
            marks.sort(key=lambda m: m.box[0])
            ranks = [STAGE_RANK[m.label["Stage"]] for m in marks]
            assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks), (layout, campus)
            for before, after in zip(marks, marks[1:], strict=False):
                assert after.box[0] == pytest.approx(before.box[2], abs=0.5), (layout, campus)
            assert marks[-1].box[2] == pytest.approx(plot[2], abs=0.5), (layout, campus)
            for mark in marks:
                assert (
                    mark.fill
                    == drawn.legend[mark.label["Stage"]]
                    == STAGE_COLOURS[mark.label["Stage"]]
                )
                shown.add((campus, mark.label["Stage"], mark.label["since"]))
        assert steps <= shown, layout
    colossus = {
        m.label["Stage"]
        for m in by_campus(drawings(html, "campus-timeline")["wide"].of("bar"))["Colossus 1"]
    }
    assert colossus == {"operating"}


def test_the_chips_bars_are_each_campus_chips_running_counted_once(
    html: str, db: sqlite3.Connection
) -> None:
    names = titles(db)
    running = {
        names[r["campus"]]: r["chips"] for r in db.execute("SELECT campus, chips FROM campus_chips")
    }
    assert running["Colossus 1"] == 200_000
    for layout, drawn in drawings(html, "chips").items():
        bars = {m.label["campus"]: float(m.label["Chips running"]) for m in drawn.of("bar")}
        assert bars == running, layout
        assert len(drawn.of("bar")) == len(running)


def test_the_power_over_time_counts_only_the_figures_that_count_to_the_record_day(
    html: str, twin: dict[str, Any], db: sqlite3.Connection
) -> None:
    data = twin["power-over-time"]["computed"]
    rows = [dict(zip(data["columns"], row, strict=True)) for row in data["rows"]]
    retired = {r[0] for r in db.execute("SELECT id FROM retired_figures")}
    assert retired and not retired & {r["figure"] for r in rows}
    day = record_day(db)
    last = {r["campus"]: r["mw"] for r in rows if r["day"] == day}
    names = titles(db)
    power = {names[r["campus"]]: r["watts"] / 1e6 for r in db.execute("SELECT * FROM campus_power")}
    assert last == power
    headline = re.search(r'id="overview-operating">([\d,.]+) MW<', html)
    assert headline and float(headline[1].replace(",", "")) == pytest.approx(sum(power.values()))
    for layout, drawn in drawings(html, "power-over-time").items():
        assert time_axis_ends(drawn) == date.fromisoformat(day), layout
        (plot,) = drawn.plots
        top = re.search(r"values from 0 to ([\d,]+)", next(a for a in drawn.axes if "Y-axis" in a))
        assert top
        per_unit = (plot[3] - plot[1]) / float(top[1].replace(",", ""))
        edge = [y for m in drawn.of("area mark") for x, y in m.points if abs(x - plot[2]) < 0.5]
        stacked = (plot[3] - min(edge)) / per_unit
        assert stacked == pytest.approx(sum(power.values()), rel=0.01), layout


def test_the_scorecard_panels_are_in_row_order_with_units_on_one_time_axis(
    html: str, bundled_site: Path, db: sqlite3.Connection
) -> None:
    scorecard = json.loads((bundled_site / "vol1" / "api" / "scorecard.json").read_text())
    numeric = [
        r["computed"]
        for r in scorecard["rows"]
        if isinstance((r["computed"]["answer"] or {}).get("value"), (int, float))
    ]
    expected = [f"{r['row']}. {r['title']} ({r['answer']['unit']})" for r in numeric]
    assert [r["row"] for r in numeric] == sorted(r["row"] for r in numeric)
    for layout, drawn in drawings(html, "scorecard-over-time").items():
        headers = [t for t in drawn.texts if t.visible and re.match(r"\d+\. ", t.text)]
        headers.sort(key=lambda t: t.y)
        assert [" ".join(t.text.split()) for t in headers] == expected, layout
        assert time_axis_ends(drawn) == date.fromisoformat(record_day(db)), layout
        assert len(drawn.plots) == len(numeric)
        points = drawn.of("point")
        for point in points:
            x, y = (point.box[0] + point.box[2]) / 2, (point.box[1] + point.box[3]) / 2
            assert any(p[0] - 0.5 <= x <= p[2] + 0.5 and p[1] - 0.5 <= y <= p[3] + 0.5
                       for p in drawn.plots), (layout, point.label)  # fmt: skip
        days = {
            (datetime.strptime(p.label["Read on"], "%b %d, %Y").date(), p.box[0]) for p in points
        }
        (first, x0), (last, x1) = min(days), max(days)
        for day, x in days:
            expected_x = x0 + (x1 - x0) * (day - first).days / (last - first).days
            assert x == pytest.approx(expected_x, abs=1), (layout, day)
        right = max(p[2] for p in drawn.plots)
        lines = drawn.of("line mark")
        assert len(lines) == len(numeric)
        assert all(line.box[2] == pytest.approx(right, abs=0.5) for line in lines), layout
        last_points = {
            p.label["Row"]: p.label["Value"] for p in sorted(points, key=lambda p: p.box[0])
        }
        for row in numeric:
            answer = row["answer"]
            assert last_points[str(row["row"])] == shown(answer["value"], answer["unit"]), layout


def test_the_tests_chart_shows_each_verdict_as_a_band_to_the_record_day(
    html: str, db: sqlite3.Connection, twin: dict[str, Any]
) -> None:
    tests = {r[0] for r in db.execute("SELECT title FROM tests WHERE query != ''")}
    data = twin["verdicts-by-month"]["computed"]
    rows = [dict(zip(data["columns"], row, strict=True)) for row in data["rows"]]
    for test in tests:
        mine = [r for r in rows if r["test"] == test]
        assert mine and mine[-1]["until"] == record_day(db)
        assert all(a["verdict"] != b["verdict"] for a, b in zip(mine, mine[1:], strict=False))
    for layout, drawn in drawings(html, "verdicts-by-month").items():
        bands = by_campus(drawn.of("bar"), key="Test")
        assert set(bands) == tests, layout
        right = max(p[2] for p in drawn.plots)
        for marks in bands.values():
            assert max(m.box[2] for m in marks) == pytest.approx(right, abs=0.5)
            assert all(m.fill == VERDICT_COLOURS[m.label["Verdict"]] for m in marks)
        headers = {" ".join(t.text.split()) for t in drawn.texts if t.visible}
        assert tests <= headers, layout


def test_a_verdict_that_moves_is_a_band_of_each_colour(twin: dict[str, Any]) -> None:
    query = twin["verdicts-by-month"]["query"]
    with sqlite3.connect(":memory:") as db:
        db.execute("CREATE TABLE verdict_history (test, title, day, outcome)")
        db.execute("CREATE VIEW record_day AS SELECT '2026-11-08' AS day")
        db.executemany(
            "INSERT INTO verdict_history VALUES ('t', 'A test', ?, ?)",
            [
                ("2025-05-31", "pending"),
                ("2025-06-30", "pending"),
                ("2025-07-31", "passed"),
                ("2026-11-08", "passed"),
            ],  # fmt: skip
        )
        rows = db.execute(query).fetchall()
    assert rows == [
        ("A test", "pending", "2025-05-31", "2025-07-31"),
        ("A test", "passed", "2025-07-31", "2026-11-08"),
    ]


def test_the_headline_and_the_tables_name_their_evidence_never_by_id(
    html: str, bundled_site: Path, db: sqlite3.Connection
) -> None:
    note = html.split('class="overview-note">', 1)[1].split("</dd>", 1)[0]
    found = re.findall(r'<a href="([^"]+)">(.*?)</a>', note)
    links = [(href, re.sub(r"<[^>]+>", "", text)) for href, text in found]  # values as <data>
    names = set(titles(db).values())
    power = {r["figure"] for r in db.execute("SELECT figure FROM campus_power")}
    assert len(links) == len(power) and not FIGURE_ID.search(re.sub(r"<[^>]+>", "", note))
    for href, text in links:
        name, _, rest = text.partition(", ")
        assert name in names and " as of " in rest, text
        url, _, anchor = href.partition("#")
        assert f'id="{anchor}"' in page(bundled_site, url), href
    tables = re.findall(r"<table class=\"chart-table\">.*?</table>", html, re.S)
    assert tables
    for table in tables:
        cells = re.findall(r"<td[^>]*>(.*?)</td>", table, re.S)
        shown = [re.sub(r"<[^>]+>", "", c) for c in cells]
        assert not any(FIGURE_ID.search(c) or ISO_DAY.search(c) for c in shown), shown
    for svg in re.findall(r"<svg [^>]*chart vega.*?</svg>", html, re.S):
        assert not FIGURE_ID.search(svg)


def test_every_campus_has_one_colour_in_every_chart_and_no_other_palette_uses_it(
    html: str, twin: dict[str, Any], db: sqlite3.Connection
) -> None:
    names = set(titles(db).values())
    seen: dict[str, set[str]] = defaultdict(set)
    others: set[str] = set()
    for chart in twin:
        for drawn in drawings(html, chart).values():
            for mark in drawn.marks:
                campus = [v for v in mark.label.values() if v in names]
                coloured_by_campus = mark.fill in CAMPUS_COLOURS
                if campus and coloured_by_campus:
                    seen[campus[0]].add(mark.fill)
                elif mark.fill and mark.role in ("bar", "area mark", "point"):
                    others.add(mark.fill)
            for label, fill in drawn.legend.items():
                (seen[label] if label in names else others).add(fill)
    assert {"Colossus 1", "Colossus 2", "Prometheus", "Project Rainier"} <= set(seen)
    assert all(len(fills) == 1 for fills in seen.values()), dict(seen)
    colours = [next(iter(f)) for f in seen.values()]
    assert len(set(colours)) == len(colours)
    assert not others & set(CAMPUS_COLOURS), others & set(CAMPUS_COLOURS)
    assert set(STAGE_COLOURS.values()) & others and set(VERDICT_COLOURS.values()) & others


def test_every_chart_is_drawn_for_the_page_and_for_a_phone_in_months_a_reader_reads(
    html: str, twin: dict[str, Any]
) -> None:
    for chart in twin:
        both = drawings(html, chart)
        assert both["wide"].width <= WIDE and both["narrow"].width <= PHONE_MEASURE, chart
        assert both["narrow"].width <= NARROW + 8
        for layout, drawn in both.items():
            shown = [t for t in drawn.texts if t.visible]
            assert shown and all(t.size >= 11 for t in drawn.texts), (chart, layout)
            assert not any(ISO_DAY.search(t.text) for t in shown), (chart, layout)
            if any("time scale" in a for a in drawn.axes):
                months = [t for t in shown if re.fullmatch(r"[A-Z][a-z]{2} \d{4}", t.text)]
                assert len(months) >= 2, (chart, layout)


def test_a_build_as_of_an_earlier_day_colours_each_campus_as_the_full_build(
    compiled: Path,
) -> None:
    with open_record(compiled) as whole:
        order = campus_order(whole)
        for day in (date(2025, 6, 30), date(2025, 10, 31), date(2026, 1, 15)):
            with whole.as_of(day) as then:
                earlier = campus_order(then)
            assert 0 < len(earlier) < len(order) and order[: len(earlier)] == earlier, day
            full, cut = Palette.of(order), Palette.of(earlier)
            assert all(cut.campuses[name] == full.campuses[name] for _, name in earlier)
