"""check on figures: units, quotes that carry numbers, estimates, ids and conflicts."""

from __future__ import annotations

import textwrap

import pytest
from conftest import codes

from sourcebook.pipeline import check

SOURCE = """\
---
title: A story
category: press
date: 2025-06-01
---
"""


def campus(*figures: str) -> str:
    body = "".join(textwrap.indent(textwrap.dedent(f).strip("\n"), "  ") + "\n" for f in figures)
    return (
        "---\ntitle: Colossus\nlocation: Memphis\ncountry: US\nstatus: operating\n"
        f"figures:\n{body}---\n"
    )


def figure(extra: str = "", **fields: object) -> str:
    values = {
        "metric": "it-power", "value": 200, "unit": "MW", "status": "operating",
        "as_of": "2025-05", "grade": "reported", "source": "story",
        "quote": "it has reached 200 megawatts",
    }  # fmt: skip
    values.update(fields)
    lines = [f"{k}: {v}" for k, v in values.items() if v is not None]
    return "- " + "\n  ".join(lines) + ("\n  " + extra if extra else "") + "\n"


@pytest.fixture
def checked(make_record):
    def run(*figures: str, sources: dict[str, str] | None = None):
        files = {"sources/story.md": SOURCE, "campuses/colossus.md": campus(*figures)}
        return check(make_record({**files, **(sources or {})}))

    return run


def only(result, code: str):
    found = [d for d in result.diagnostics if d.code == code]
    assert len(found) == 1, [d.format() for d in result.diagnostics]
    return found[0]


def test_a_good_figure_raises_nothing(checked):
    result = checked(figure())
    assert not [c for c in codes(result) if c[0] == "F"], codes(result)


def test_a_unit_that_does_not_parse_is_an_error_at_its_line(checked):
    diagnostic = only(checked(figure(unit="megafurlongs")), "F001")
    assert diagnostic.severity == "error"
    assert diagnostic.pos.file.endswith("campuses/colossus.md") and diagnostic.pos.line == 9


def test_a_unit_that_does_not_fit_the_metric_is_an_error(checked):
    diagnostic = only(checked(figure(unit="acres", quote="on 200 acres")), "F002")
    assert "measures area" in diagnostic.message and "power" in diagnostic.message


def test_an_unknown_metric_is_a_warning_with_a_suggestion(checked):
    diagnostic = only(checked(figure(metric="it-powr")), "F003")
    assert diagnostic.severity == "warning" and diagnostic.hint == "did you mean 'it-power'?"


def test_a_quote_that_does_not_carry_the_number_is_an_error(checked):
    diagnostic = only(checked(figure(quote="it has reached 300 megawatts")), "F004")
    assert diagnostic.severity == "error" and "200 MW" in diagnostic.message
    assert diagnostic.pos.line == 14


def test_the_number_may_be_written_in_another_unit(checked):
    assert "F004" not in codes(checked(figure(value=0.2, unit="GW")))


def test_an_evidenced_figure_without_a_source_is_an_error_others_warn(checked):
    assert only(checked(figure(source=None, quote=None)), "F005").severity == "error"
    claimed = checked(figure(source=None, quote=None, grade="claimed"))
    assert only(claimed, "F005").severity == "warning"


def test_a_source_without_a_quote_is_a_warning(checked):
    assert only(checked(figure(quote=None)), "F006").severity == "warning"


def test_an_unknown_source_is_an_unknown_reference(checked):
    assert "L001" in codes(checked(figure(source="storey")))


def test_an_estimate_shows_its_working_or_a_quote(checked):
    bare = figure(grade="estimated", source=None, quote=None)
    assert only(checked(bare), "F007").severity == "error"
    quoted = figure(grade="estimated")
    assert "F007" not in codes(checked(quoted))


def test_an_estimate_of_the_record_names_method_and_inputs(checked):
    power = figure(id="colossus-power")
    estimate = figure(
        metric="h100e", value=200000, unit="H100e", grade="estimated", source=None,
        quote=None, method="The power at 1 kW per H100-equivalent.",
        extra="inputs: [colossus-power]",
    )  # fmt: skip
    result = checked(power, estimate)
    assert not [c for c in codes(result) if c[0] == "F"], codes(result)


def test_inputs_must_name_figures_with_sources(checked):
    unsourced = figure(id="guess", grade="claimed", source=None, quote=None)
    estimate = figure(
        metric="h100e", value=1, unit="H100e", grade="estimated", source=None, quote=None,
        method="Scaled.", extra="inputs: [guess, colossus-powr]",
    )  # fmt: skip
    result = checked(unsourced, estimate)
    assert "F011" in codes(result) and "F008" in codes(result)


def test_inputs_without_a_method_are_an_error(checked):
    power = figure(id="p")
    estimate = figure(
        metric="h100e", value=1, unit="H100e", grade="estimated", source=None, quote=None,
        extra="inputs: [p]",
    )  # fmt: skip
    assert "F007" in codes(checked(power, estimate))


def test_figure_ids_are_unique(checked):
    assert "F009" in codes(checked(figure(id="same"), figure(id="same")))


def test_a_currency_year_is_only_for_money(checked):
    assert "F012" in codes(checked(figure(currency_year=2025)))
    money = figure(
        metric="capital-cost", value=10, unit="billion USD", quote="$10 billion",
        currency_year=2025,
    )  # fmt: skip
    assert "F012" not in codes(checked(money))


def test_sources_that_disagree_are_a_conflict_warning(checked):
    other = SOURCE.replace("A story", "Another story")
    result = checked(
        figure(),
        figure(source="other", value=300, quote="it has reached 300 megawatts"),
        sources={"sources/other.md": other},
    )
    diagnostic = only(result, "F010")
    assert diagnostic.severity == "warning"
    assert "200 MW (story)" in diagnostic.message and "300 MW (other)" in diagnostic.message


def test_close_values_or_different_days_are_no_conflict(checked):
    other = SOURCE.replace("A story", "Another story")
    near = figure(source="other", value=210, quote="it has reached 210 megawatts")
    later = figure(source="other", value=300, as_of="2025-06", quote="it reached 300 MW")
    for second in (near, later):
        result = checked(figure(), second, sources={"sources/other.md": other})
        assert "F010" not in codes(result)


def test_one_source_giving_two_values_is_no_conflict(checked):
    other = SOURCE.replace("A story", "Another story")
    result = checked(
        figure(status="announced", value=2, unit="GW", quote="two gigawatts"),
        figure(status="announced", value=5, unit="GW", quote="five gigawatts"),
        figure(status="announced", value=5, unit="GW", source="other", quote="5GW"),
        sources={"sources/other.md": other},
    )
    assert "F010" not in codes(result)
