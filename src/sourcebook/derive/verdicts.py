"""The book's tests judged against the compiled record: pending, passed or failed, and why.

A test's query returns exactly one row, with the columns

- `holds` (required): 1 where the record shows the claim met, 0 where it shows it
  broken, NULL where it does not yet settle it;
- `why`: one line saying what the record shows;
- `figure`: the id of the figure the judgement rests on, or several, comma-separated.

1 is passed and 0 failed, whatever the day. NULL is pending until the deadline, and
failed once the deadline is past on the record's day: a claim not shown by then is not
met. A claim that something lasts until its deadline says 1 itself once the record's
day (`SELECT day FROM record_day`) reaches it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import Any

from sourcebook.compile.as_of import history_copy, restrict
from sourcebook.compile.database import CompiledRecord, Failure, QueryError
from sourcebook.derive.scorecard import FigureRef, figure_refs
from sourcebook.model.base import day_end

TEST_COLUMNS = ("holds", "why", "figure")


class Outcome(StrEnum):
    PENDING = "pending"
    PASSED = "passed"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class Verdict:
    """A test as the record stands on `as_of`."""

    test: str
    title: str
    claim: str
    deadline: str
    rule: str
    as_of: str
    outcome: Outcome | None
    """None where the test has no query, or its query failed."""
    why: str | None = None
    figures: tuple[FigureRef, ...] = ()
    error: QueryError | None = None


@dataclass(frozen=True, slots=True)
class Judgement:
    holds: bool | None
    why: str | None
    figures: tuple[FigureRef, ...]


def verdicts(db: CompiledRecord) -> list[Verdict]:
    """Every test's verdict, by deadline and then id."""
    as_of = db.meta("as_of") or ""
    tests = db.rows('SELECT id, title, claim, deadline, "rule", query FROM tests')
    known: dict[str, FigureRef] = {}
    found = []
    for test in sorted(tests, key=lambda t: (day_end(t["deadline"]), t["id"])):
        found.append(_verdict(db, dict(test), as_of, known))
    return found


def _verdict(
    db: CompiledRecord, test: dict[str, Any], as_of: str, known: dict[str, FigureRef]
) -> Verdict:
    fields = {k: test[k] for k in ("title", "claim", "deadline", "rule")}
    if not test["query"]:
        return Verdict(test["id"], **fields, as_of=as_of, outcome=None)
    try:
        judgement = judge(db, test["query"], known)
    except QueryError as exc:
        return Verdict(test["id"], **fields, as_of=as_of, outcome=None, error=exc)
    return Verdict(
        test["id"],
        **fields,
        as_of=as_of,
        outcome=outcome(judgement.holds, test["deadline"], date.fromisoformat(as_of)),
        why=judgement.why,
        figures=judgement.figures,
    )


def outcome(holds: bool | None, deadline: str, as_of: date) -> Outcome:
    if holds is not None:
        return Outcome.PASSED if holds else Outcome.FAILED
    return Outcome.FAILED if as_of >= day_end(deadline) else Outcome.PENDING


def judge(db: CompiledRecord, sql: str, known: dict[str, FigureRef] | None = None) -> Judgement:
    """Run a test's query. Raises QueryError for a failure or the wrong shape. `known`: as
    for `evaluate_indicator`."""
    got = _row(db, sql)
    why = got.get("why")
    return Judgement(
        _holds(got),
        None if why is None else str(why),
        figure_refs(db, got.get("figure"), known),
    )


def _row(db: CompiledRecord, sql: str) -> dict[str, Any]:
    """A test's one row by column, checked for its shape."""
    result = db.run(sql, max_rows=1)
    unknown = [c for c in result.columns if c not in TEST_COLUMNS]
    if "holds" not in result.columns or unknown:
        raise QueryError(
            Failure.SHAPE,
            "a test's query returns the columns holds, and optionally why and figure; "
            f"this one returns {', '.join(result.columns) or 'none'}",
        )
    if result.more or not result.rows:
        raise QueryError(Failure.SHAPE, "a test's query returns exactly one row")
    got = dict(zip(result.columns, result.rows[0], strict=True))
    for column, value in got.items():
        if isinstance(value, bytes):
            raise QueryError(Failure.SHAPE, f"a test's '{column}' is a blob")
    return got


def _holds(got: dict[str, Any]) -> bool | None:
    holds = got["holds"]
    if holds not in (0, 1, None):
        raise QueryError(Failure.SHAPE, f"'holds' is 1, 0 or NULL, not {holds!r}")
    return None if holds is None else bool(holds)


def verdict_history(db: CompiledRecord, months: list[date]) -> list[tuple[str, str, str, str]]:
    """(test, title, day, outcome) of each test with a query at the end of each of `months`
    (and on the record's own day); a month where its query fails is left out.

    One copy of the record is walked back in time, as for the scorecard's history; only
    whether each test holds is read there, not the figures it rests on."""
    tests = db.rows("SELECT id, title, deadline, query FROM tests WHERE query != ''")
    as_of = db.meta("as_of")
    days = sorted({*months, *([date.fromisoformat(as_of)] if as_of else [])})
    if not tests or not days:
        return []
    needed = set().union(*(db.tables_read(t["query"]) for t in tests))
    copy = history_copy(db.connection, needed)
    found: list[tuple[str, str, str, str]] = []
    try:
        for day in reversed(days):
            restrict(copy, day=day)
            then = CompiledRecord(copy, db.seconds, db.monitor)
            figures = {row[0] for row in copy.execute("SELECT id FROM figures")}
            for test in tests:
                try:
                    got = _row(then, test["query"])
                    holds = _holds(got)
                except QueryError:
                    continue
                if not _names_only(got.get("figure"), figures):
                    continue  # as `judge` would refuse it
                verdict = outcome(holds, test["deadline"], day)
                found.append((test["id"], test["title"], day.isoformat(), verdict.value))
            then.writable()
    finally:
        copy.close()
    return sorted(found, key=lambda v: (v[2], v[0]))


def _names_only(named: Any, figures: set[str]) -> bool:
    """Whether a query's `figure` names only figures the record holds (see `figure_refs`)."""
    return named is None or all(p.strip() in figures for p in str(named).split(",") if p.strip())
