"""The bundled record's computed numbers hold to its corrections and to its clocks, as a
reader finds them on the built site: a corrected figure counts nowhere, the past is shown
with what was known then, and a campus's number is the same on every page that shows it."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from collections import defaultdict
from datetime import date
from pathlib import Path

import pytest
from conftest import BUNDLED
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser as HTMLParser

from sourcebook import derive
from sourcebook.diagnostics import Diagnostics
from sourcebook.incremental import Memos
from sourcebook.model.base import day_end
from sourcebook.model.known import known
from sourcebook.pipeline import build, check
from sourcebook.read import read_record

CORRECTED = "colossus-1-300mw-in-122-days"
"""Sfbwmag's 300 MW for Colossus 1, which the correction sfbwmag-colossus-300mw retires."""


def built(out: Path, *extra: str) -> Path:
    result = subprocess.run(
        [sys.executable, "-m", "sourcebook", "build", str(BUNDLED), "--out", str(out), "-q"]
        + [*extra],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return out / "vol1"


def html(path: Path) -> HTMLParser:
    return HTMLParser(path.read_text(encoding="utf-8"))


def words(node) -> str:  # type: ignore[no-untyped-def]
    return " ".join(node.text(separator=" ").split())


@pytest.fixture(scope="module")
def site(bundled_site: Path) -> Path:
    return bundled_site / "vol1"


@pytest.fixture(scope="module")
def clock():  # type: ignore[no-untyped-def]
    record = read_record(BUNDLED, Diagnostics())
    assert record is not None
    return known(record)


def scorecard_figures(site: Path) -> dict[int, list[str]]:
    """Each scorecard row's number → the ids of the figures its answer rests on."""
    data = json.loads((site / "api" / "scorecard.json").read_text(encoding="utf-8"))
    rows = data["rows"] if "rows" in data else data["indicators"]
    found: dict[int, list[str]] = {}
    for row in rows:
        computed = row.get("computed") or {}
        answer = computed.get("answer") or {}
        found[row["row"]] = [f["id"] for f in answer.get("figures", [])]
    return found


# 1. Corrections bind.


def test_the_corrected_figure_counts_in_no_scorecard_row(site: Path) -> None:
    rows = scorecard_figures(site)
    assert rows, "the scorecard's twin names its rows' figures"
    assert all(CORRECTED not in ids for ids in rows.values())
    page = html(site / "scorecard" / "index.html")
    for row in page.css("section.row, article.row, [id^=row-]"):
        assert "300 MW" not in words(row.css_first(".answer") or row), row.attributes.get("id")


def test_the_corrected_figure_counts_on_no_page_that_sums_or_draws(site: Path) -> None:
    machine = json.loads((site / "api" / "machine.json").read_text(encoding="utf-8"))
    assert CORRECTED not in json.dumps(machine)
    observatory = (site / "observatory" / "index.html").read_text(encoding="utf-8")
    assert CORRECTED not in observatory
    for table in (site / "observatory").glob("*.csv"):
        with table.open(encoding="utf-8") as file:
            assert all(CORRECTED not in ",".join(row) for row in csv.reader(file)), table.name
    previews = json.loads((site / "previews.json").read_text(encoding="utf-8"))
    assert "300 MW" not in previews["/vol1/ledger/colossus-1"][2]


def test_the_corrected_figure_is_listed_struck_and_its_correction_says_so(site: Path) -> None:
    campus = html(site / "ledger" / "colossus-1" / "index.html")
    row = campus.css_first(f"#figure-{CORRECTED}")
    assert "retired" in row.attributes["class"]
    assert words(row.css_first("del")) == "300 MW"
    link = row.css_first(".retired-note a")
    assert link.attributes["href"] == "/vol1/corrections/sources#sfbwmag-colossus-300mw"
    corrections = html(site / "corrections" / "sources" / "index.html")
    says = corrections.css_first("#sfbwmag-colossus-300mw .corrects")
    assert "300 MW at Colossus 1" in words(says) and "counts nowhere" in words(says)
    assert says.css_first("a").attributes["href"] == f"/vol1/ledger/colossus-1#figure-{CORRECTED}"


CORRECTABLE = """\
---
title: Big Site
location: Somewhere
country: US
figures:
  - id: big-site-900
    metric: it-power
    value: 900
    unit: MW
    status: operating
    as_of: 2025-03
    grade: reported
    source: early
    quote: it runs 900 MW
  - id: big-site-100
    metric: it-power
    value: 100
    unit: MW
    status: operating
    as_of: 2025-01
    grade: reported
    source: early
    quote: it ran 100 MW
---
"""
LARGEST = """\
---
title: Largest site
row: 11
description: The largest site the evidence shows running.
query: |
  SELECT watts / 1e6 AS value, 'MW' AS unit, figure FROM campus_power
  ORDER BY watts DESC LIMIT 1
---
"""


def test_before_its_correction_a_figure_counts_as_it_did_then(make_record, tmp_path) -> None:
    root = make_record(
        {
            "campuses/big-site.md": CORRECTABLE,
            "indicators/largest.md": LARGEST,
            "sources/early.md": "---\ntitle: Early\ncategory: press\ndate: 2025-04-01\n---\n",
            "corrections/nine-hundred.md": (
                "---\ntitle: Not 900 MW\nscope: source\ndate: 2026-02-01\nsource: early\n"
                "corrects: [big-site-900]\nwrong: It said 900 MW.\nright: It was 100 MW.\n---\n"
            ),
        }
    )

    def row_11(day: date | None):  # type: ignore[no-untyped-def]
        checked = check(root, as_of=day)
        assert checked.ok, [d.format() for d in checked.diagnostics.errors]
        with derive.open_image(checked.image) as db:
            (row,) = derive.scorecard(db)
        return row

    before = row_11(date(2026, 1, 31))
    assert before.answer.shown == "900 MW"
    after = row_11(None)
    assert after.answer.shown == "100 MW"
    assert [(p.day, p.answer.shown) for p in after.history] == [
        ("2025-04", "900 MW"),
        ("2026-02", "100 MW"),
    ]


# 2. The past does not leak the future.


def test_the_scorecard_as_of_mid_2024_cites_nothing_known_later(tmp_path, clock) -> None:
    day = date(2024, 6, 30)
    site = built(tmp_path / "site", "--as-of", day.isoformat())
    for row, ids in scorecard_figures(site).items():
        late = [i for i in ids if clock.figures[i] > day]
        assert late == [], f"row {row} cites {late}"
    page = words(html(site / "scorecard" / "index.html").css_first("main"))
    assert "as of 30 June 2024" in page
    assert "Hyperion" not in page and "5 GW" not in page and "H100e" not in page.split("row")[0]


def test_every_history_point_rests_on_what_was_known_by_its_month(site: Path, clock) -> None:
    data = json.loads((site / "api" / "scorecard.json").read_text(encoding="utf-8"))
    rows = data["rows"] if "rows" in data else data["indicators"]
    seen = 0
    for row in rows:
        for point in (row.get("computed") or {}).get("history", []):
            month_end = day_end(point["day"])
            for figure in point["figures"]:
                seen += 1
                assert clock.figures[figure] <= month_end, (row["row"], point["day"], figure)
    assert seen > 0


# 3. One number for a campus, whatever page shows it.


def shown_numbers(site: Path) -> dict[tuple[str, str], set[float]]:
    """(campus, power|chips) → every value a page marks as that campus's, in base units:
    the `<data>` of every HTML page, each campus's JSON twin, and the previews' words."""
    found: dict[tuple[str, str], set[float]] = defaultdict(set)
    for page in site.rglob("*.html"):
        for data in html(page).css("data[data-campus][data-measure]"):
            key = (data.attributes["data-campus"], data.attributes["data-measure"])
            found[key].add(float(data.attributes["value"]))
    for twin in (site / "api" / "ledger").glob("*.json"):
        state = json.loads(twin.read_text(encoding="utf-8"))["entity"]["computed"]
        for measure in ("power", "chips"):
            if state[measure] is not None:
                found[(state["campus"], measure)].add(float(state[measure]["value"]))
    previews = json.loads((site / "previews.json").read_text(encoding="utf-8"))
    for url, (_kind, _title, line, *_names) in previews.items():
        said = re.search(r"evidenced power ([\d,.]+) MW", line)
        if url.startswith("/vol1/ledger/") and said:
            campus = url.rsplit("/", 1)[1]
            found[(campus, "power")].add(float(said[1].replace(",", "")) * 1e6)
    return found


def test_every_page_shows_one_number_for_a_campus(site: Path) -> None:
    shown = shown_numbers(site)
    assert ("colossus-1", "power") in shown and ("colossus-1", "chips") in shown
    differ = {key: values for key, values in shown.items() if len(values) > 1}
    assert differ == {}
    with derive.open_image(check(BUNDLED).image) as db:
        states = derive.campus_states(db)
    for (campus, measure), values in shown.items():
        carried = getattr(states[campus], measure)
        assert carried is not None and values == {carried.value}, (campus, measure)
    assert shown[("colossus-1", "power")] == {150e6}
    assert shown[("colossus-1", "chips")] == {200_000}


FIGURE_IN_TWIN = re.compile(r'"(campus:[a-z0-9-]+:\d+|party:[a-z0-9-]+:\d+)"')


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(day=st.dates(date(2024, 6, 1), date(2026, 11, 7)))
def test_no_page_of_an_as_of_site_shows_what_was_not_known_by_its_day(
    tmp_path_factory, clock, day: date
) -> None:
    """Built as of a day, the bundled site names no figure, source or correction that the
    record's own clock dates later: not on a page, not in a twin."""
    out = tmp_path_factory.mktemp("as-of") / "site"
    done = build(BUNDLED, out, as_of=day, search=False, kept=Memos.in_memory(), jobs=1)
    assert done.site is not None
    later = {f for f, known_day in clock.figures.items() if known_day > day}
    withheld = {key for key, known_day in clock.entities.items() if known_day > day}
    seen: set[str] = set()
    for twin in (out / "vol1" / "api").rglob("*.json"):
        text = twin.read_text(encoding="utf-8")
        seen.update(FIGURE_IN_TWIN.findall(text))
        data = json.loads(text)
        entity = data.get("entity") or {}
        assert (entity.get("kind"), entity.get("id")) not in withheld, twin
    assert seen.isdisjoint(later), sorted(seen & later)[:5]
    pages = {p.relative_to(out / "vol1").parent.as_posix() for p in (out / "vol1").rglob("*.html")}
    folders = {"source": None, "campus": "ledger", "party": "parties", "person": "people"}
    for kind, entity_id in withheld:
        if folders.get(kind):
            assert f"{folders[kind]}/{entity_id}" not in pages, (kind, entity_id)
