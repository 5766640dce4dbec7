"""The record's own SQL: every indicator's and test's query runs, reads only, in time, and
returns the shape its kind needs. Run over the compiled record, as of the day checked."""

from __future__ import annotations

from functools import partial

from sourcebook.check.charts import check_columns
from sourcebook.compile.database import CompiledRecord, Failure, QueryError
from sourcebook.derive.charts import HISTORY_TABLES, run_chart, with_history
from sourcebook.derive.sandbox import isolated
from sourcebook.derive.scorecard import evaluate_indicator
from sourcebook.derive.verdicts import judge
from sourcebook.diagnostics import Diagnostics, Pos
from sourcebook.incremental import QueryRuns
from sourcebook.model.base import Entity
from sourcebook.model.kinds import Chart
from sourcebook.model.record import Record

_HINTS = {
    Failure.FAILED: "see the compiled record's tables in docs/database.md",
    Failure.NOT_READ_ONLY: "a query is one SELECT statement that only reads",
    Failure.TOO_SLOW: "simplify it, or raise [limits] query_seconds in sourcebook.toml",
}
_SHAPES = {
    "indicator": "at most one row: value, and optionally unit, figure, campus, note",
    "test": "exactly one row: holds (1, 0 or NULL), and optionally why, figure",
}


def check_queries(
    record: Record, image: bytes, diagnostics: Diagnostics, kept: QueryRuns | None = None
) -> None:
    """Run every indicator's, test's and chart's query over `image`, and say where one fails
    or returns the wrong shape; `kept` as `runs` for `isolated`."""
    queried = [(kind, e) for kind in ("indicator", "test") for e in record.of(kind)]
    for kind, entity in queried:
        if not getattr(entity, "query", None):
            diagnostics.warning(
                entity.pos("title"),
                "X005",
                f"{kind} '{entity.id}' has no query, so the site cannot compute it",
                f"add 'query:', read-only SQL returning {_SHAPES[kind]}",
            )
    runs = [(kind, e.query) for kind, e in queried if getattr(e, "query", None)]  # type: ignore[attr-defined]
    charts = [c for c in record.of("chart") if isinstance(c, Chart)]
    job = partial(run_all, runs, [(c.id, c.query) for c in charts])
    failures, answers = isolated(image, job, runs=kept)
    for chart, (columns, failure) in zip(charts, answers, strict=True):
        if failure is not None:
            diagnostics.error(
                query_pos(chart, chart.query, failure.offset),
                failure.failure.value,
                f"chart query: {failure.message}",
                _HINTS.get(failure.failure, "return the rows the chart draws, one column each"),
            )
        else:
            check_columns(chart, columns, diagnostics)
    ran = [(kind, e) for kind, e in queried if getattr(e, "query", None)]
    for (kind, entity), failure in zip(ran, failures, strict=True):
        if failure is not None:
            query = entity.query  # type: ignore[attr-defined]
            diagnostics.error(
                query_pos(entity, query, failure.offset),
                failure.failure.value,
                f"{kind} query: {failure.message}",
                _HINTS.get(failure.failure, f"return {_SHAPES[kind]}"),
            )


def run_all(
    runs: list[tuple[str, str]], charts: list[tuple[str, str]], db: CompiledRecord
) -> tuple[list[QueryError | None], list[tuple[tuple[str, ...], QueryError | None]]]:
    """Each indicator's and test's query (see `run_queries`), then each chart's: its
    columns, or how it failed. Chart queries may read derive's history tables: here they
    are there, empty, so that a query's columns are known without computing them."""
    failures = run_queries(runs, db)
    if not charts:
        return failures, []
    with with_history(db, set(HISTORY_TABLES)) as then:
        found = [run_chart(then, chart, query) for chart, query in charts]
    return failures, [(data.columns, data.error) for data in found]


def run_queries(runs: list[tuple[str, str]], db: CompiledRecord) -> list[QueryError | None]:
    """Each (kind, query) run once over `db`: how each failed, or None."""
    failures: list[QueryError | None] = []
    for kind, query in runs:
        try:
            (evaluate_indicator if kind == "indicator" else judge)(db, query)
        except QueryError as exc:
            failures.append(exc)
        else:
            failures.append(None)
    return failures


def query_pos(entity: Entity, query: str, offset: int | None) -> Pos:
    """Where in the file a character of a query stands; exact for a `|` block."""
    start = entity.pos("query")
    if offset is None:
        return start
    before = query[:offset]
    newlines = before.count("\n")
    if not newlines:
        return Pos(start.file, start.line, start.col + offset)
    return Pos(start.file, start.line + newlines, start.col + len(before) - before.rfind("\n") - 1)
