"""Charts: each chart's query run over the compiled record and over what derive computed.

A chart's query reads the compiled record's tables, and two more that derive makes for
charts alone (docs/database.md), since a chart of the scorecard or the tests over time
cannot be asked of the record's own tables:

- `scorecard_history (indicator, row, title, day, at, value, unit, shown, change)`: each
  scorecard row's value from each month in which it changed, in one unit a row, and a last
  line carrying it to the record's day, so that a chart draws each row as a step line
  from change to change to the close;
- `verdict_history (test, title, day, outcome)`: each test's verdict at the end of every
  month in which the record's figures changed.

They are made only where some chart's query names them.
"""

from __future__ import annotations

import calendar
import math
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sourcebook.compile.database import CompiledRecord, Failure, QueryError
from sourcebook.compile.noted import watched
from sourcebook.derive.scorecard import Answer, Row
from sourcebook.model.units import UnitError, convert

CHART_ROWS = 5000
"""The most rows a chart may draw: more is a query to narrow, not a picture to read."""

HISTORY_TABLES = {
    "scorecard_history": "CREATE TABLE scorecard_history (indicator TEXT NOT NULL,"
    " row INTEGER NOT NULL, title TEXT NOT NULL, day TEXT NOT NULL, at TEXT NOT NULL, value,"
    " unit TEXT, shown TEXT, change INTEGER NOT NULL)",
    "verdict_history": "CREATE TABLE verdict_history (test TEXT NOT NULL, title TEXT NOT NULL,"
    " day TEXT NOT NULL, outcome TEXT NOT NULL)",
}

VerdictAt = tuple[str, str, str, str]
"""(test, title, day, outcome): one test's verdict at the end of one month."""


@dataclass(frozen=True, slots=True)
class ChartData:
    """A chart's query's answer: its columns and rows, or why there is none."""

    chart: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    error: QueryError | None = None

    def records(self) -> list[dict[str, Any]]:
        """Each row as {column: value}: the data a chart spec draws."""
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


def reads_history(queries: Sequence[str]) -> set[str]:
    """The history tables any of these queries names."""
    return {name for name in HISTORY_TABLES if any(name in q.lower() for q in queries)}


def with_history(
    db: CompiledRecord,
    wanted: set[str],
    rows: Sequence[Row] = (),
    verdicts: Callable[[], list[VerdictAt]] = list,
) -> CompiledRecord:
    """An in-memory copy of `db` with the history tables in `wanted` added and filled (from
    the scorecard's `rows`, and `verdicts()`); close it after use."""
    copy = watched(sqlite3.connect(":memory:"))
    db.connection.backup(copy)
    for name in wanted:
        copy.execute(HISTORY_TABLES[name])
    if "scorecard_history" in wanted:
        as_of = db.meta("as_of") or ""
        copy.executemany(
            "INSERT INTO scorecard_history VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [line for r in rows for line in scorecard_lines(r, as_of)],
        )
    if "verdict_history" in wanted:
        copy.executemany("INSERT INTO verdict_history VALUES (?, ?, ?, ?)", verdicts())
    copy.commit()
    return CompiledRecord(copy, db.seconds, db.monitor)


def scorecard_lines(row: Row, as_of: str) -> list[tuple[Any, ...]]:
    """A row's lines of `scorecard_history`: one per change, then, where the row still shows
    its last value on the record's day `as_of` and that change was read before it, one
    more carrying the value there (`change` 0). Values are in the unit of the row's last
    one, earlier ones converted to it where they can be."""
    if not row.history:
        return []
    unit = row.history[-1].answer.unit
    lines = [
        (row.indicator, row.row, row.title, p.day, _read_on(p.day, as_of))
        + (_in_unit(p.answer, unit), unit, p.answer.shown, 1)
        for p in row.history
    ]
    last = lines[-1]
    carried = row.answer is not None and row.answer.same(row.history[-1].answer)
    if carried and as_of and last[4] < as_of:
        lines.append((*last[:3], as_of[:7], as_of, *last[5:8], 0))
    return lines


def _read_on(month: str, as_of: str) -> str:
    """The day the history read a month's value: its last day, or the record's day in the
    record's own month (`scorecard.history_months`)."""
    if as_of and month == as_of[:7]:
        return as_of
    year, number = int(month[:4]), int(month[5:7])
    return f"{month}-{calendar.monthrange(year, number)[1]:02d}"


def _in_unit(answer: Answer, unit: str | None) -> Any:
    if unit is None or answer.unit in (None, unit) or not isinstance(answer.value, int | float):
        return answer.value
    try:
        return convert(answer.value, answer.unit, unit)
    except UnitError:
        return answer.value


def run_chart(db: CompiledRecord, chart: str, query: str) -> ChartData:
    """One chart's query, at most CHART_ROWS rows; a failure is kept, not raised."""
    try:
        result = db.run(query, max_rows=CHART_ROWS)
        if result.more:
            raise QueryError(Failure.SHAPE, f"a chart's query returns at most {CHART_ROWS:,} rows")
        if not result.columns:
            raise QueryError(Failure.SHAPE, "a chart's query returns columns to draw")
        _drawable(result.columns, result.rows)
    except QueryError as exc:
        return ChartData(chart, (), (), exc)
    return ChartData(chart, result.columns, result.rows)


def _drawable(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Every value of a chart's rows is text, a finite number or NULL: what a spec draws."""
    for row in rows:
        for column, value in zip(columns, row, strict=True):
            if isinstance(value, bytes) or (isinstance(value, float) and not math.isfinite(value)):
                shown = "a blob" if isinstance(value, bytes) else str(value)
                raise QueryError(
                    Failure.SHAPE, f"a chart's '{column}' holds {shown}: it draws text and numbers"
                )


def chart_data(
    db: CompiledRecord, rows: Sequence[Row], verdicts: Callable[[], list[VerdictAt]]
) -> list[ChartData]:
    """Every chart's data, by id."""
    charts = db.rows("SELECT id, query FROM charts ORDER BY id")
    if not charts:
        return []
    wanted = reads_history([c["query"] or "" for c in charts])
    with with_history(db, wanted, rows, verdicts) as then:
        return [run_chart(then, c["id"], c["query"]) for c in charts]


@dataclass(frozen=True, slots=True)
class Overview:
    """What the record at a glance leads with: its size, and the power it evidences running."""

    campuses: int
    operating_campuses: int
    operating_mw: float
    """The sum over campuses of each one's evidenced operating power (`campus_power`)."""
    operating_figures: tuple[str, ...]
    """The figures that sum."""
    figures: int
    sources: int
    quotes: int
    quotes_proved: int


def overview(db: CompiledRecord) -> Overview:
    """sourcebook's own count of the record; none of the record's SQL runs here."""

    def one(sql: str) -> Any:
        return db.rows(sql)[0][0]

    latest = db.rows("SELECT figure AS id, watts AS base_value FROM campus_power ORDER BY figure")
    return Overview(
        campuses=one("SELECT COUNT(*) FROM campuses"),
        operating_campuses=len(latest),
        operating_mw=sum(r["base_value"] for r in latest) / 1e6,
        operating_figures=tuple(r["id"] for r in latest),
        figures=one("SELECT COUNT(*) FROM figures"),
        sources=one("SELECT COUNT(*) FROM sources"),
        quotes=one("SELECT COUNT(*) FROM quotes"),
        quotes_proved=one("SELECT COUNT(*) FROM quotes WHERE status = 'verified'"),
    )
