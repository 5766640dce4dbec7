"""The units of the record's figures: parsed and converted by pint, in a registry of our own.

The registry holds only what a record of the compute buildout needs, so that a unit it
does not know is an error rather than a surprise: power (W with k, M, G, T), chips and
H100-equivalents as units of their own, US dollars, land and floor area, durations,
and counted things (buildings, campuses). Scale words (thousand, million, billion,
trillion) are dimensionless units, so `billion USD` and `USD/GPU-hour` parse as written.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sourcebook.runtime.memo import answered, memoized

if TYPE_CHECKING:
    import pint

_DEFINITIONS = (
    "kilo- = 1e3 = k-",
    "mega- = 1e6 = M-",
    "giga- = 1e9 = G-",
    "tera- = 1e12 = T-",
    "second = [time] = s = sec",
    "minute = 60 * second = min",
    "hour = 60 * minute = h = hr",
    "day = 24 * hour = d",
    "week = 7 * day",
    "year = 365.25 * day = yr",
    "month = year / 12",
    "meter = [length] = m",
    "foot = 0.3048 * meter = ft",
    "sqft = foot ** 2 = sq_ft",
    "acre = 43560 * sqft = ac",
    "hectare = 10000 * meter ** 2 = ha",
    "watt = [power] = W",
    "chip = [chip] = GPU = gpu = accelerator",
    "H100e = [h100e] = h100e = H100_equivalent",
    "USD = [currency_usd] = dollar",
    "building = [building]",
    "campus = [campus] = campuses = site = facility",
    "percent = 0.01 = %",
    "thousand = 1e3",
    "million = 1e6 = mn",
    "billion = 1e9 = bn",
    "trillion = 1e12 = tn",
)


class UnitError(ValueError):
    """A unit that cannot be parsed, or that does not fit what it measures."""


@dataclass(frozen=True, slots=True)
class Dimension:
    """A kind of quantity, with the unit its values are compared and stored in."""

    name: str
    base: str
    """The unit base values are stored in, as the registry writes it."""
    label: str
    """The base unit as a reader writes it."""


@dataclass(frozen=True, slots=True)
class Metric:
    """What a figure measures: its name on the site, its dimension and usual unit."""

    id: str
    label: str
    dimension: str
    unit: str
    """The unit the site shows it in."""


DIMENSIONS = {
    d.name: d
    for d in (
        Dimension("power", "W", "W"),
        Dimension("chips", "chip", "chips"),
        Dimension("compute", "H100e", "H100e"),
        Dimension("money", "USD", "USD"),
        Dimension("area", "meter ** 2", "m²"),
        Dimension("duration", "day", "days"),
        Dimension("buildings", "building", "buildings"),
        Dimension("campuses", "campus", "campuses"),
        Dimension("price", "USD / chip / hour", "USD/GPU-hour"),
        Dimension("share", "percent", "percent"),
    )
}

METRICS = {
    m.id: m
    for m in (
        Metric("it-power", "IT power", "power", "MW"),
        Metric("facility-power", "Facility power", "power", "MW"),
        Metric("grid-supply", "Grid supply", "power", "MW"),
        Metric("battery-power", "Battery power", "power", "MW"),
        Metric("backup-power", "Backup power", "power", "MW"),
        Metric("chips", "Chips", "chips", "chips"),
        Metric("h100e", "H100-equivalents", "compute", "H100e"),
        Metric("capital-cost", "Capital cost", "money", "USD"),
        Metric("chip-cost", "Cost of chips", "money", "USD"),
        Metric("revenue", "Revenue", "money", "USD"),
        Metric("land", "Land", "area", "acres"),
        Metric("floor-area", "Floor area", "area", "sqft"),
        Metric("buildings", "Buildings", "buildings", "buildings"),
        Metric("build-days", "Build time", "duration", "days"),
        Metric("record-doubling-time", "Doubling time of the record", "duration", "months"),
        Metric("h100-rental-price", "H100 rental price", "price", "USD/GPU-hour"),
        Metric("campuses-over-1gw", "Campuses over 1 GW", "campuses", "campuses"),
        Metric("share", "Share", "share", "percent"),
    )
}

_FAMILIES = (
    ("-power", "power"),
    ("-supply", "power"),
    ("-cost", "money"),
    ("-investment", "money"),
    ("-area", "area"),
    ("-price", "price"),
    ("-days", "duration"),
    ("-time", "duration"),
)

_PER_TIME = re.compile(r"\b([A-Za-z]\w*)-(hour|day|week|month|year)\b")


@memoized(maxsize=1)
def registry() -> pint.UnitRegistry:
    # pint (with numpy, which it loads) is imported only here, where a unit is first
    # parsed: it is a third of the start-up of every command, and many need no unit.
    import pint

    units: pint.UnitRegistry = pint.UnitRegistry(None, cache_folder=None, on_redefinition="raise")
    for line in _DEFINITIONS:
        units.define(line)
    return units


def metric(metric_id: str) -> Metric | None:
    """The metric of that id, or one named by a known family suffix (`*-power`, `*-cost`)."""
    known = METRICS.get(metric_id)
    if known is not None:
        return known
    for suffix, dimension in _FAMILIES:
        if metric_id.endswith(suffix):
            label = metric_id.replace("-", " ").capitalize()
            return Metric(metric_id, label, dimension, DIMENSIONS[dimension].label)
    return None


@memoized(maxsize=1024)
def parse(unit: str) -> pint.Quantity:
    """A unit as a quantity of magnitude 1 (`billion USD` is 1e9 USD). Raises UnitError."""
    text = _PER_TIME.sub(r"(\1*\2)", unit.strip())
    if not text:
        raise UnitError("no unit given")
    units = registry()
    try:
        quantity = units.parse_expression(text)
    except _errors().UndefinedUnitError as exc:
        raise UnitError(f"unknown unit {_undefined(exc)} in '{unit}'") from None
    except Exception as exc:
        # pint's expression parser fails on malformed text with whatever its tokenizer or
        # tree builder happens to raise (AssertionError, IndexError, TokenError, …).
        raise UnitError(f"'{unit}' is not a unit ({type(exc).__name__})") from None
    if not isinstance(quantity, units.Quantity) or quantity.magnitude != 1:
        raise UnitError(f"'{unit}' holds a number; write the number in 'value'")
    return quantity


def _errors() -> Any:
    """pint's exceptions, pint being loaded by then (see `registry`)."""
    import pint.errors

    return pint.errors


