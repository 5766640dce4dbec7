"""The scorecard: each indicator's query run over the compiled record, with its evidence.

An indicator's query returns at most one row, with the columns

- `value` (required): the row's value, a number or text;
- `unit`: the unit of a number (by default the unit of the first figure named);
- `figure`: the id of the figure that carries the value, or several, comma-separated;
- `campus`: the campus it is about (by default the first figure's campus);
- `note`: a short qualification shown with the value.

No row means no value yet. Anything else is the wrong shape.
"""

from __future__ import annotations

import calendar
import json
import math
import time
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from sourcebook.compile.as_of import history_copy, restrict
from sourcebook.compile.database import CompiledRecord, Failure, QueryError
from sourcebook.model.units import UnitError, shown

INDICATOR_COLUMNS = ("value", "unit", "figure", "campus", "note")


@dataclass(frozen=True, slots=True)
class FigureRef:
    """A figure a value came from, with what the site shows beside it."""

    id: str
    owner_kind: str
    owner_id: str
    campus: str | None
    metric: str
    value: float
    unit: str
    status: str
    as_of: str
    grade: str
    evidenced: bool
    source: str | None
    quote: str | None
    quote_status: str | None


@dataclass(frozen=True, slots=True)
class Answer:
    """What an indicator's query gave on one day."""

    value: float | str | None
    unit: str | None = None
    campus: str | None = None
    figures: tuple[FigureRef, ...] = ()
    note: str | None = None

    @property
    def shown(self) -> str | None:
        """The value as a reader reads it: `500 MW`, `$2.35 per GPU-hour`."""
        if self.value is None:
            return None
        if isinstance(self.value, str) or not self.unit:
            return str(self.value)
        try:
            return shown(self.value, self.unit)
        except UnitError:
            return f"{self.value:g} {self.unit}"

    def same(self, other: Answer) -> bool:
        ids = tuple(f.id for f in self.figures)
        return (self.value, self.unit, self.campus, ids) == (
            other.value,
            other.unit,
            other.campus,
            tuple(f.id for f in other.figures),
        )


@dataclass(frozen=True, slots=True)
class Point:
    """The row's answer from `day` on, until the next point."""

    day: str
    answer: Answer


@dataclass(frozen=True, slots=True)
class Row:
    """A scorecard row: its answer as of the record's day, and how it moved."""

    indicator: str
    row: int
    title: str
    description: str
    answer: Answer | None
    history: tuple[Point, ...] = ()
    error: QueryError | None = None

    @property
    def figure(self) -> FigureRef | None:
        return self.answer.figures[0] if self.answer and self.answer.figures else None

    @property
    def grade(self) -> str | None:
        return self.figure.grade if self.figure else None

    @property
    def source(self) -> str | None:
        return self.figure.source if self.figure else None

    @property
    def anchor(self) -> str:
        return f"row-{self.row}"


def scorecard(db: CompiledRecord, history: bool = True) -> list[Row]:
    """Every indicator's row, in row order; a query that fails gives a row with its error."""
    indicators = db.rows("SELECT id, row, title, description, query FROM indicators ORDER BY row")
    known: dict[str, FigureRef] = {}
    evaluated: dict[str, tuple[Answer | None, QueryError | None]] = {}
    rows = []
    for indicator in indicators:
        answer, error = None, None
        if indicator["query"]:
            if indicator["query"] not in evaluated:
                evaluated[indicator["query"]] = _evaluate(db, indicator["query"], known)
            answer, error = evaluated[indicator["query"]]
        rows.append(
            Row(
                indicator["id"],
                indicator["row"],
                indicator["title"],
                indicator["description"],
                answer,
                (),
                error,
            )
        )
    if history:
        rows = _with_history(db, rows, {i["id"]: i["query"] for i in indicators}, known)
    return rows


def _evaluate(
    db: CompiledRecord, sql: str, known: dict[str, FigureRef]
) -> tuple[Answer | None, QueryError | None]:
    try:
        return evaluate_indicator(db, sql, known), None
    except QueryError as exc:
        return None, exc


def evaluate_indicator(
    db: CompiledRecord,
    sql: str,
    known: dict[str, FigureRef] | None = None,
    seconds: float | None = None,
) -> Answer | None:
    """Run an indicator's query, within `seconds` (default: the record's limit). Raises
    QueryError for a failure or the wrong shape.

    `known` holds figures already read from this record (or a later state of it: walking
    back in time deletes figures but never changes one)."""
    result = db.run(sql, max_rows=1, seconds=seconds)
    unknown = [c for c in result.columns if c not in INDICATOR_COLUMNS]
    if "value" not in result.columns or unknown:
        raise QueryError(
            Failure.SHAPE,
            f"an indicator's query returns the columns value, and optionally unit, figure, "
            f"campus and note; this one returns {', '.join(result.columns) or 'none'}",
        )
    if result.more:
        raise QueryError(Failure.SHAPE, "an indicator's query returns at most one row")
    if not result.rows:
        return None
    got: dict[str, Any] = dict(zip(result.columns, result.rows[0], strict=True))
    _check_types(got)
    figures = figure_refs(db, got.get("figure"), known)
    first = figures[0] if figures else None
    campuses = {f.campus for f in figures}
    value = got["value"]
    return Answer(
        value=value,
        unit=got.get("unit") or (first.unit if first else None),
        campus=got.get("campus") or (campuses.pop() if len(campuses) == 1 else None),
        figures=figures,
        note=got.get("note"),
    )


