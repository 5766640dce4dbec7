"""Scenarios: every parameter named exists, parses, fits its role and carries its number."""

from __future__ import annotations

from collections.abc import Sequence

from sourcebook.diagnostics import Diagnostics, did_you_mean
from sourcebook.link.graph import Graph
from sourcebook.model.base import Entity
from sourcebook.model.kinds import Evidence, Future, Parameter, Scenario
from sourcebook.model.numbers import carries
from sourcebook.model.projection import ScenarioError, project
from sourcebook.model.record import Record
from sourcebook.model.units import UnitError, dimension_of, shown


def check_scenarios(record: Record, graph: Graph, diagnostics: Diagnostics) -> None:
    for scenario in record.of("scenario"):
        assert isinstance(scenario, Scenario)
        sound = _unique(scenario, diagnostics)
        sound &= _names(scenario, diagnostics)
        sound &= _parameters(scenario, diagnostics)
        if sound:
            _compute(scenario, diagnostics)


def _unique(scenario: Scenario, diagnostics: Diagnostics) -> bool:
    sound = True
    groups: list[tuple[str, Sequence[Parameter | Future]]] = [
        ("parameters", scenario.parameters),
        ("futures", scenario.futures),
    ]
    for field, items in groups:
        seen: set[str] = set()
        for index, item in enumerate(items):
            if item.id in seen:
                sound = False
                diagnostics.error(
                    scenario.pos(field, index, "id"),
                    "F017",
                    f"two {field} of scenario '{scenario.id}' share the id '{item.id}'",
                    "give each its own id",
                )
            seen.add(item.id)
    return sound


def _names(scenario: Scenario, diagnostics: Diagnostics) -> bool:
    ids = {p.id for p in scenario.parameters}
    named: list[tuple[str | int, ...]] = [("power_per_chip",), ("cost_per_power",)]
    for index, future in enumerate(scenario.futures):
        named.append(("futures", index, "revenue"))
        named.extend(("futures", index, "ramp", n) for n in range(len(future.ramp)))
    sound = True
    for path in named:
        name = _at(scenario, path)
        if name not in ids:
            sound = False
            diagnostics.error(
                scenario.pos(*path),
                "F014",
                f"'{name}' names no parameter of scenario '{scenario.id}'",
                did_you_mean(name, ids),
            )
    return sound


def _at(entity: Entity, path: tuple) -> str:
    value: object = entity
    for part in path:
        value = value[part] if isinstance(part, int) else getattr(value, part)  # type: ignore[index]
    return str(value)


def _parameters(scenario: Scenario, diagnostics: Diagnostics) -> bool:
    sound = True
    for index, parameter in enumerate(scenario.parameters):
        evidence: list[tuple[tuple[str | int, ...], Parameter | Evidence]] = [((), parameter)]
        evidence += [(("inputs", n), item) for n, item in enumerate(parameter.inputs)]
        for path, item in evidence:
            try:
                dimension_of(item.unit)  # raises where the unit cannot be parsed
            except UnitError as exc:
                sound = False
                diagnostics.error(
                    scenario.pos("parameters", index, *path, "unit"), "F001", str(exc)
                )
                continue
            if item.quote and not carries(item.quote, item.value, item.unit):
                diagnostics.error(
                    scenario.pos("parameters", index, *path, "quote"),
                    "F004",
                    f"the quote does not carry the number, {shown(item.value, item.unit)}",
                    "quote the words that state the number, or correct 'value' and 'unit'",
                )
        if parameter.source is None and not parameter.inputs:
            diagnostics.error(
                scenario.pos("parameters", index),
                "F005",
                f"parameter '{parameter.id}' has no source",
                "name the source that carries it, or work it out with method and inputs",
            )
        if bool(parameter.method) != bool(parameter.inputs):
            diagnostics.error(
                scenario.pos("parameters", index),
                "F007",
                f"parameter '{parameter.id}' gives a method without inputs, or inputs without one",
                "a worked-out parameter names both how and from what",
            )
    return sound


def _compute(scenario: Scenario, diagnostics: Diagnostics) -> None:
    parameters = {p.id: p for p in scenario.parameters}
    futures = [f.model_dump() for f in scenario.futures]
    try:
        project(
            parameters,
            scenario.power_per_chip,
            scenario.cost_per_power,
            futures,
            scenario.start,
            scenario.end,
        )
    except ScenarioError as exc:
        index = next((i for i, p in enumerate(scenario.parameters) if p.id == exc.parameter), None)
        pos = (
            scenario.pos("parameters", index, exc.field or "unit")
            if index is not None
            else scenario.pos(exc.field or "start")
        )
        code = exc.code or ("F016" if exc.field == "start" else "F015")
        diagnostics.error(pos, code, f"scenario '{scenario.id}': {exc.message}")