def _undefined(exc: pint.errors.UndefinedUnitError) -> str:
    names = exc.unit_names if isinstance(exc.unit_names, (list, tuple)) else [exc.unit_names]
    return ", ".join(f"'{n}'" for n in names)


@memoized(maxsize=1024)
def dimension_of(unit: str) -> Dimension | None:
    """The dimension a unit measures, or None for one the record does not use. Raises
    UnitError where the unit cannot be parsed."""
    name = _dimension_name(unit)
    return DIMENSIONS[name] if name is not None else None


@answered("units.dimension", UnitError, lambda name: name is None or name in DIMENSIONS)
def _dimension_name(unit: str) -> str | None:
    """The name of the dimension a unit measures: given to the next run, which then loads
    neither pint nor numpy (a third of a second) for a unit an earlier run met."""
    wanted = parse(unit).dimensionality
    for dimension in DIMENSIONS.values():
        if parse(dimension.base).dimensionality == wanted:
            return dimension.name
    return None


MAX_MAGNITUDE = 1e100
"""The largest a value may be in its base unit (W, USD, …): far past any measure of the
world (its power is about 1e13 W), and small enough that sums, differences and products of
two such values stay numbers."""


def to_base(value: float, unit: str) -> tuple[float, Dimension]:
    """`value` in `unit` converted to its dimension's base unit. Raises UnitError."""
    dimension = dimension_of(unit)
    if dimension is None:
        raise UnitError(f"'{unit}' measures nothing a figure measures")
    return convert(value, unit, dimension.base), dimension


def convert(value: float, unit: str, target: str) -> float:
    """`value` in `unit` expressed in `target`. Raises UnitError where they do not agree."""
    return value * _factor(unit, target)


@answered("units.factor", UnitError, lambda factor: type(factor) is float)
def _factor(unit: str, target: str) -> float:
    """What a value in `unit` is multiplied by to be in `target` (given to the next run,
    as `_dimension_name` is)."""
    # Every unit of the registry is a multiple of its base (none has an offset, as
    # degrees Celsius would), so one factor converts any value.
    try:
        return float(parse(unit).to(parse(target).units).magnitude)
    except _errors().DimensionalityError:
        raise UnitError(f"'{unit}' cannot be converted to '{target}'") from None


def fits(metric_id: str, unit: str) -> bool | None:
    """Whether `unit` measures what `metric_id` does; None for a metric not known."""
    known = metric(metric_id)
    if known is None:
        return None
    dimension = dimension_of(unit)
    return dimension is not None and dimension.name == known.dimension


def shown(value: float, unit: str) -> str:
    """A value as a reader reads it: `1.2 GW`, `$10 billion`, `$2.35 per GPU-hour`."""
    if unit == "USD":
        return "$" + _number(value)
    if unit.startswith("USD/"):
        return f"${_number(value)} per {unit.removeprefix('USD/')}"
    return f"{_number(value)} {unit}"


def _number(value: float) -> str:
    for word, scale in (("trillion", 1e12), ("billion", 1e9), ("million", 1e6)):
        if abs(value) >= scale:
            return f"{_plain(value / scale)} {word}"
    return _plain(value)


def _plain(value: float) -> str:
    if math.isclose(value, round(value), rel_tol=0, abs_tol=1e-9):
        return f"{round(value):,}"
    return f"{value:,.3f}".rstrip("0").rstrip(".")
