"""Units: every unit the record uses parses, converts, and fits the metrics that measure it."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sourcebook.model.units import (
    METRICS,
    UnitError,
    convert,
    dimension_of,
    fits,
    metric,
    parse,
    shown,
    to_base,
)

EVERY_UNIT = [
    ("W", "power", 1.0),
    ("kW", "power", 1e3),
    ("MW", "power", 1e6),
    ("GW", "power", 1e9),
    ("TW", "power", 1e12),
    ("chips", "chips", 1.0),
    ("chip", "chips", 1.0),
    ("GPUs", "chips", 1.0),
    ("H100e", "compute", 1.0),
    ("USD", "money", 1.0),
    ("million USD", "money", 1e6),
    ("billion USD", "money", 1e9),
    ("USD billion", "money", 1e9),
    ("acres", "area", 4046.8564224),
    ("sqft", "area", 0.09290304),
    ("days", "duration", 1.0),
    ("months", "duration", 30.4375),
    ("years", "duration", 365.25),
    ("buildings", "buildings", 1.0),
    ("campuses", "campuses", 1.0),
    ("USD/GPU-hour", "price", 1.0),
    ("percent", "share", 1.0),
]


@pytest.mark.parametrize(("unit", "dimension", "factor"), EVERY_UNIT)
def test_every_unit_the_record_uses_parses_and_converts(unit, dimension, factor):
    found = dimension_of(unit)
    assert found is not None and found.name == dimension
    value, base = to_base(1, unit)
    assert base.name == dimension
    assert math.isclose(value, factor, rel_tol=1e-12)


@pytest.mark.parametrize(
    ("value", "unit", "target", "expected"),
    [
        (1.2, "GW", "MW", 1200),
        (1500, "MW", "GW", 1.5),
        (20, "billion USD", "USD", 20e9),
        (375, "million USD", "billion USD", 0.375),
        (1, "acre", "sqft", 43560),
        (1, "kW/H100e", "W/H100e", 1000),
        (12, "billion USD/GW/year", "USD/W/year", 12),
        (2.35, "USD/GPU-hour", "USD/chip/hour", 2.35),
        (7, "months", "days", 7 * 30.4375),
    ],
)
def test_conversions(value, unit, target, expected):
    assert math.isclose(convert(value, unit, target), expected, rel_tol=1e-9)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("furlongs", "unknown unit 'furlongs'"),
        ("2 MW", "holds a number"),
        ("", "no unit"),
        ("GW/", "is not a unit"),
        ("mw", "unknown unit"),
    ],
)
def test_a_bad_unit_says_why(text, words):
    with pytest.raises(UnitError, match=words):
        dimension_of(text)


def test_units_of_different_kinds_do_not_convert():
    with pytest.raises(UnitError, match="cannot be converted"):
        convert(1, "MW", "acres")
    with pytest.raises(UnitError, match="measures nothing"):
        to_base(1, "kW/H100e")


def test_every_known_metric_fits_its_own_unit_and_not_another_kind():
    for known in METRICS.values():
        assert fits(known.id, known.unit), known.id
    assert fits("it-power", "acres") is False
    assert fits("land", "MW") is False
    assert fits("capital-cost", "billion USD") is True


def test_metrics_of_a_known_family_are_known_and_others_are_not():
    assert metric("substation-power").dimension == "power"
    assert metric("land-cost").dimension == "money"
    assert metric("something-else") is None
    assert fits("something-else", "MW") is None


def test_values_are_shown_as_a_reader_reads_them():
    assert shown(1e10, "USD") == "$10 billion"
    assert shown(2.35, "USD/GPU-hour") == "$2.35 per GPU-hour"
    assert shown(1.2, "GW") == "1.2 GW"
    assert shown(2250, "acres") == "2,250 acres"
    assert shown(5e6, "H100e") == "5 million H100e"


@given(st.floats(min_value=1e-3, max_value=1e6, allow_nan=False))
def test_power_round_trips_through_every_prefix(value):
    for unit in ("kW", "MW", "GW"):
        back = convert(convert(value, "GW", unit), unit, "GW")
        assert math.isclose(back, value, rel_tol=1e-9)


@given(st.text(alphabet="MWGkUSD/*()-^ 0123456789.acresqftbillonhour%$", max_size=14))
def test_any_text_either_parses_or_raises_unit_error(text):
    try:
        quantity = parse(text)
    except UnitError as exc:
        assert str(exc).strip()  # a message for a person, not an empty error
    else:
        assert math.isfinite(float(quantity.magnitude))
