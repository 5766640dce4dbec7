"""A campus's stage, power and chips are one meaning each, shown alike on every page.

A small record made to tempt every page into its own reading: a campus built in phases,
whose second phase is only planned after the first runs; chips counted twice under two
names and two dates; and a power figure a correction retires.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from selectolax.lexbor import LexborHTMLParser as HTMLParser
from site_fixtures import build

from sourcebook import derive
from sourcebook.pipeline import check

CAMPUS = """\
---
title: Twin Halls
location: Somewhere
country: US
parties:
  - party: builder
    roles: [owner]
    source: story
    quote: Twin Halls is the builder's
figures:
  - metric: it-power
    value: 100
    unit: MW
    status: operating
    phase: "1"
    as_of: 2025-01
    grade: reported
    source: story
    quote: the first hall runs 100 MW
  - metric: it-power
    value: 1
    unit: GW
    status: planned
    phase: "2"
    as_of: 2025-06
    grade: reported
    source: later
    quote: a second hall of 1 GW is planned
  - id: twin-halls-400
    metric: it-power
    value: 400
    unit: MW
    status: operating
    phase: "1"
    as_of: 2025-05
    grade: reported
    source: later
    quote: it now runs 400 MW
  - metric: chips
    value: 50000
    unit: chips
    chip: H100
    status: operating
    as_of: 2025-01
    grade: reported
    source: story
    quote: 50,000 H100s
  - metric: chips
    value: 80000
    unit: chips
    chip: Hopper GPUs
    status: operating
    as_of: 2025-06
    grade: reported
    source: later
    quote: 80,000 Hopper GPUs in all
---
"""
SOURCES = {
    "sources/story.md": "---\ntitle: A story\ncategory: press\ndate: 2025-02-01\n---\n",
    "sources/later.md": "---\ntitle: A later story\ncategory: press\ndate: 2025-07-01\n---\n",
}
PARTY = "---\ntitle: The Builder\ntype: company\n---\n"
CORRECTION = """\
---
title: Twin Halls never ran 400 MW
scope: source
date: 2025-10-01
source: later
corrects: [twin-halls-400]
wrong: It said 400 MW.
right: It ran 100 MW.
---
"""
TOTAL = """\
---
title: Total evidenced operating power
row: 2
description: Power the evidence shows running.
query: |
  SELECT SUM(watts) / 1e6 AS value, 'MW' AS unit, group_concat(figure, ',') AS figure
  FROM campus_power HAVING COUNT(*) > 0
---
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from conftest import CHAPTER, SETTINGS

    root = tmp_path_factory.mktemp("agrees") / "record"
    files = {
        "chapters/chapter-1.md": CHAPTER,
        "campuses/twin-halls.md": CAMPUS,
        "parties/builder.md": PARTY,
        "corrections/four-hundred.md": CORRECTION,
        "indicators/total.md": TOTAL,
        **SOURCES,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    (root / "sourcebook.toml").write_text(SETTINGS, encoding="utf-8")
    return build(root, root.parent / "site") / "vol1"


def shown(site: Path) -> dict[tuple[str, str], set[float]]:
    found: dict[tuple[str, str], set[float]] = defaultdict(set)
    for page in site.rglob("*.html"):
        for data in HTMLParser(page.read_text(encoding="utf-8")).css("data[data-campus]"):
            key = (data.attributes["data-campus"], data.attributes["data-measure"])
            found[key].add(float(data.attributes["value"]))
    return found


def test_each_page_shows_the_one_meaning(site: Path) -> None:
    numbers = shown(site)
    # The corrected 400 MW counts nowhere; the planned second phase is not running power;
    # the chips are the latest count, not 50,000 + 80,000.
    assert numbers[("twin-halls", "power")] == {100e6}
    assert numbers[("twin-halls", "chips")] == {80_000}


def test_a_later_phase_planned_never_moves_a_running_campus_back(site: Path) -> None:
    page = HTMLParser((site / "ledger" / "twin-halls" / "index.html").read_text("utf-8"))
    assert page.css_first(".campus-state .stage").text() == "operating"
    ledger = HTMLParser((site / "ledger" / "index.html").read_text("utf-8"))
    assert ledger.css_first("td[data-label=Stage] .stage").text() == "operating"


def test_the_scorecard_counts_what_the_pages_show(site: Path) -> None:
    root = site.parent.parent / "record"
    with derive.open_image(check(root).image) as db:
        (row,) = derive.scorecard(db)
        (state,) = derive.campus_states(db).values()
    assert row.answer.shown == "100 MW" and state.power is not None
    assert state.power.value == 100e6 and state.stage == "operating"
    assert [s.stage for s in state.steps] == ["operating"]


UNTRUSTED = """\
---
title: Doubted Site
location: Elsewhere
country: US
figures:
  - metric: it-power
    value: 50
    unit: MW
    status: operating
    as_of: 2025-01
    grade: reported
    source: story
    quote: it runs 50 MW
  - id: doubted-site-900
    metric: it-power
    value: 900
    unit: MW
    status: operating
    as_of: 2025-03
    grade: reported
    source: story
    quote: it runs 900 MW
    unreliable: The story counts the planned halls as running.
---
"""


def test_a_figure_marked_unreliable_counts_nowhere_and_is_shown_struck(tmp_path: Path) -> None:
    from conftest import CHAPTER, SETTINGS

    root = tmp_path / "record"
    files = {
        "chapters/chapter-1.md": CHAPTER,
        "campuses/doubted-site.md": UNTRUSTED,
        "indicators/total.md": TOTAL,
        **SOURCES,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    (root / "sourcebook.toml").write_text(SETTINGS, encoding="utf-8")
    site = build(root, tmp_path / "site") / "vol1"
    assert shown(site)[("doubted-site", "power")] == {50e6}
    page = HTMLParser((site / "ledger" / "doubted-site" / "index.html").read_text("utf-8"))
    struck = page.css_first("#figure-doubted-site-900")
    assert "retired" in struck.attributes["class"] and struck.css_first("del").text() == "900 MW"
    assert "planned halls as running" in struck.css_first(".retired-note").text()
