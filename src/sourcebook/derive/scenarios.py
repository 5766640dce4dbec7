"""Scenarios of the compiled record, read from its tables and projected year by year
(the projection itself is `sourcebook.model.projection`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sourcebook.compile.database import CompiledRecord
from sourcebook.model.projection import (
    CHIP_UNITS,
    FutureResult,
    ParameterLike,
    ScenarioError,
    Year,
    project,
)

__all__ = [
    "CHIP_UNITS",
    "FutureResult",
    "Parameter",
    "ParameterLike",
    "ScenarioError",
    "ScenarioResult",
    "Year",
    "project",
    "scenario",
    "scenarios",
]


@dataclass(frozen=True, slots=True)
class Parameter:
    id: str
    title: str
    value: float
    unit: str
    year: int | None
    source: str | None
    quote: str | None
    method: str | None
    inputs: tuple[dict[str, Any], ...]
    note: str


@dataclass(frozen=True, slots=True)
class ScenarioResult:
    id: str
    title: str
    campus: str
    start: int
    end: int
    chip_unit: str
    power_per_chip: str
    cost_per_power: str
    parameters: tuple[Parameter, ...]
    futures: tuple[FutureResult, ...]

    def parameter(self, parameter_id: str) -> Parameter:
        return next(p for p in self.parameters if p.id == parameter_id)


def scenarios(db: CompiledRecord) -> list[ScenarioResult]:
    return [scenario(db, row[0]) for row in db.rows("SELECT id FROM scenarios ORDER BY id")]


def scenario(db: CompiledRecord, scenario_id: str) -> ScenarioResult:
    """A scenario of the compiled record, computed. Raises ScenarioError, KeyError."""
    found = db.rows("SELECT * FROM scenarios WHERE id = ?", (scenario_id,))
    if not found:
        raise KeyError(scenario_id)
    row = found[0]
    parameters = tuple(
        Parameter(
            p["id"],
            p["title"],
            p["value"],
            p["unit"],
            p["year"],
            p["source"],
            p["quote"],
            p["method"],
            tuple(json.loads(p["inputs"] or "[]")),
            p["note"] or "",
        )
        for p in db.rows(
            "SELECT * FROM scenario_parameters WHERE scenario = ? ORDER BY rowid", (scenario_id,)
        )
    )
    futures = json.loads(row["futures"])
    chip_unit, results = project(
        {p.id: p for p in parameters},
        row["power_per_chip"],
        row["cost_per_power"],
        futures,
        row["start"],
        row["end"],
    )
    return ScenarioResult(
        row["id"],
        row["title"],
        row["campus"],
        row["start"],
        row["end"],
        chip_unit,
        row["power_per_chip"],
        row["cost_per_power"],
        parameters,
        tuple(results),
    )
