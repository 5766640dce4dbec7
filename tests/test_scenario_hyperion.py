"""One campus, four futures: the Hyperion scenario computed from its cited parameters."""

from __future__ import annotations

import shutil

import pytest
from conftest import BUNDLED, SETTINGS, codes

from sourcebook import derive
from sourcebook.derive.scenarios import ScenarioError, project
from sourcebook.pipeline import check, compile_checked


@pytest.fixture(scope="module")
def hyperion(tmp_path_factory):
    checked = check(BUNDLED)
    scenario_codes = [
        d.format() for d in checked.diagnostics if d.pos.file.endswith("scenarios/hyperion.md")
    ]
    assert not [d for d in scenario_codes if " error " in d], scenario_codes
    path = compile_checked(checked, tmp_path_factory.mktemp("hyperion") / "record.db")
    with derive.open_record(path) as db:
        return derive.scenario(db, "hyperion")


def test_four_futures_of_the_hyperion_campus(hyperion):
    assert hyperion.campus == "hyperion" and len(hyperion.futures) == 4
    assert hyperion.chip_unit == "H100e"
    for future in hyperion.futures:
        assert [y.year for y in future.years] == list(range(2026, 2036))


def test_every_parameter_cites_a_source_or_its_inputs_do(hyperion):
    for parameter in hyperion.parameters:
        assert parameter.source or all(i["source"] for i in parameter.inputs), parameter.id


def test_the_fast_future_sold_as_tokens(hyperion):
    fast = next(f for f in hyperion.futures if f.id == "fast-tokens")
    by_year = {y.year: y for y in fast.years}
    assert by_year[2027].power_gw == 0 and by_year[2027].revenue_usd == 0
    year = by_year[2028]
    assert year.power_gw == 5
    assert year.chips == pytest.approx(5_000_000)
    assert year.revenue_usd == pytest.approx(500e9)
    assert year.capital_usd == pytest.approx(5 * 29e9)
    assert by_year[2029].capital_usd == 0
    assert by_year[2035].capital_total_usd == pytest.approx(5 * 29e9)


def test_meta_pace_builds_in_two_steps(hyperion):
    pace = next(f for f in hyperion.futures if f.id == "meta-pace-rented")
    by_year = {y.year: y for y in pace.years}
    assert by_year[2030].power_gw == 2 and by_year[2033].power_gw == 5
    assert by_year[2030].capital_usd == pytest.approx(2 * 29e9)
    assert by_year[2033].capital_usd == pytest.approx(3 * 29e9)
    assert by_year[2031].revenue_usd == pytest.approx(24e9)
    assert pace.revenue_total_usd == pytest.approx((3 * 2 + 3 * 5) * 12e9)


class P:
    def __init__(self, id: str, value: float, unit: str, year: int | None = None):
        self.id, self.value, self.unit, self.year = id, value, unit, year


PARAMETERS = {
    p.id: p
    for p in (
        P("chip", 1, "kW/H100e"),
        P("cost", 40, "billion USD/GW"),
        P("rent", 12, "billion USD/GW/year"),
        P("one", 1, "GW", 2027),
        P("acres", 10, "acres", 2027),
    )
}


@pytest.mark.parametrize(
    ("future", "per_chip", "words"),
    [
        ({"id": "f", "title": "F", "ramp": ["one"], "revenue": "cost"}, "chip", "a year"),
        ({"id": "f", "title": "F", "ramp": ["acres"], "revenue": "rent"}, "chip", "power"),
        ({"id": "f", "title": "F", "ramp": ["chip"], "revenue": "rent"}, "chip", "no 'year'"),
        ({"id": "f", "title": "F", "ramp": ["one"], "revenue": "rent"}, "rent", "per chip"),
        ({"id": "f", "title": "F", "ramp": ["two"], "revenue": "rent"}, "chip", "no parameter"),
    ],
)
def test_a_parameter_in_the_wrong_unit_says_so(future, per_chip, words):
    with pytest.raises(ScenarioError, match=words):
        project(PARAMETERS, per_chip, "cost", [future], 2026, 2030)


