"""One campus, several futures: chips, capital cost and revenue a year, from cited parameters.

Each future is a ramp of power (parameters with a year: the power online from then) and
a revenue per unit of power a year. For every year from `start` to `end`:

    power    = the power of the latest ramp step whose year has come
    chips    = power / power per chip
    capital  = (power - last year's power) * cost per unit of power   (spent as it comes online)
    revenue  = power * revenue per unit of power a year
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from sourcebook.model.units import MAX_MAGNITUDE, UnitError, convert

CHIP_UNITS = ("H100e", "chip")


class ScenarioError(ValueError):
    """A scenario that cannot be computed: a parameter missing, or in the wrong unit."""

    def __init__(
        self,
        message: str,
        parameter: str | None = None,
        field: str | None = None,
        code: str | None = None,
    ):
        super().__init__(message)
        self.message, self.parameter, self.field = message, parameter, field
        self.code = code
        """The diagnostic's code where it is not the field's usual one."""


TOO_LARGE = "F019"


class ParameterLike(Protocol):
    """A scenario parameter, as the model reads it or the compiled record holds it."""

    @property
    def id(self) -> str: ...

    @property
    def value(self) -> float: ...

    @property
    def unit(self) -> str: ...

    @property
    def year(self) -> int | None: ...


@dataclass(frozen=True, slots=True)
class Year:
    year: int
    power_gw: float
    chips: float
    capital_usd: float
    """Capital spent in the year: the power that came online times the cost per unit."""
    capital_total_usd: float
    revenue_usd: float


@dataclass(frozen=True, slots=True)
class FutureResult:
    id: str
    title: str
    summary: str
    ramp: tuple[str, ...]
    revenue: str
    years: tuple[Year, ...]

    @property
    def revenue_total_usd(self) -> float:
        return sum(y.revenue_usd for y in self.years)


def project(
    parameters: Mapping[str, ParameterLike],
    power_per_chip: str,
    cost_per_power: str,
    futures: Iterable[Mapping[str, Any]],
    start: int,
    end: int,
) -> tuple[str, list[FutureResult]]:
    """(chip unit, each future computed year by year). Raises ScenarioError."""
    if start > end:
        raise ScenarioError(f"'start' {start} is after 'end' {end}", field="start")
    chip_unit, watts_per_chip = _per_chip(_get(parameters, power_per_chip, "power_per_chip"))
    usd_per_watt = _in(_get(parameters, cost_per_power, "cost_per_power"), "USD/W")
    results = []
    for future in futures:
        steps = sorted(_step(_get(parameters, p, "futures")) for p in future["ramp"])
        revenue = _in(_get(parameters, future["revenue"], "futures"), "USD/W/year")
        years = _years(steps, start, end, watts_per_chip, usd_per_watt, revenue)
        if not all(map(math.isfinite, (n for y in years for n in _numbers(y)))):
            raise ScenarioError(
                f"future '{future['id']}' computes numbers past what a number can hold: "
                "its parameters are too large, or a chip's power too small",
                field="futures",
                code=TOO_LARGE,
            )
        results.append(
            FutureResult(
                future["id"],
                future["title"],
                future.get("summary", ""),
                tuple(future["ramp"]),
                future["revenue"],
                tuple(years),
            )
        )
    return chip_unit, results


def _years(
    steps: list[tuple[int, float]],
    start: int,
    end: int,
    per_chip: float,
    cost: float,
    revenue: float,
) -> list[Year]:
    def power(year: int) -> float:
        online = [watts for step_year, watts in steps if step_year <= year]
        return online[-1] if online else 0.0

    total = power(start - 1) * cost
    years = []
    for year in range(start, end + 1):
        watts = power(year)
        spent = max(0.0, watts - power(year - 1)) * cost
        total += spent
        years.append(Year(year, watts / 1e9, watts / per_chip, spent, total, watts * revenue))
    return years


def _numbers(year: Year) -> tuple[float, ...]:
    return (year.power_gw, year.chips, year.capital_usd, year.capital_total_usd, year.revenue_usd)


def _get(parameters: Mapping[str, ParameterLike], name: str, field: str) -> ParameterLike:
    found = parameters.get(name)
    if found is None:
        raise ScenarioError(f"'{field}' names '{name}', which is no parameter", name, field)
    return found


def _in(parameter: ParameterLike, unit: str) -> float:
    try:
        return _within(parameter, convert(parameter.value, parameter.unit, unit))
    except UnitError:
        raise ScenarioError(
            f"parameter '{parameter.id}' is in '{parameter.unit}', which is not {_WORDS[unit]}",
            parameter.id,
            "unit",
        ) from None


def _within(parameter: ParameterLike, value: float) -> float:
    """`value`, a parameter's in the unit it is computed in, where a number can carry it."""
    if not abs(value) <= MAX_MAGNITUDE:
        raise ScenarioError(
            f"parameter '{parameter.id}' is {parameter.value:g} {parameter.unit}, past the "
            f"{MAX_MAGNITUDE:g} a value may be in its base unit",
            parameter.id,
            "value",
            TOO_LARGE,
        )
    return value


_WORDS = {
    "USD/W": "money per unit of power (such as billion USD/GW)",
    "USD/W/year": "money per unit of power a year (such as billion USD/GW/year)",
    "W": "power (such as GW)",
}


def _per_chip(parameter: ParameterLike) -> tuple[str, float]:
    for chip_unit in CHIP_UNITS:
        try:
            watts = convert(parameter.value, parameter.unit, f"W/{chip_unit}")
        except UnitError:
            continue
        if watts <= 0:
            raise ScenarioError(
                f"parameter '{parameter.id}' is {parameter.value:g} {parameter.unit}: a chip "
                "draws some power, more than none",
                parameter.id,
                "value",
                TOO_LARGE,
            )
        return chip_unit, _within(parameter, watts)
    raise ScenarioError(
        f"parameter '{parameter.id}' is in '{parameter.unit}', which is not power per chip "
        "(such as kW/H100e)",
        parameter.id,
        "unit",
    )


def _step(parameter: ParameterLike) -> tuple[int, float]:
    if parameter.year is None:
        raise ScenarioError(
            f"ramp parameter '{parameter.id}' has no 'year' from which its power holds",
            parameter.id,
            "year",
        )
    return parameter.year, _in(parameter, "W")
