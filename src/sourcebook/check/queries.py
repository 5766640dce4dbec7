"""The record's own SQL: every indicator's and test's query runs, reads only, in time, and
returns the shape its kind needs. Run over the compiled record, as of the day checked."""

from __future__ import annotations

from sourcebook.derive.scorecard import evaluate_indicator
from sourcebook.derive.sql import CompiledRecord, Failure, QueryError
from sourcebook.derive.verdicts import judge
from sourcebook.diagnostics import Diagnostics, Pos
from sourcebook.model.base import Entity
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


def check_queries(record: Record, db: CompiledRecord, diagnostics: Diagnostics) -> None:
    for kind, run in (("indicator", evaluate_indicator), ("test", judge)):
        for entity in record.of(kind):
            query = getattr(entity, "query", None)
            if not query:
                diagnostics.warning(
                    entity.pos("title"),
                    "X005",
                    f"{kind} '{entity.id}' has no query, so the site cannot compute it",
                    f"add 'query:', read-only SQL returning {_SHAPES[kind]}",
                )
                continue
            try:
                run(db, query)
            except QueryError as exc:
                diagnostics.error(
                    query_pos(entity, query, exc.offset),
                    exc.failure.value,
                    f"{kind} query: {exc.message}",
                    _HINTS.get(exc.failure, f"return {_SHAPES[kind]}"),
                )


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
