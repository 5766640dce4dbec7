"""Charts: each chart's query run over the compiled record and over what derive computed.

A chart's query reads the compiled record's tables, and two more that derive makes for
charts alone (docs/database.md), since a chart of the scorecard or the tests over time
cannot be asked of the record's own tables:

- `scorecard_history (indicator, row, title, day, value, unit)`: each scorecard row's
  value from each month in which it changed;
- `verdict_history (test, title, day, outcome)`: each test's verdict at the end of every
  month in which the record's figures changed.

They are made only where some chart's query names them.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sourcebook.compile.database import CompiledRecord, Failure, QueryError
from sourcebook.compile.noted import watched
from sourcebook.derive.scorecard import Row

CHART_ROWS = 5000
"""The most rows a chart may draw: more is a query to narrow, not a picture to read."""

HISTORY_TABLES = {
    "scorecard_history": "CREATE TABLE scorecard_history (indicator TEXT NOT NULL,"
    " row INTEGER NOT NULL, title TEXT NOT NULL, day TEXT NOT NULL, value, unit TEXT)",
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
        copy.executemany(
            "INSERT INTO scorecard_history VALUES (?, ?, ?, ?, ?, ?)",
            [
                (r.indicator, r.row, r.title, p.day, p.answer.value, p.answer.unit)
                for r in rows
                for p in r.history
            ],
        )
    if "verdict_history" in wanted:
        copy.executemany("INSERT INTO verdict_history VALUES (?, ?, ?, ?)", verdicts())
    copy.commit()
    return CompiledRecord(copy, db.seconds, db.monitor)


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
    """The sum over campuses of each one's latest evidenced operating power figure."""
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

    latest = db.rows(
        "SELECT id, base_value FROM (SELECT id, base_value, ROW_NUMBER() OVER ("
        " PARTITION BY campus ORDER BY as_of_end DESC, metric = 'it-power' DESC, grade_rank,"
        " position) AS n FROM figures WHERE campus IS NOT NULL AND evidenced = 1"
        " AND status = 'operating' AND metric IN ('it-power', 'facility-power')"
        " AND base_value IS NOT NULL) WHERE n = 1 ORDER BY id"
    )
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