SCENARIO = """\
---
title: Two futures
campus: c
start: {start}
end: 2030
power_per_chip: chip
cost_per_power: cost
parameters:
  - {{id: chip, title: Per chip, value: 1, unit: kW/H100e, source: s, quote: 1 kW each}}
  - {{id: cost, title: Cost, value: 40, unit: billion USD/GW, source: s}}
  - {{id: rent, title: Rent, value: 12, unit: {rent_unit}, source: s}}
  - {{id: one, title: One, value: 1, unit: GW, year: 2027, source: s, quote: {quote}}}
futures:
  - {{id: f, title: F, ramp: [one], revenue: {revenue}}}
---
"""
CAMPUS = "---\ntitle: C\nlocation: L\ncountry: US\nstatus: planned\n---\n"


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({}, None),
        ({"revenue": "rnet"}, "F014"),
        ({"rent_unit": "acres"}, "F015"),
        ({"rent_unit": "furlongs"}, "F001"),
        ({"start": 2031}, "F016"),
        ({"quote": "two gigawatts"}, "F004"),
    ],
)
def test_check_reports_a_scenario_that_cannot_be_computed(make_record, change, code):
    fields = {"start": 2026, "rent_unit": "billion USD/GW/year", "revenue": "rent"}
    fields["quote"] = "one gigawatt"
    fields.update(change)
    files = {
        "scenarios/two.md": SCENARIO.format(**fields),
        "campuses/c.md": CAMPUS,
        "sources/s.md": "---\ntitle: S\ncategory: other\n---\n",
    }
    found = [c for c in codes(check(make_record(files, settings=SETTINGS))) if c[0] in "FS"]
    assert found == ([] if code is None else [code])


WORKED_OUT = """\
  - id: cost
    title: Cost
    value: 40
    unit: billion USD/GW
{method}    inputs:
      - {{value: 20, unit: billion USD, source: s, quote: $20 billion in all}}
      - {{value: 0.5, unit: GW, source: s, quote: "{power}"}}
"""


@pytest.mark.parametrize(
    ("method", "power", "code"),
    [
        ("    method: Twenty billion over half a gigawatt.\n", "half a gigawatt, 500 MW", None),
        ("", "half a gigawatt, 500 MW", "F007"),
        ("    method: Twenty billion over half a gigawatt.\n", "a gigawatt", "F004"),
    ],
)
def test_a_worked_out_parameter_names_its_method_and_inputs(make_record, method, power, code):
    text = SCENARIO.format(
        start=2026, rent_unit="billion USD/GW/year", revenue="rent", quote="one gigawatt"
    )
    old = "  - {id: cost, title: Cost, value: 40, unit: billion USD/GW, source: s}\n"
    text = text.replace(old, WORKED_OUT.format(method=method, power=power))
    files = {
        "scenarios/two.md": text,
        "campuses/c.md": CAMPUS,
        "sources/s.md": "---\ntitle: S\ncategory: other\n---\n",
    }
    found = [c for c in codes(check(make_record(files, settings=SETTINGS))) if c[0] in "FS"]
    assert found == ([] if code is None else [code])


def test_a_parameters_quote_is_proved_against_the_library(tmp_path):
    record = tmp_path / "record"
    shutil.copytree(BUNDLED, record, ignore=shutil.ignore_patterns("_site", ".sourcebook-cache"))
    scenario = record / "scenarios" / "hyperion.md"
    text = scenario.read_text(encoding="utf-8")
    good = "typically $29B per gigawatt of total facility power"
    assert good in text
    assert not [d for d in check(record).diagnostics if "29B" in d.message]
    scenario.write_text(text.replace(good, "typically $19B per gigawatt of total facility power"))
    found = [d for d in check(record).diagnostics if d.pos.file.endswith("hyperion.md")]
    wrong = [d for d in found if d.code == "Q001"]
    assert len(wrong) == 1 and wrong[0].severity.value == "error"
    assert text[: text.index(good)].count("\n") + 1 == wrong[0].pos.line
