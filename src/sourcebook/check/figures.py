"""Figures: units that parse and fit their metric, quotes that carry their numbers,
estimates that show their working, ids that are unique, and sources that disagree."""

from __future__ import annotations

from sourcebook.diagnostics import Diagnostics, did_you_mean
from sourcebook.link.graph import Graph
from sourcebook.model.conflicts import find_conflicts
from sourcebook.model.figures import Placed, placed_figures
from sourcebook.model.kinds import Grade
from sourcebook.model.known import known
from sourcebook.model.numbers import carries
from sourcebook.model.record import Record
from sourcebook.model.retired import retired
from sourcebook.model.units import (
    MAX_MAGNITUDE,
    METRICS,
    UnitError,
    dimension_of,
    fits,
    metric,
    shown,
)

QUOTE_SHOWN = 80
CIRCLE_SHOWN = 6


def check_figures(record: Record, graph: Graph, diagnostics: Diagnostics) -> None:
    placed = placed_figures(record)
    by_id = _ids(placed, diagnostics)
    for figure in placed:
        _check_unit(figure, diagnostics)
        _check_evidence(figure, diagnostics)
        _check_estimate(figure, by_id, diagnostics)
    _check_circles(placed, by_id, diagnostics)
    _check_corrected(record, placed, diagnostics)
    gone = retired(record, known(record))
    _check_conflicts([p for p in placed if p.id not in gone], diagnostics)


def _check_corrected(record: Record, placed: list[Placed], diagnostics: Diagnostics) -> None:
    """Each figure a correction names is one of the record's, by its own id."""
    ids = {p.id: p for p in placed if p.figure.id}
    by_place = {p.id: p for p in placed if not p.figure.id}
    for correction in record.of("correction"):
        for index, name in enumerate(getattr(correction, "corrects", [])):
            if name in ids:
                continue
            found = by_place.get(name)
            hint = (
                f"give figure {found.index + 1} of {found.owner.id} an 'id' and name it here"
                if found is not None
                else did_you_mean(name, ids) or "name a figure by its 'id'"
            )
            diagnostics.error(
                correction.pos("corrects", index),
                "F030",
                f"correction '{correction.id}' corrects '{name}', which names no figure",
                hint,
            )


def _ids(placed: list[Placed], diagnostics: Diagnostics) -> dict[str, Placed]:
    by_id: dict[str, Placed] = {}
    for figure in placed:
        if figure.figure.id is None:
            continue
        if figure.id in by_id:
            first = by_id[figure.id]
            diagnostics.error(
                figure.pos("id"),
                "F009",
                f"figure id '{figure.id}' is also used in {first.owner.file}",
                "give each figure its own id",
            )
        else:
            by_id[figure.id] = figure
    return by_id


def _check_unit(placed: Placed, diagnostics: Diagnostics) -> None:
    figure = placed.figure
    try:
        dimension = dimension_of(figure.unit)
    except UnitError as exc:
        diagnostics.error(
            placed.pos("unit"), "F001", str(exc), "write a unit such as MW, GW, chips, H100e, USD"
        )
        return
    known = metric(figure.metric)
    if known is None:
        diagnostics.warning(
            placed.pos("metric"),
            "F003",
            f"metric '{figure.metric}' is not one sourcebook knows, so its unit is not checked",
            did_you_mean(figure.metric, METRICS) or "see 'Metrics' in docs/record-format.md",
        )
    elif not fits(figure.metric, figure.unit):
        measured = dimension.name if dimension else "nothing a figure measures"
        diagnostics.error(
            placed.pos("unit"),
            "F002",
            f"unit '{figure.unit}' measures {measured}, but '{figure.metric}' is {known.dimension}",
            f"write it in {known.unit}, or a unit convertible to it",
        )
    base = placed.base()
    if base is not None and not abs(base[0]) <= MAX_MAGNITUDE:
        diagnostics.error(
            placed.pos("value"),
            "F019",
            f"figure '{figure.metric}' is {figure.value:g} {figure.unit}, past the "
            f"{MAX_MAGNITUDE:g} a value may be in its base unit",
            "no measure comes near it: check the value and its unit",
        )
    if figure.currency_year is not None and (dimension is None or dimension.name != "money"):
        diagnostics.error(
            placed.pos("currency_year"),
            "F012",
            "'currency_year' is for money; this figure is not in a currency",
            "remove it",
        )


