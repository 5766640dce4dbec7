"""Stage 5, derive: what is computed from the compiled record, never typed in.

The site and the data releases read these, each from a compiled record opened with
`open_record` (read-only; the record's own queries run within its time limit):

- `scorecard(db)`: each indicator's row: value, unit, campus, figures (grade, source,
  quote), and its history as the record grew;
- `verdicts(db)`: each test: pending, passed or failed, and why;
- `timeline(db, campus, metric)` and `timelines(db, campus)`: a campus's figures by day;
- `conflicts(db, campus)`: figures whose sources disagree;
- `scenario(db, id)` and `scenarios(db)`: one campus's futures, year by year;
- `chart_data(db, …)`: each chart's query's rows, over the record and the scorecard's
  and the tests' histories;
- `machine(db)`: every campus and party as one machine: who does what where, and what
  each owner's campuses evidence of power and chips;
- `campus_states(db)`: each campus's stage, evidenced power and chips, as the compiled
  record's views define them (docs/database.md); `campus_order(db)`: the order in which
  charts colour them;
- `derive_all(db)`: all of the above at once, each campus's and party's timelines included;
- `derive_checked(checked)`: `derive_all` over the database check compiled, in the sandbox.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from sourcebook.check.result import Checked
from sourcebook.compile.database import CompiledRecord, Failure, QueryError, open_image, open_record
from sourcebook.derive.campuses import CampusState, campus_order, campus_states
from sourcebook.derive.charts import ChartData, Overview, chart_data, overview
from sourcebook.derive.machine import EMPTY as EMPTY_MACHINE
from sourcebook.derive.machine import Machine, machine
from sourcebook.derive.sandbox import versioned
from sourcebook.derive.scenarios import ScenarioError, ScenarioResult, scenario, scenarios
from sourcebook.derive.scorecard import Answer, FigureRef, Point, Row, history_months, scorecard
from sourcebook.derive.timeline import (
    Timeline,
    TimelinePoint,
    all_timelines,
    conflicts,
    timeline,
    timelines,
)
from sourcebook.derive.verdicts import Outcome, Verdict, verdict_history, verdicts
from sourcebook.incremental import QueryRuns
from sourcebook.model.conflicts import Conflict
from sourcebook.runtime.collector import collector_paused


@dataclass(frozen=True)
class Derived:
    """What the site and the data releases show that is computed, not typed."""

    as_of: str
    rows: list[Row]
    verdicts: list[Verdict]
    scenarios: list[ScenarioResult]
    conflicts: list[Conflict]
    timelines: dict[tuple[str, str], list[Timeline]] = field(default_factory=dict)
    """(kind, id) of a campus or party → a timeline per metric it has figures for."""
    charts: list[ChartData] = field(default_factory=list)
    """Each chart's data, by chart id."""
    overview: Overview | None = None
    """The record's size and the power it evidences running, for the record at a glance."""
    machine: Machine = field(default_factory=lambda: EMPTY_MACHINE)
    campuses: dict[str, CampusState] = field(default_factory=dict)
    """Each campus's stage, evidenced power and chips on the record's day, by id."""
    campus_order: tuple[tuple[str, str], ...] = ()
    """Every campus's (id, name) in the order its charts' colours follow (`campus_order`)."""
    version: bytes = field(default=b"", compare=False)
    """A digest of all the rest holds, where derive's run was pickled (`sandbox.versioned`);
    else b''. Two values of one version are equal: a page that compares them need not."""

    def row(self, indicator: str) -> Row | None:
        return next((r for r in self.rows if r.indicator == indicator), None)

    def verdict(self, test: str) -> Verdict | None:
        return next((v for v in self.verdicts if v.test == test), None)

    def conflicts_of(self, kind: str, owner_id: str) -> list[Conflict]:
        return [c for c in self.conflicts if c.owner == (kind, owner_id)]


OWNER_KINDS = ("campus", "party")
"""The kinds that carry figures."""


@collector_paused()
def derive_all(db: CompiledRecord) -> Derived:
    timelines = {
        (kind, owner): found
        for kind in OWNER_KINDS
        for owner, found in all_timelines(db, kind).items()
    }
    rows = scorecard(db)
    states = campus_states(db)
    return Derived(
        db.meta("as_of") or "",
        rows,
        verdicts(db),
        scenarios(db),
        conflicts(db),
        timelines,
        chart_data(db, rows, lambda: verdict_history(db, history_months(db))),
        overview(db),
        machine(db, states),
        states,
        campus_order(db),
    )


def derive_checked(checked: Checked, runs: QueryRuns | None = None) -> Derived:
    """Everything computed from a checked record, as of the day it was checked, read from
    the database check compiled; the record's own queries run in the sandbox; `runs`
    as for `isolated`."""
    assert checked.image is not None
    derived, version = versioned(checked.image, derive_all, runs=runs)
    return replace(derived, version=version) if version else derived


__all__ = [
    "Answer",
    "CampusState",
    "ChartData",
    "Overview",
    "Derived",
    "derive_all",
    "derive_checked",
    "CompiledRecord",
    "Conflict",
    "Failure",
    "FigureRef",
    "Machine",
    "Outcome",
    "Point",
    "QueryError",
    "Row",
    "ScenarioError",
    "ScenarioResult",
    "Timeline",
    "TimelinePoint",
    "all_timelines",
    "Verdict",
    "conflicts",
    "machine",
    "open_image",
    "open_record",
    "scenario",
    "scenarios",
    "scorecard",
    "timeline",
    "timelines",
    "verdicts",
]
