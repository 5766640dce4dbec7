"""What templates show of the derived stage: scorecard values, verdicts, timelines, futures.

Templates reach it as `view.computed`. Nothing here computes a value of the record; it
only finds what derive computed and words or draws it for a reader.
"""

from __future__ import annotations

from collections import defaultdict
from functools import partial
from typing import Any

from markupsafe import Markup

from sourcebook.derive import (
    CampusState,
    Conflict,
    Derived,
    Row,
    ScenarioResult,
    Timeline,
    TimelinePoint,
    Verdict,
)
from sourcebook.derive.campuses import Carried
from sourcebook.derive.scenarios import Year
from sourcebook.incremental import Table
from sourcebook.model.base import Entity
from sourcebook.model.units import UnitError, shown
from sourcebook.publish.site.drawing.line_charts import (
    Point,
    Series,
    day_label,
    day_number,
    legend,
    line_chart,
)
from sourcebook.publish.site.view.wording import days_in_words

OUTCOME_WORDS = {"pending": "Pending", "passed": "Passed", "failed": "Failed"}
QUOTE_WORDS = {
    "verified": "quote verified in the Library",
    "not found": "quote not found in the Library's copy",
    "found in another source": "quote found in another source",
    "unverifiable": "no archived copy to verify the quote against",
}


