"""Figures, campus parties and scenario parameters into their tables."""

from __future__ import annotations

import json
import sqlite3

from sourcebook.compile.as_of import figure_known_from, iso
from sourcebook.compile.rows import quote_status
from sourcebook.library.report import QuoteReport
from sourcebook.model.base import day_end
from sourcebook.model.figures import EVIDENCED, GRADE_RANK, Placed, placed_figures
from sourcebook.model.kinds import Grade
from sourcebook.model.record import Record
from sourcebook.model.units import DIMENSIONS, METRICS, metric


def write_vocabulary(db: sqlite3.Connection) -> None:
    db.executemany(
        "INSERT INTO grades VALUES (?, ?, ?)",
        [(g.value, GRADE_RANK[g], int(g in EVIDENCED)) for g in Grade],
    )
    db.executemany(
        "INSERT INTO metrics VALUES (?, ?, ?, ?)",
        [(m.id, m.label, m.dimension, m.unit) for m in METRICS.values()],
    )


def write_figures(db: sqlite3.Connection, record: Record, proofs: QuoteReport | None) -> None:
    statuses = quote_status(proofs)
    rows: list[tuple] = []
    inputs: list[tuple[str, str, int]] = []
    for placed in placed_figures(record):
        rows.append(_figure_row(placed, record, statuses))
        inputs.extend((placed.id, i, n) for n, i in enumerate(placed.figure.inputs, 1))
    if rows:
        marks = ", ".join("?" * len(rows[0]))
        db.executemany(f"INSERT OR IGNORE INTO figures VALUES ({marks})", rows)
    db.executemany("INSERT INTO figure_inputs VALUES (?, ?, ?)", inputs)


def _figure_row(placed: Placed, record: Record, statuses: dict) -> tuple:
    figure, owner = placed.figure, placed.owner
    base = placed.base()
    known = metric(figure.metric)
    source = record.get("source", figure.source) if figure.source else None
    source_date = getattr(source, "date", None)
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
        figure_known_from(figure, source_date),
        owner.file,
        placed.pos().line,
    )


def write_parties(db: sqlite3.Connection, record: Record, proofs: QuoteReport | None) -> None:
    statuses = quote_status(proofs)
    db.executemany(
        "INSERT INTO campus_parties VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
            )
            for campus in record.of("campus")
            for index, party in enumerate(getattr(campus, "parties", []))
            for role in party.roles
        ],
    )


def write_parameters(db: sqlite3.Connection, record: Record) -> None:
    for scenario in record.of("scenario"):
        for p in getattr(scenario, "parameters", []):
            inputs = json.dumps([i.model_dump(mode="json") for i in p.inputs], ensure_ascii=False)
            db.execute(
                f"INSERT OR IGNORE INTO scenario_parameters VALUES ({', '.join('?' * 11)})",
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
                    inputs,
                    p.note,
                ),
            )
