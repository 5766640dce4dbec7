"""What each campus is on the record's day: its stage, its evidenced power, its chips.

Read from the views that define each once (`compile/meanings.py`, docs/database.md):
every page, chart and query that shows one of these for a campus shows this one.
"""

from __future__ import annotations

from dataclasses import dataclass

from sourcebook.compile.database import CompiledRecord


@dataclass(frozen=True, slots=True)
class Step:
    """The day a campus's stage moved, and the figure that moved it."""

    day: str
    """The first day the campus is known to have reached the stage (YYYY-MM-DD)."""
    stage: str
    figure: str | None
    as_of: str | None
    """The figure's `as_of`, as written: what the page says."""
    phase: str | None


@dataclass(frozen=True, slots=True)
class Carried:
    """A campus's number as the record's views choose it, and the figure that carries it."""

    figure: str
    value: float
    """In the base unit: watts, chips."""
    as_of: str
    chip: str | None = None


@dataclass(frozen=True, slots=True)
class CampusState:
    campus: str
    stage: str
    since: str | None
    """Since when the campus is at its stage, as the figure that moved it says (its
    `as_of`, a day, month or year), or the day the campus is known from."""
    steps: tuple[Step, ...]
    power: Carried | None
    """Its evidenced operating power (`campus_power`)."""
    chips: Carried | None
    """Its chips running (`campus_chips`)."""


def campus_states(db: CompiledRecord) -> dict[str, CampusState]:
    """Every campus's state on the database's day, by id."""
    steps: dict[str, list[Step]] = {}
    for row in db.rows(
        "SELECT campus, day, stage, figure, as_of, phase FROM campus_stages ORDER BY day"
    ):
        steps.setdefault(row["campus"], []).append(
            Step(row["day"], row["stage"], row["figure"], row["as_of"], row["phase"])
        )
    power = {
        r["campus"]: Carried(r["figure"], r["watts"], r["as_of"])
        for r in db.rows("SELECT campus, figure, watts, as_of FROM campus_power")
    }
    chips = {
        r["campus"]: Carried(r["figure"], r["chips"], r["as_of"], r["chip"])
        for r in db.rows("SELECT campus, figure, chips, as_of, chip FROM campus_chips")
    }
    return {
        r["campus"]: CampusState(
            r["campus"],
            r["stage"],
            r["since"],
            tuple(steps.get(r["campus"], ())),
            power.get(r["campus"]),
            chips.get(r["campus"]),
        )
        for r in db.rows("SELECT campus, stage, since FROM campus_stage ORDER BY campus")
    }


def campus_order(db: CompiledRecord) -> tuple[tuple[str, str], ...]:
    """Every campus's (id, name), in the order the record came to know them (then by id):
    the order in which the site's charts give campuses their colours, so that a campus
    known later never takes an earlier one's colour, and a build as of an earlier day
    colours each campus it shows as the full build does."""
    return tuple(
        (r["id"], r["title"])
        for r in db.rows(
            "SELECT id, title FROM campuses ORDER BY known_from IS NULL, known_from, id"
        )
    )
