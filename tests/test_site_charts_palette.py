"""How the build draws a chart: its palettes (one colour per campus in every chart, others
for stages and verdicts), its two widths, its time zone, and the scorecard's history
given to charts in one unit and carried to the record's day."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from sourcebook.derive.charts import scorecard_lines
from sourcebook.derive.scorecard import Answer, Point, Row
from sourcebook.publish.site.drawing import vega
from sourcebook.publish.site.drawing.palette import (
    CAMPUS_COLOURS,
    OTHER_COLOURS,
    STAGE_COLOURS,
    VERDICT_COLOURS,
    Palette,
)
from sourcebook.publish.site.drawing.vega import NARROW, WIDE, Drawing, full_spec

PAPER = "#fbf9f4"
"""The page's background (site.css `--paper`)."""
CAMPUSES = [(f"c{n}", f"Campus {n}") for n in range(14)]


def colour_of(spec: dict[str, Any], channel: str = "color") -> dict[str, str]:
    scale = spec["encoding"][channel]["scale"]
    return dict(zip(scale["domain"], scale["range"], strict=True))


def bar(field: str, scale: dict[str, Any] | None = None) -> dict[str, Any]:
    colour: dict[str, Any] = {"field": field, "type": "nominal"}
    if scale is not None:
        colour["scale"] = scale
    return {"mark": "bar", "encoding": {"y": {"field": field}, "color": colour}}


def test_campuses_take_colours_in_the_record_order_round_again_past_the_last() -> None:
    palette = Palette.of(CAMPUSES)
    assert [palette.campuses[name] for _, name in CAMPUSES[:3]] == list(CAMPUS_COLOURS[:3])
    assert palette.campuses["c1"] == palette.campuses["Campus 1"]
    assert palette.campuses["Campus 12"] == CAMPUS_COLOURS[0]
    earlier = Palette.of(CAMPUSES[:5])
    assert all(earlier.campuses[n] == palette.campuses[n] for _, n in CAMPUSES[:5])


def test_a_field_of_campus_names_takes_their_colours_in_the_record_order() -> None:
    palette = Palette.of(CAMPUSES)
    rows = [{"campus": "Campus 3"}, {"campus": "Campus 0"}, {"campus": "Campus 3"}]
    drawn = palette.applied(bar("campus"), rows)
    assert colour_of(drawn) == {"Campus 0": CAMPUS_COLOURS[0], "Campus 3": CAMPUS_COLOURS[3]}
    assert list(colour_of(drawn)) == ["Campus 0", "Campus 3"]


def test_stages_and_verdicts_take_their_own_palettes_found_or_asked_for() -> None:
    palette = Palette.of(CAMPUSES)
    stages = palette.applied(bar("stage"), [{"stage": "operating"}, {"stage": "announced"}])
    assert colour_of(stages) == {
        "announced": STAGE_COLOURS["announced"],
        "operating": STAGE_COLOURS["operating"],
    }
    asked = palette.applied(bar("v", {"scheme": "verdicts", "reverse": False}), [{"v": "passed"}])
    assert asked["encoding"]["color"]["scale"] == {
        "reverse": False,
        "domain": ["passed"],
        "range": [VERDICT_COLOURS["passed"]],
    }


def test_an_authors_own_scale_or_other_values_keep_the_default_colours() -> None:
    palette = Palette.of(CAMPUSES)
    own = bar("campus", {"range": ["#000000"]})
    assert palette.applied(own, [{"campus": "Campus 1"}]) == own
    other = bar("grade")
    assert palette.applied(other, [{"grade": "reported"}, {"grade": "Campus 1"}]) == other


def test_a_palette_asked_for_over_a_field_the_spec_makes_is_the_whole_palette() -> None:
    palette = Palette.of(CAMPUSES[:3])
    spec = {"layer": [bar("made", {"scheme": "campuses"})]}
    scale = palette.applied(spec, [{"campus": "Campus 1"}])["layer"][0]["encoding"]["color"]
    assert scale["scale"]["domain"] == ["Campus 0", "Campus 1", "Campus 2"]


