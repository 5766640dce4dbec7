"""The second clock: the first day the record could have known each of its facts.

A figure has two days. Its `as_of` says what time it describes; the day it became
knowable is another matter, and is what an as-of view of the record cuts on: the record as
of a day D holds exactly what was known by D (`record_as_of`), and every history — the
scorecard's months, the tests' verdicts, the charts — reads this clock alone.

What a thing is known from (the latest date a partial day can mean, so that nothing is
shown earlier than its evidence allows, and never later than the record's close):

- a Library copy: the day it was captured (a copy proves the words a source published
  whenever it was taken, so the Library itself is never cut: its days only date the
  sources that have no date of their own);
- a source: its date; else the earliest of its copies' captures and of the days its
  figures say they were first stated (`stated`), where that was before the record's
  close; else the close;
- a correction: its date (and not before its source);
- a figure: its source's day and the day it says it was stated, its inputs' days (for an
  estimate), and, for a figure that says
  what was so (operating, under construction, cancelled, a market price), the first day
  its `as_of` can mean — whichever is latest; a figure with no source, no day stated and no
  inputs is not known before the close;
- a campus's party and role: its source's day, else the close;
- a campus, party or person: the earliest of what is known of it (its figures and roles,
  the sources it publishes or wrote); else the close;
- a scenario: the latest of its parameters' sources and its campus;
- the book's own apparatus — chapters, terms, indicators, tests, charts and papers — is
  the question a day's record is read through, not a fact about the world: it stands on
  every day (None here).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from sourcebook.model.base import Entity, day_end, day_start
from sourcebook.model.drafts import without_refs_to
from sourcebook.model.figures import Placed, placed, placed_figures
from sourcebook.model.kinds import Figure, FigureStatus
from sourcebook.model.record import Record
from sourcebook.model.refs import Key

APPARATUS = frozenset({"chapter", "term", "indicator", "test", "chart", "paper"})
"""The kinds that stand on every day: the book's questions, not facts about the world."""

CLOCKED = ("source", "campus", "party", "person", "correction", "scenario")
"""The kinds the clock reads (their figures and roles among them): with the Library's
captures and the day the record stands at, all it is computed from. Nothing else the record
holds changes it."""

PAST_STATUSES = frozenset(
    {
        FigureStatus.OPERATING,
        FigureStatus.UNDER_CONSTRUCTION,
        FigureStatus.CANCELLED,
        FigureStatus.MARKET,
    }
)
"""Figures in these states say what was so on their day, so they are not known before it."""


@dataclass
class Known:
    """The day each fact of one record is known from; apparatus is absent (every day)."""

    close: date
    items: dict[str, date] = field(default_factory=dict)
    """Library shelf → the day its copy was captured."""
    sources: dict[str, date] = field(default_factory=dict)
    figures: dict[str, date] = field(default_factory=dict)
    """Figure id (`Placed.id`) → its day."""
    roles: dict[tuple[str, int], date] = field(default_factory=dict)
    """(campus, index of the party in its list) → its day."""
    entities: dict[Key, date] = field(default_factory=dict)
    """Every entity of a dated kind → its day."""

    def entity(self, key: Key) -> date | None:
        """The day an entity is known from; None for the apparatus, known every day."""
        return self.entities.get(key)

    def knows(self, key: Key, day: date) -> bool:
        known = self.entities.get(key)
        return known is None or known <= day


PlainClock = tuple[int, dict, dict, dict, dict, dict]
"""A `Known` as plain values, each day by its ordinal (`date.toordinal`): its close, then
its items, sources, figures, roles and entities."""


def plain_clock(clock: Known) -> PlainClock:
    """`clock` as plain values, for a run that keeps it (`check/clock.py`)."""

    def days(table: dict[Any, date]) -> dict[Any, int]:
        return {key: day.toordinal() for key, day in table.items()}

    return (
        clock.close.toordinal(),
        days(clock.items),
        days(clock.sources),
        days(clock.figures),
        days(clock.roles),
        days(clock.entities),
    )


def clock_of_plain(plain: object) -> Known | None:
    """The clock `plain_clock` gave `plain` of; None where `plain` has not its form."""
    if not (type(plain) is tuple and len(plain) == 6 and type(plain[0]) is int):
        return None
    keys = (_is_name, _is_name, _is_name, _is_role, _is_key)
    tables: list[dict[Any, date]] = []
    for table, is_key in zip(plain[1:], keys, strict=True):
        if type(table) is not dict or not all(map(is_key, table)):
            return None
        try:
            tables.append({key: date.fromordinal(day) for key, day in table.items()})
        except (TypeError, ValueError, OverflowError):
            return None
    try:
        close = date.fromordinal(plain[0])
    except (ValueError, OverflowError):
        return None
    return Known(close, *tables)


