"""Nothing is dated after the record closes, or, while it is open (no `[book] closes`),
after today (one entity at a time, `check.each`); a source is not dated after its capture
(against the Library)."""

from __future__ import annotations

from sourcebook.diagnostics import Diagnostics
from sourcebook.link.graph import Graph
from sourcebook.model.base import Entity, day_end, day_start
from sourcebook.model.known import PAST_STATUSES
from sourcebook.model.record import Record
from sourcebook.model.settings import Settings

# Figures in these states describe what was so, so their day cannot be in the future.


def check_dates(entity: Entity, settings: Settings, diagnostics: Diagnostics) -> None:
    closes = settings.book.stands_at()
    shown_close = settings.book.close_said()
    hint = (
        "correct the day, or move [book] closes in sourcebook.toml"
        if settings.book.closes is not None
        else "correct the day: until [book] closes is set, nothing may be dated after today"
    )
    for name in ("date", "updated"):
        value = getattr(entity, name, None)
        if isinstance(value, str) and day_start(value) > closes:
            diagnostics.error(
                entity.pos(name),
                "D001",
                f"'{name}' {value} is after {shown_close}",
                hint,
            )
    date, updated = getattr(entity, "date", None), getattr(entity, "updated", None)
    if isinstance(date, str) and isinstance(updated, str) and day_end(updated) < day_start(date):
        diagnostics.error(
            entity.pos("updated"), "D003", f"updated {updated} before it was published ({date})"
        )
    for index, figure in enumerate(getattr(entity, "figures", [])):
        if figure.status in PAST_STATUSES and day_start(figure.as_of) > closes:
            diagnostics.error(
                entity.pos("figures", index, "as_of"),
                "D001",
                f"figure '{figure.metric}' ({figure.status.value}) holds for {figure.as_of}, "
                f"after {shown_close}",
                "a figure for a later day is projected, planned or announced",
            )


def check_captures(record: Record, graph: Graph, diagnostics: Diagnostics) -> None:
    """A source cannot have been published after a copy of it was taken into the Library."""
    for source in record.of("source"):
        published = getattr(source, "date", None)
        items = record.library.holdings(getattr(source, "library", []))
        if not isinstance(published, str) or not items:
            continue
        first = min(items, key=lambda item: day_end(item.captured))
        if day_start(published) > day_end(first.captured):
            diagnostics.error(
                source.pos("date"),
                "D002",
                f"'date' {published} is after its copy {first.shelf} was captured "
                f"({first.captured})",
                "correct the source's date, or the capture date in the Library item",
            )