def contrast(a: str, b: str) -> float:
    def luminance(colour: str) -> float:
        channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_palettes_share_no_colour_and_each_stands_out_from_the_page() -> None:
    palettes = [
        set(CAMPUS_COLOURS),
        set(STAGE_COLOURS.values()),
        set(VERDICT_COLOURS.values()),
        set(OTHER_COLOURS),
    ]
    assert sum(len(p) for p in palettes) == len(set().union(*palettes))
    assert len(CAMPUS_COLOURS) >= 10
    for colour in set().union(*palettes[:3]):
        assert contrast(colour, PAPER) >= 3, colour


def test_each_chart_is_drawn_at_the_page_width_and_a_phones_its_own_width_a_most() -> None:
    single = {"mark": "bar", "width": 500, "usermeta": {vega.FIT: 10}, "encoding": {}}
    wide = full_spec(single, [], width=WIDE)
    assert wide["width"] == 500 and wide["autosize"] == {"type": "fit-x", "contains": "padding"}
    assert "usermeta" not in wide
    narrow = full_spec(single, [], width=NARROW)
    assert narrow["width"] == NARROW and narrow["config"]["legend"]["orient"] == "bottom"
    facet = full_spec({"facet": {"row": {"field": "a"}}, "spec": {"mark": "bar"}}, [], width=WIDE)
    assert facet["spec"]["width"] == WIDE - vega.AXIS_GUESS and facet["usermeta"] == {
        vega.FIT: WIDE
    }
    assert "autosize" not in facet
    assert "width" not in full_spec({"mark": "bar"}, [])


def test_a_facet_is_drawn_again_narrower_until_it_fits_or_its_labels_are_the_width() -> None:
    drawn: list[int] = []

    def draw(spec: dict[str, Any], labels: int = 110, widest: int = 0) -> str:
        drawn.append(spec["spec"]["width"])
        return f'<svg width="{max(spec["spec"]["width"] + labels, widest)}" height="10"></svg>'

    def facet() -> dict[str, Any]:
        return full_spec({"facet": {"row": {"field": "a"}}, "spec": {"mark": "bar"}}, [], width=320)

    assert vega._fitted(draw, facet()) == '<svg width="320" height="10"></svg>'
    assert drawn == [220, 210]
    drawn.clear()
    vega._fitted(lambda spec: draw(spec, widest=400), facet())
    assert drawn == [220, 140]


def test_a_chart_reads_its_days_alike_in_every_time_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = full_spec(
        {"mark": "point", "encoding": {"x": {"field": "d", "type": "temporal"}}},
        [{"d": "2025-07-01"}, {"d": "2026-01-01"}],
        width=NARROW,
    )
    drawn = []
    for zone in ("America/New_York", "Asia/Tokyo"):
        monkeypatch.setenv("TZ", zone)
        time.tzset()
        drawn.append(Drawing([("a", spec)], None).result()["a"])
    monkeypatch.delenv("TZ")
    time.tzset()
    assert drawn[0] == drawn[1]
    assert "d: Jul 01, 2025" in drawn[0] and "Jul 2025" in re.sub(r"<[^>]+>", " ", drawn[0])


def history_row(points: list[tuple[str, float, str]], now: tuple[float, str] | None) -> Row:
    answer = Answer(*now) if now else None
    history = tuple(Point(day, Answer(value, unit)) for day, value, unit in points)
    return Row("power", 2, "Total power", "", answer, history)


def test_the_scorecard_history_is_in_one_unit_and_carried_to_the_record_day() -> None:
    row = history_row([("2025-06", 800, "MW"), ("2026-02", 1.2, "GW")], (1.2, "GW"))
    lines = scorecard_lines(row, "2026-11-08")
    assert [(line[3], line[4], line[5], line[6], line[7], line[8]) for line in lines] == [
        ("2025-06", "2025-06-30", 0.8, "GW", "800 MW", 1),
        ("2026-02", "2026-02-28", 1.2, "GW", "1.2 GW", 1),
        ("2026-11", "2026-11-08", 1.2, "GW", "1.2 GW", 0),
    ]


def test_a_value_read_on_the_record_day_or_gone_by_it_is_not_carried() -> None:
    today = history_row([("2025-06", 800, "MW"), ("2026-11", 900, "MW")], (900, "MW"))
    assert [line[4] for line in scorecard_lines(today, "2026-11-08")] == [
        "2025-06-30",
        "2026-11-08",
    ]
    gone = history_row([("2025-06", 800, "MW")], None)
    assert len(scorecard_lines(gone, "2026-11-08")) == 1
    assert scorecard_lines(history_row([], None), "2026-11-08") == []
