"""Stage 5, derive: what is computed from the compiled record, never typed in.

The site and the data releases read these, each from a compiled record opened with
`open_record` (read-only; the record's own queries run within its time limit):

- `scorecard(db)`: each indicator's row: value, unit, campus, figures (grade, source,
  quote), and its history as the record grew;
- `verdicts(db)`: each test: pending, passed or failed, and why;
- `timeline(db, campus, metric)` and `timelines(db, campus)`: a campus's figures by day;
- `conflicts(db, campus)`: figures whose sources disagree;
- `scenario(db, id)` and `scenarios(db)`: one campus's futures, year by year;
- `derive_all(db)`: all of the above that is not per campus, at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from sourcebook.derive.conflicts import Conflict
from sourcebook.derive.scenarios import ScenarioError, ScenarioResult, scenario, scenarios
from sourcebook.derive.scorecard import Answer, FigureRef, Point, Row, scorecard
from sourcebook.derive.sql import CompiledRecord, Failure, QueryError, open_record
from sourcebook.derive.timeline import Timeline, TimelinePoint, conflicts, timeline, timelines
from sourcebook.derive.verdicts import Outcome, Verdict, verdicts


@dataclass(frozen=True)
class Derived:
    """What the site and the data releases show that is computed, not typed."""

    as_of: str
    rows: list[Row]
    verdicts: list[Verdict]
    scenarios: list[ScenarioResult]
    conflicts: list[Conflict]


def derive_all(db: CompiledRecord) -> Derived:
    return Derived(
        db.meta("as_of") or "", scorecard(db), verdicts(db), scenarios(db), conflicts(db)
    )


__all__ = [
    "Answer",
    "Derived",
    "derive_all",
    "CompiledRecord",
    "Conflict",
    "Failure",
    "FigureRef",
    "Outcome",
    "Point",
    "QueryError",
    "Row",
    "ScenarioError",
    "ScenarioResult",
    "Timeline",
    "TimelinePoint",
    "Verdict",
    "conflicts",
    "open_record",
    "scenario",
    "scenarios",
    "scorecard",
    "timeline",
    "timelines",
    "verdicts",
]
