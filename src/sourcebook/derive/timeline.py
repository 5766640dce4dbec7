"""Each metric of a campus over time: the points a campus page draws as a table and a chart."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sourcebook.compile.database import CompiledRecord
from sourcebook.model.conflicts import Conflict, Stated, find_conflicts
from sourcebook.model.units import METRICS, UnitError, convert, metric

_FIGURE_COLUMNS = (
    "id, owner_kind, owner_id, metric, value, unit, base_value, chip, qualifier, status, as_of,"
    " as_of_start, as_of_end, grade, evidenced, source, quote, quote_status, note, position,"
    " retired_by, retired_why"
)
_LISTED = (
    f"(SELECT {_FIGURE_COLUMNS}, 0 AS retired FROM figures"
    f" UNION ALL SELECT {_FIGURE_COLUMNS}, 1 AS retired FROM retired_figures)"
)
"""Every figure a page lists: those that count, and those retired, which it shows struck."""


@dataclass(frozen=True, slots=True)
class TimelinePoint:
    """One figure on a timeline, its value also given in the timeline's unit."""

    figure: str
    as_of: str
    start: str
    """The first day `as_of` can mean, as YYYY-MM-DD: where the point stands on a chart."""
    end: str
    value: float
    unit: str
    shown_value: float | None
    """The value in the timeline's unit; None where the figure's unit does not convert."""
    status: str
    grade: str
    evidenced: bool
    source: str | None
    quote: str | None
    quote_status: str | None
    chip: str | None
    qualifier: str | None
    note: str | None
    retired: bool = False
    """Retired by a correction or the record's doubt: listed struck through, drawn nowhere."""
    retired_by: str | None = None
    """The correction that retired it."""
    retired_why: str | None = None


@dataclass(frozen=True, slots=True)
class Timeline:
    """A metric of one campus (or party), every figure in day order."""

    owner_kind: str
    owner_id: str
    metric: str
    label: str
    unit: str
    points: tuple[TimelinePoint, ...]

    def statuses(self) -> list[str]:
        """The statuses on the timeline, in the order they first appear: one series each."""
        return list(dict.fromkeys(p.status for p in self.points if not p.retired))

    def series(self, status: str) -> list[TimelinePoint]:
        """The figures of one status that count: a retired figure is drawn nowhere."""
        return [p for p in self.points if p.status == status and not p.retired]


def timeline(db: CompiledRecord, owner_id: str, metric_id: str, kind: str = "campus") -> Timeline:
    """The figures of one metric of a campus (or, with kind='party', a party), by day."""
    rows = db.rows(
        f"SELECT * FROM {_LISTED} WHERE owner_kind = ? AND owner_id = ?"
        " AND metric = ? ORDER BY as_of_start, as_of_end, position",
        (kind, owner_id, metric_id),
    )
    return _timeline(kind, owner_id, metric_id, rows)


def timelines(db: CompiledRecord, owner_id: str, kind: str = "campus") -> list[Timeline]:
    """A timeline for each metric the owner has figures for, known metrics first."""
    found = db.rows(
        f"SELECT DISTINCT metric FROM {_LISTED} WHERE owner_kind = ? AND owner_id = ?",
        (kind, owner_id),
    )
    return [timeline(db, owner_id, name, kind) for name in _metric_order(r[0] for r in found)]


def all_timelines(db: CompiledRecord, kind: str = "campus") -> dict[str, list[Timeline]]:
    """Every owner's timelines at once (one query, not one per owner): what a site shows."""
    rows = db.rows(
        f"SELECT * FROM {_LISTED} WHERE owner_kind = ?"
        " ORDER BY owner_id, as_of_start, as_of_end, position",
        (kind,),
    )
    grouped: dict[str, dict[str, list]] = {}
    for row in rows:
        grouped.setdefault(row["owner_id"], {}).setdefault(row["metric"], []).append(row)
    return {
        owner: [_timeline(kind, owner, name, by_metric[name]) for name in _metric_order(by_metric)]
        for owner, by_metric in grouped.items()
    }


def _timeline(kind: str, owner_id: str, metric_id: str, rows: list) -> Timeline:
    known = metric(metric_id)
    unit = known.unit if known else (rows[0]["unit"] if rows else "")
    label = known.label if known else metric_id
    return Timeline(kind, owner_id, metric_id, label, unit, tuple(_point(r, unit) for r in rows))


def _metric_order(names: Iterable[str]) -> list[str]:
    """Known metrics in their documented order, then the rest by name."""
    order = list(METRICS)
    return sorted(names, key=lambda m: (order.index(m) if m in order else len(order), m))


def conflicts(db: CompiledRecord, owner_id: str | None = None) -> list[Conflict]:
    """Figures whose sources disagree (see derive.conflicts), for one owner or all."""
    rows = db.rows(
        "SELECT id, owner_kind, owner_id, metric, chip, status, as_of, base_value, source"
        " FROM figures WHERE base_value IS NOT NULL AND (? IS NULL OR owner_id = ?)",
        (owner_id, owner_id),
    )
    return find_conflicts(
        Stated(
            r["id"],
            (r["owner_kind"], r["owner_id"]),
            r["metric"],
            r["chip"],
            r["status"],
            r["as_of"],
            r["base_value"],
            r["source"],
        )
        for r in rows
    )


def _point(row, unit: str) -> TimelinePoint:  # type: ignore[no-untyped-def]
    try:
        shown_value: float | None = convert(row["value"], row["unit"], unit)
    except UnitError:
        shown_value = None
    return TimelinePoint(
        figure=row["id"],
        as_of=row["as_of"],
        start=row["as_of_start"],
        end=row["as_of_end"],
        value=row["value"],
        unit=row["unit"],
        shown_value=shown_value,
        status=row["status"],
        grade=row["grade"],
        evidenced=bool(row["evidenced"]),
        source=row["source"],
        quote=row["quote"],
        quote_status=row["quote_status"],
        chip=row["chip"],
        qualifier=row["qualifier"],
        note=row["note"] or None,
        retired=bool(row["retired"]),
        retired_by=row["retired_by"],
        retired_why=row["retired_why"],
    )