def _is_name(key: object) -> bool:
    return type(key) is str


def _is_role(key: object) -> bool:
    return type(key) is tuple and len(key) == 2 and type(key[0]) is str and type(key[1]) is int


def _is_key(key: object) -> bool:
    return type(key) is tuple and len(key) == 2 and type(key[0]) is str and type(key[1]) is str


def known(record: Record) -> Known:
    """The known-day clock of every fact of `record`: one definition, read by the as-of
    cut, the compiled record's `known_from` columns and every history (computed once for
    a record as it is: `Record.once`)."""
    return record.once("known", _known)


def _known(record: Record) -> Known:
    clock = Known(record.settings.book.stands_at())
    clock.items = {item.shelf: day_end(item.captured) for item in record.library}
    placed = placed_figures(record)
    stated = _stated(placed)
    for source in record.of("source"):
        clock.sources[source.id] = _source_day(clock, source, stated.get(source.id))
    by_id = {p.id: p for p in placed}
    for p in placed:
        _figure_day(clock, p, by_id, set())
    for campus in record.of("campus"):
        for index, party in enumerate(getattr(campus, "parties", [])):
            clock.roles[(campus.id, index)] = _cited_day(clock, party.source) or clock.close
    _entity_days(clock, record, placed)
    _at_the_latest(clock)
    return clock


def _at_the_latest(clock: Known) -> None:
    """Nothing the record holds is known after it closes: a source dated "2026" in a
    record that closes in November 2026 was known by the close. (A day check refuses as
    after the close cannot be shown on any day the record stands at.)"""
    close = clock.close
    for table in (clock.items, clock.sources, clock.figures, clock.roles, clock.entities):
        for key, day in table.items():
            if day > close:
                table[key] = close  # type: ignore[index]


def _stated(placed: list[Placed]) -> dict[str, date]:
    """Each source's earliest day a figure drawn from it says it was stated (and, for a
    figure of what was so, not before the day it holds for): the source stood by then,
    whatever its own page says of its date. An estimate, which rests on other figures as
    well, is no such evidence."""
    found: dict[str, date] = {}
    for p in placed:
        figure = p.figure
        if figure.source and figure.stated and not figure.inputs:
            day = day_end(figure.stated)
            if figure.status in PAST_STATUSES:
                day = max(day, day_start(figure.as_of))
            found[figure.source] = min(found.get(figure.source, day), day)
    return found


def _source_day(clock: Known, source: Entity, stated: date | None) -> date:
    """A source's date; else the earliest of its copies' captures and of the days its
    figures say they were stated; else the close."""
    dated = getattr(source, "date", None)
    if dated:
        return day_end(dated)
    captures = [clock.items[s] for s in getattr(source, "library", []) if s in clock.items]
    return min([*captures, *([stated] if stated else []), clock.close])


def _cited_day(clock: Known, source_id: str | None, stated: str | None = None) -> date | None:
    """The day a figure or role that cites `source_id` is known from: its source's day,
    and not before the day it says it was stated. None where it cites nothing and says
    nothing."""
    own = day_end(stated) if stated else None
    if source_id is None:
        return own
    day = clock.sources.get(source_id, clock.close)
    return max(day, own) if own else day


def _figure_day(clock: Known, placed: Placed, by_id: dict[str, Placed], seen: set[str]) -> date:
    """A figure's day, its inputs' first (a cycle of inputs, an error of check's, adds no
    day of its own)."""
    found = clock.figures.get(placed.id)
    if found is not None:
        return found
    seen.add(placed.id)
    figure: Figure = placed.figure
    cited = _cited_day(clock, figure.source, figure.stated)
    days = [cited] if cited is not None else []
    for name in figure.inputs:
        upstream = by_id.get(name)
        if upstream is not None and name not in seen:
            days.append(_figure_day(clock, upstream, by_id, seen))
    if days and figure.status in PAST_STATUSES:
        days.append(day_start(figure.as_of))
    day = max(days) if days else clock.close
    clock.figures[placed.id] = day
    return day