def _check_types(got: dict[str, Any]) -> None:
    """An indicator's value is a finite number or text, its unit text, and nothing a blob:
    what a page can show."""
    value = got["value"]
    if isinstance(value, float) and not math.isfinite(value):
        raise QueryError(Failure.SHAPE, f"an indicator's value is a finite number, not {value}")
    for column in INDICATOR_COLUMNS:
        if isinstance(got.get(column), bytes):
            raise QueryError(Failure.SHAPE, f"an indicator's '{column}' is a blob")
    unit = got.get("unit")
    if unit is not None and not isinstance(unit, str):
        raise QueryError(Failure.SHAPE, f"an indicator's 'unit' is text, not {unit!r}")


def figure_refs(
    db: CompiledRecord, named: Any, known: dict[str, FigureRef] | None = None
) -> tuple[FigureRef, ...]:
    """The figures a query names by id (one, or several comma-separated); those not in
    `known` are read in one query, and added to it."""
    if named is None:
        return ()
    ids = [part.strip() for part in str(named).split(",") if part.strip()]
    known = {} if known is None else known
    unread = [i for i in dict.fromkeys(ids) if i not in known]
    if unread:
        known.update(_read_figures(db, unread))
    for figure_id in ids:
        if figure_id not in known:
            raise QueryError(Failure.SHAPE, f"the query names figure '{figure_id}', which is none")
    return tuple(known[i] for i in ids)


def _read_figures(db: CompiledRecord, ids: list[str]) -> dict[str, FigureRef]:
    rows = db.rows(
        "SELECT id, owner_kind, owner_id, campus, metric, value, unit, status, as_of, grade,"
        " evidenced, source, quote, quote_status FROM figures"
        " WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(ids),),
    )
    return {
        row["id"]: FigureRef(**{**dict(row), "evidenced": bool(row["evidenced"])}) for row in rows
    }


def history_months(db: CompiledRecord) -> list[date]:
    """The last day of each month in which the record's figures changed — one became known,
    or a correction retired one — up to the day the record stands at (that day itself for
    its own month)."""
    as_of = db.meta("as_of")
    found = db.rows(
        "SELECT substr(known_from, 1, 7) FROM figures WHERE known_from IS NOT NULL"
        " UNION SELECT substr(known_from, 1, 7) FROM retired_figures"
        " WHERE known_from IS NOT NULL"
        " UNION SELECT substr(retired_from, 1, 7) FROM retired_figures"
        " WHERE retired_from IS NOT NULL"
        " ORDER BY 1"
    )
    ends = [_month_end(r[0]) for r in found]
    if as_of:
        stands = date.fromisoformat(as_of)
        ends = [min(end, stands) for end in ends if end.replace(day=1) <= stands]
    return ends


def _month_end(month: str) -> date:
    first = date.fromisoformat(f"{month}-01")
    return first.replace(day=calendar.monthrange(first.year, first.month)[1])


def _with_history(
    db: CompiledRecord, rows: list[Row], queries: dict[str, str], known: dict[str, FigureRef]
) -> list[Row]:
    """Each row's value at the end of every month in which figures changed.

    A month at a time rather than a day at a time: a record of thousands of sources has
    a figure dated on most days, and every indicator would run on each of them. One copy
    of the record is walked back in time, each month deleting what was not yet known, so
    the cost grows with the months and the rows deleted, not with months × the record.
    """
    live = [r for r in rows if r.error is None and queries[r.indicator]]
    points: dict[str, list[Point]] = {row.indicator: [] for row in rows}
    months = history_months(db)
    if live and months:
        live_queries = {r.indicator: queries[r.indicator] for r in live}
        answers = _walk_back(db, months, live_queries, known)
        for month in months:
            for indicator, by_month in answers.items():
                _append(points[indicator], month.isoformat()[:7], by_month.get(month))
    as_of = db.meta("as_of")
    for row in rows:
        if as_of and row.error is None:
            _append(points[row.indicator], as_of[:7], row.answer)
    return [replace(r, history=tuple(points[r.indicator])) for r in rows]


def _walk_back(
    db: CompiledRecord, months: list[date], queries: dict[str, str], known: dict[str, FigureRef]
) -> dict[str, dict[date, Answer | None]]:
    """indicator → month → its answer then; months where its query failed are left out.

    Indicators with the same query share its answers: it runs once a month, not once each.
    All the months of one query share one time limit, the record's limit for one run: a
    query that is slow on every month stops at the limit, not at months × the limit; its
    history then starts where it stopped."""
    distinct = list(dict.fromkeys(queries.values()))
    needed = set().union(*(db.tables_read(q) for q in distinct))
    copy = history_copy(db.connection, needed)
    answers: dict[str, dict[date, Answer | None]] = {sql: {} for sql in distinct}
    left = dict.fromkeys(distinct, db.seconds)
    try:
        for month in reversed(months):
            restrict(copy, day=month)
            then = CompiledRecord(copy, db.seconds, db.monitor)
            for sql, by_month in answers.items():
                if left[sql] <= 0:
                    continue
                started = time.monotonic()
                try:
                    by_month[month] = evaluate_indicator(then, sql, known, left[sql])
                except QueryError:
                    continue
                finally:
                    left[sql] -= time.monotonic() - started
            then.writable()
    finally:
        copy.close()
    return {indicator: answers[sql] for indicator, sql in queries.items()}


def _append(points: list[Point], day: str, answer: Answer | None) -> None:
    if answer is None:
        return
    if points and points[-1].answer.same(answer):
        return
    points.append(Point(day, answer))