def _check_evidence(placed: Placed, diagnostics: Diagnostics) -> None:
    figure = placed.figure
    if figure.source is None:
        if placed.evidenced:
            diagnostics.error(
                placed.pos(),
                "F005",
                f"figure '{figure.metric}' is graded {figure.grade.value} but names no source",
                "name the source that carries it; evidence is traceable or it is not evidence",
            )
        elif not figure.inputs:
            diagnostics.warning(
                placed.pos(),
                "F005",
                f"figure '{figure.metric}' has no source",
                "name the source that carries it, or make it an estimate with method and inputs",
            )
        return
    if figure.quote is None:
        diagnostics.warning(
            placed.pos("source"),
            "F006",
            f"figure '{figure.metric}' names its source but quotes none of its words",
            "add the source's words that carry the number as 'quote'",
        )
        return
    try:
        carried = carries(figure.quote, figure.value, figure.unit)
    except UnitError:
        return
    if not carried:
        diagnostics.error(
            placed.pos("quote"),
            "F004",
            f"the quote does not carry the figure's number, {shown(figure.value, figure.unit)}: "
            f"{_short(figure.quote)}",
            "quote the words that state the number, or correct 'value' and 'unit'",
        )


def _check_estimate(placed: Placed, by_id: dict[str, Placed], diagnostics: Diagnostics) -> None:
    figure = placed.figure
    if figure.inputs and not figure.method:
        diagnostics.error(
            placed.pos("inputs"),
            "F007",
            f"figure '{figure.metric}' lists inputs but no method",
            "say in 'method' how the value is worked out from its inputs",
        )
    carried = figure.source is not None and figure.quote is not None
    if figure.grade is Grade.ESTIMATED and not carried and not (figure.method and figure.inputs):
        diagnostics.error(
            placed.pos(),
            "F007",
            f"estimate '{figure.metric}' shows neither its working nor a quote that carries it",
            "quote whoever made it, or give its method and the figures it rests on as inputs",
        )
    for index, input_id in enumerate(figure.inputs):
        found = by_id.get(input_id)
        if found is None:
            diagnostics.error(
                placed.pos("inputs"),
                "F008",
                f"input '{input_id}' names no figure",
                did_you_mean(input_id, by_id) or "give the figure it rests on an 'id'",
            )
        elif found is placed:
            diagnostics.error(
                placed.pos("inputs"), "F008", f"estimate '{input_id}' lists itself as an input"
            )
        elif found.figure.source is None and not found.figure.inputs:
            diagnostics.error(
                placed.pos("inputs"),
                "F011",
                f"input {index + 1}, '{input_id}', has no source",
                "each input of an estimate carries its own source",
            )


def _check_circles(
    placed: list[Placed], by_id: dict[str, Placed], diagnostics: Diagnostics
) -> None:
    """Estimates whose inputs lead back to themselves, each circle reported once, at the
    input that closes it: no value stands under them. One walk, each figure entered once."""
    done: set[str] = set()
    for start in placed:
        if start.id in done or not start.figure.inputs:
            continue
        path, depth = [start], {start.id: 0}
        inputs = [iter(start.figure.inputs)]
        while inputs:
            named = next(inputs[-1], None)
            if named is None:
                finished = path.pop()
                del depth[finished.id]
                done.add(finished.id)
                inputs.pop()
                continue
            found = by_id.get(named)
            if found is None or found is path[-1] or found.id in done:
                continue  # none, or itself: F008
            if found.id in depth:
                _report_circle(path, depth[found.id], diagnostics)
                continue
            depth[found.id] = len(path)
            path.append(found)
            inputs.append(iter(found.figure.inputs))


def _report_circle(path: list[Placed], start: int, diagnostics: Diagnostics) -> None:
    circle = [p.id for p in path[start : start + CIRCLE_SHOWN]]
    if len(path) - start > CIRCLE_SHOWN:
        circle.append("…")
    last = path[-1]
    diagnostics.error(
        last.pos("inputs"),
        "F018",
        f"estimate '{last.id}' rests on itself through its inputs: "
        f"{' → '.join([*circle, path[start].id])}",
        "an estimate's inputs lead down to figures with sources of their own, never around",
    )


def _check_conflicts(placed: list[Placed], diagnostics: Diagnostics) -> None:
    by_id = {p.id: p for p in placed}
    stated = [s for s in (p.stated() for p in placed) if s is not None]
    for conflict in find_conflicts(stated):
        last = by_id[conflict.figures[-1].figure]
        values = " and ".join(
            f"{shown(by_id[s.figure].figure.value, by_id[s.figure].figure.unit)} "
            f"({s.source or 'no source'})"
            for s in conflict.figures
        )
        diagnostics.warning(
            last.pos("value"),
            "F010",
            f"figures for '{conflict.metric}' ({conflict.status}, {conflict.as_of}) disagree: "
            f"{values}",
            "the campus page shows both; log a correction if one source is wrong",
        )


def _short(text: str) -> str:
    text = " ".join(text.split())
    return f"“{text}”" if len(text) <= QUOTE_SHOWN else f"“{text[: QUOTE_SHOWN - 1]}…”"