class Computed:
    """What derive computed, as pages read it: each part a `Table` of the engine's, which
    notes what a page read of it, and gives the next build its entries to compare."""

    def __init__(self, derived: Derived):
        self._derived = derived
        conflicts: dict[tuple[str, str], list[Conflict]] = defaultdict(list)
        for conflict in derived.conflicts:
            conflicts[conflict.owner].append(conflict)
        owners = {
            p.figure: (owner, p)
            for owner, found in derived.timelines.items()
            for t in found
            for p in t.points
        }
        # each part made of `derived` alone: of its version (where derive knew it)
        of = partial(Table, version=derived.version)
        self._whole: Table[str, Any] = of(("derived",), {"*": derived, "as_of": derived.as_of})
        self._rows = of(("derived", "row"), {r.indicator: r for r in derived.rows})
        self._verdicts = of(("derived", "verdict"), {v.test: v for v in derived.verdicts})
        self._timelines = of(("derived", "timelines"), dict(derived.timelines))
        self._conflicts = of(("derived", "conflicts"), dict(conflicts))
        self._points = of(("derived", "point"), {f: p for f, (_, p) in owners.items()})
        self._owners = of(("derived", "owner"), {f: o for f, (o, _) in owners.items()})
        self._campuses = of(("derived", "campus"), dict(derived.campuses))
        self._scenarios = of(("derived", "scenario"), {s.id: s for s in derived.scenarios})

    def derived_is(self, derived: Derived) -> bool:
        """Whether this shows `derived` itself (not noted: no page reads by it)."""
        return self._derived is derived

    def tables(self) -> list[Table[Any, Any]]:
        """Every part, as the next build compares them."""
        return [self._whole, self._rows, self._verdicts, self._timelines, self._conflicts,
                self._points, self._owners, self._campuses, self._scenarios]  # fmt: skip

    @property
    def derived(self) -> Derived:
        return self._whole["*"]  # type: ignore[no-any-return]

    @property
    def as_of(self) -> str:
        return self._whole["as_of"]  # type: ignore[no-any-return]

    def row(self, indicator: Entity) -> Row | None:
        return self._rows.get(indicator.id)

    def verdict(self, test: Entity) -> Verdict | None:
        return self._verdicts.get(test.id)

    def timelines(self, owner: Entity) -> list[Timeline]:
        return self._timelines.get(owner.key) or []

    def conflicts(self, owner: Entity) -> list[Conflict]:
        return self._conflicts.get(owner.key) or []

    def point(self, figure: str) -> TimelinePoint | None:
        """A figure by its id, as its timeline holds it."""
        return self._points.get(figure)

    def campus(self, campus: Entity) -> CampusState | None:
        """The campus's stage, evidenced power and chips, as every page shows them."""
        return self._campuses.get(campus.id)

    def evidenced(self, measure: str) -> list[tuple[str, Carried]]:
        """Each campus with its evidenced `measure` ('power' or 'chips'), by campus id."""
        if measure not in ("power", "chips"):
            return []
        campuses = self.derived.campuses
        found = [(c, getattr(s, measure)) for c, s in sorted(campuses.items())]
        return [(campus, carried) for campus, carried in found if carried is not None]

    def owner(self, figure: str) -> tuple[str, str] | None:
        """(kind, id) of the campus or party that holds a figure."""
        return self._owners.get(figure)

    def scenario(self, scenario: Entity) -> ScenarioResult | None:
        return self._scenarios.get(scenario.id)

    # Words.

    @staticmethod
    def power(carried: Carried | None) -> str:
        """A campus's evidenced power as every page words it: '150 MW'."""
        return shown(carried.value / 1e6, "MW") if carried is not None else ""

    @staticmethod
    def chips(carried: Carried | None) -> str:
        """A campus's chips as every page words them: '200,000 chips (H100)'."""
        if carried is None:
            return ""
        count = shown(carried.value, "chips")
        return f"{count} ({carried.chip})" if carried.chip else count

    @staticmethod
    def shown(value: float | None, unit: str | None) -> str:
        """A value as a reader reads it: '500 MW', '$29 billion', '2.35 USD/h'."""
        if value is None:
            return "—"
        if not unit:
            return f"{value:,g}"
        try:
            return shown(value, unit)
        except UnitError:
            return f"{value:,g} {unit}"

    @staticmethod
    def outcome(verdict: Verdict | None) -> str:
        if verdict is None or verdict.outcome is None:
            return "Not judged"
        return OUTCOME_WORDS[verdict.outcome.value]

    @staticmethod
    def closed(text: str) -> str:
        """A line ending as a sentence does, whether or not its writer ended it."""
        text = days_in_words(text.strip())
        return text if text.endswith((".", "!", "?", "…")) else text + "."

    @staticmethod
    def quote_words(status: str | None) -> str:
        return QUOTE_WORDS.get(status or "", "")

    # Charts.

    def timeline_chart(self, timeline: Timeline, index: int) -> Markup:
        """The timeline drawn, one line per status; '' where under two days have a value."""
        series = [
            Series(
                status,
                tuple(
                    Point(
                        day_number(p.start),
                        p.shown_value,
                        f"{days_in_words(p.as_of)}, {self.shown(p.value, p.unit)}",
                    )
                    for p in timeline.series(status)
                    if p.shown_value is not None
                ),
            )
            for status in timeline.statuses()
        ]
        days = {p.x for s in series for p in s.points}
        if len(days) < 2:
            return Markup("")
        chart = line_chart(
            series,
            title=f"{timeline.label} over time",
            description=f"{timeline.label} in {timeline.unit} by day, one line per status.",
            x_label=day_label,
            y_label=lambda v: self.shown(v, timeline.unit),
            ident=f"chart-{index}",
        )
        return chart + legend(series)

    def scenario_chart(self, result: ScenarioResult, what: str) -> Markup:
        """Each future's `what` ('power_gw', 'revenue_usd', 'chips') year by year."""
        title, unit = self.measure(result, what)
        # Futures that share a line (the same ramp, for power) are drawn once, named together.
        lines: dict[tuple[float, ...], list[str]] = {}
        for future in result.futures:
            values = tuple(getattr(y, what) for y in future.years)
            lines.setdefault(values, []).append(future.title)
        years = [y.year for y in result.futures[0].years] if result.futures else []
        series = [
            Series(
                "; ".join(names),
                tuple(
                    Point(year, value, f"{year}, {self.shown(value, unit)}")
                    for year, value in zip(years, values, strict=True)
                ),
            )
            for values, names in lines.items()
        ]
        chart = line_chart(
            series,
            title=f"{title}, {result.start}–{result.end}",
            description=f"{title} in each year, one line per future.",
            x_label=lambda v: str(round(v)),
            y_label=lambda v: self.shown(v, unit),
            ident=f"chart-{what}",
        )
        return chart + legend(series)

    def year_value(self, result: ScenarioResult, year: Year, what: str) -> str:
        unit = self.measure(result, what)[1]  # a measure's name, before it is read
        return self.shown(getattr(year, what), unit)

    @staticmethod
    def measure(result: ScenarioResult, what: str) -> tuple[str, str]:
        """(what the page calls a measure, its unit); chips are counted in the scenario's."""
        title, unit = SCENARIO_MEASURES[what]
        return title, result.chip_unit if what == "chips" else unit


SCENARIO_MEASURES = {
    "power_gw": ("Power online", "GW"),
    "chips": ("Chips running", ""),
    "capital_usd": ("Capital spent in the year", "USD"),
    "capital_total_usd": ("Capital spent to date", "USD"),
    "revenue_usd": ("Revenue in the year", "USD"),
}
"""What a scenario's years carry: (what the page calls it, its unit)."""
