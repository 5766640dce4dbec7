"""Figures, campus parties and scenario parameters into their tables."""

from __future__ import annotations

import json

from sourcebook.compile.as_of import iso
from sourcebook.compile.rows import OR_IGNORE, Filling, quote_status
from sourcebook.library.report import QuoteReport
from sourcebook.model.base import day_end
from sourcebook.model.figures import EVIDENCED, GRADE_RANK, Placed, placed_figures
from sourcebook.model.kinds import Grade
from sourcebook.model.known import Known
from sourcebook.model.record import Record
from sourcebook.model.retired import Retired, retired
from sourcebook.model.units import DIMENSIONS, METRICS, metric


def write_vocabulary(tables: Filling) -> None:
    tables.add("grades", [(g.value, GRADE_RANK[g], int(g in EVIDENCED)) for g in Grade])
    tables.add("metrics", [(m.id, m.label, m.dimension, m.unit) for m in METRICS.values()])


def write_figures(
    tables: Filling, record: Record, proofs: QuoteReport | None, clock: Known
) -> None:
    """Every figure into `figures`, with the day it is known from and, for one a correction
    or the record's doubt retires, the day it stops counting (`restrict` moves it to
    `retired_figures` from that day)."""
    statuses = quote_status(proofs)
    gone = retired(record, clock)
    rows: list[tuple] = []
    inputs: list[tuple[str, str, int]] = []
    for placed in placed_figures(record):
        rows.append(_figure_row(placed, statuses, clock, gone.get(placed.id)))
        inputs.extend((placed.id, i, n) for n, i in enumerate(placed.figure.inputs, 1))
    tables.add("figures", rows, how=OR_IGNORE)
    tables.add("retired_figures", [])  # filled as the day is read (`as_of.restrict`)
    tables.add("figure_inputs", inputs)


def _figure_row(placed: Placed, statuses: dict, clock: Known, retired_as: Retired | None) -> tuple:
    figure, owner = placed.figure, placed.owner
    base = placed.base()
    known = metric(figure.metric)
    field = f"figures.{placed.index}.quote"
    return (
        placed.id,
        owner.KIND,
        owner.id,
        owner.id if owner.KIND == "campus" else None,
        owner.id if owner.KIND == "party" else None,
        placed.index + 1,
        figure.metric,
        known.label if known else None,
        base[1] if base else None,
        figure.value,
        figure.unit,
        base[0] if base else None,
        DIMENSIONS[base[1]].base if base else None,
        figure.chip,
        figure.qualifier,
        figure.status.value,
        figure.phase,
        figure.as_of,
        iso(figure.as_of),
        day_end(figure.as_of).isoformat(),
        figure.grade.value,
        GRADE_RANK[figure.grade],
        int(placed.evidenced),
        figure.source,
        figure.quote,
        statuses.get((owner.key, field)),
        figure.method,
        figure.note,
        figure.currency_year,
        figure.stated,
        clock.figures[placed.id].isoformat(),
        retired_as.day.isoformat() if retired_as else None,
        retired_as.correction if retired_as else None,
        retired_as.why if retired_as else None,
        owner.file,
        placed.pos().line,
    )


def write_parties(
    tables: Filling, record: Record, proofs: QuoteReport | None, clock: Known
) -> None:
    statuses = quote_status(proofs)
    tables.add(
        "campus_parties",
        [
            (
                campus.id,
                party.party,
                role.value,
                party.note,
                party.source,
                index + 1,
                party.supplies or None,
                party.quote,
                statuses.get((campus.key, f"parties.{index}.quote")),
                clock.roles[(campus.id, index)].isoformat(),
            )
            for campus in record.of("campus")
            for index, party in enumerate(getattr(campus, "parties", []))
            for role in party.roles
        ],
    )


def write_parameters(tables: Filling, record: Record) -> None:
    rows = [
        (
            scenario.id,
            p.id,
            p.title,
            p.value,
            p.unit,
            p.year,
            p.source,
            p.quote,
            p.method,
            json.dumps([i.model_dump(mode="json") for i in p.inputs], ensure_ascii=False),
            p.note,
        )
        for scenario in record.of("scenario")
        for p in getattr(scenario, "parameters", [])
    ]
    tables.add("scenario_parameters", rows, how=OR_IGNORE)