def _entity_days(clock: Known, record: Record, figures: list[Placed]) -> None:
    for source in record.of("source"):
        clock.entities[source.key] = clock.sources[source.id]
    for correction in record.of("correction"):
        days = [day_end(getattr(correction, "date", None) or clock.close.isoformat())]
        cited = getattr(correction, "source", None)
        if cited in clock.sources:
            days.append(clock.sources[cited])
        clock.entities[correction.key] = max(days)
    earliest: dict[Key, list[date]] = {}

    def seen(key: Key, day: date) -> None:
        earliest.setdefault(key, []).append(day)

    for p in figures:
        seen(p.owner.key, clock.figures[p.id])
    for campus in record.of("campus"):
        for index, party in enumerate(getattr(campus, "parties", [])):
            seen(campus.key, clock.roles[(campus.id, index)])
            seen(("party", party.party), clock.roles[(campus.id, index)])
    for source in record.of("source"):
        publisher = getattr(source, "publisher", None)
        if publisher:
            seen(("party", publisher), clock.sources[source.id])
        for author in getattr(source, "authors", []):
            seen(("person", author), clock.sources[source.id])
    for kind in ("campus", "party", "person"):
        for entity in record.of(kind):
            clock.entities[entity.key] = min(earliest.get(entity.key, [clock.close]))
    for scenario in record.of("scenario"):
        clock.entities[scenario.key] = _scenario_day(clock, scenario)


def _scenario_day(clock: Known, scenario: Entity) -> date:
    days = [clock.entities.get(("campus", getattr(scenario, "campus", "")), clock.close)]
    for parameter in getattr(scenario, "parameters", []):
        cited: Iterable[str | None] = [parameter.source, *(i.source for i in parameter.inputs)]
        days.extend(clock.sources.get(s, clock.close) for s in cited if s)
    return max(days)


def record_as_of(record: Record, day: date, clock: Known | None = None) -> Record:
    """The record as it stood on `day`: every entity, figure and role not known by then
    left out, and every reference to what is left out taken from the fields that make it
    (as for drafts: `drafts.without_refs_to`). A figure keeps its id and its position. The
    Library is kept whole: a copy proves words a source published, whenever it was taken.
    The record itself where nothing is left out."""
    clock = clock if clock is not None else known(record)
    withheld = {key: known_day for key, known_day in clock.entities.items() if known_day > day}
    later = {
        e.key
        for kind in _WITH_PARTS
        for e in record.of(kind)
        if e.key not in withheld and _later_parts(e, clock, day)
    }
    if not withheld and not later:
        return record
    gone: dict[str, set[str]] = {}
    for kind, entity_id in withheld:
        gone.setdefault(kind, set()).add(entity_id)
    then = Record(record.root, record.settings, broken=set(record.broken))
    then.library = record.library
    then.watch = record.watch  # what the live web holds now, as the Library is kept whole
    then.withheld = {**record.withheld, **withheld}
    stamp = f"{day.isoformat()} {sorted(withheld)}".encode()
    for entity in record:
        if entity.key in withheld:
            continue
        part = _known_part(entity, clock, day) if entity.key in later else entity
        copy = without_refs_to(part, gone)
        then.add(copy)
        read_as = record.read_as.get(entity.key)
        if read_as is not None:
            then.read_as[entity.key] = (
                read_as if copy is entity else hashlib.sha256(read_as + stamp).digest()
            )
    return then


_WITH_PARTS = ("campus", "party", "correction")
"""The kinds whose entities hold figures or roles, or name figures (`corrects`): those a
day may cut part of."""


def _later_parts(entity: Entity, clock: Known, day: date) -> bool:
    """Whether the entity holds a figure or role known only after `day`, or names one."""
    if any(clock.figures[p.id] > day for p in placed(entity)):
        return True
    corrects = getattr(entity, "corrects", None) if entity.KIND == "correction" else None
    if corrects and any(clock.figures.get(f, day) > day for f in corrects):
        return True
    parties = getattr(entity, "parties", None) if entity.KIND == "campus" else None
    return bool(parties) and any(
        clock.roles[(entity.id, i)] > day for i in range(len(parties or []))
    )


def _known_part(entity: Entity, clock: Known, day: date) -> Entity:
    """The entity with its figures and roles known only after `day` left out."""
    update: dict[str, object] = {}
    origin = entity.origin
    figures = [p for p in placed(entity) if clock.figures[p.id] <= day]
    if len(figures) != len(getattr(entity, "figures", [])):
        update["figures"] = [p.figure for p in figures]
        origin = replace(origin, figure_index=tuple(p.index for p in figures))
    if entity.KIND == "campus":
        parties = getattr(entity, "parties", [])
        update["parties"] = [p for i, p in enumerate(parties) if clock.roles[(entity.id, i)] <= day]
    if entity.KIND == "correction":
        known_figures = {f for f, known_day in clock.figures.items() if known_day <= day}
        update["corrects"] = [f for f in getattr(entity, "corrects", []) if f in known_figures]
    copy = entity.model_copy(update=update)
    copy.__pydantic_private__ = {**(entity.__pydantic_private__ or {}), "_origin": origin}
    return copy
