"""The watch log: each visit `sourcebook watch` made to a source's addresses, and what
the live web holds of each address as of the last one.

A record's `watch/` folder holds one JSON Lines file per source (`watch/SOURCE.jsonl`),
one line per visit to one of its addresses, appended and never rewritten, and
`watch/_runs.jsonl`, one line per watch that went through every address. The state of an
address (`address_state`) is read from its visits alone, so that check, the site and the
report say the same of it:

- **dead**: it gave no answer, or a 4xx or 5xx one, on two visits at least
  `DEAD_AFTER_DAYS` days apart with no answer between (once only, it is **failing**);
- **moved**: it answers through a permanent redirect (301 or 308): the new address;
- **soft-dead**: it answers 200 with a page that reads as a parked domain, a login wall
  or a "not found" page, and holds little of the Library's copy;
- **changed**: it answers, but a quote the Library's copy proves is gone from the page;
- **live**: it answers and holds every quote its copy proves;
- **refused**: it redirects to another origin whose host is not public (not followed);
- **unwatched**: the site's robots.txt forbids the visit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum

from sourcebook.model.library import Item

FOLDER = "watch"
RUNS = "_runs.jsonl"
"""Named so that no source's log can be it: an id never starts with '_'."""
SUFFIX = ".jsonl"
DEAD_AFTER_DAYS = 3
"""A failure counts as death only once seen again this many days or more after the first."""
PERMANENT = frozenset({301, 308})


class Failure(StrEnum):
    """Why a visit had no answer to judge."""

    NO_ANSWER = "no answer"
    """The connection failed, timed out, or the answer could not be read."""
    REFUSED = "refused"
    """A redirect that was not followed (docs/library.md, "Where a fetch may go")."""
    ROBOTS = "robots"
    """The site's robots.txt forbids the visit; nothing was asked."""


class Soft(StrEnum):
    """What a page that answers 200 reads as, where it is not the page it was."""

    PARKED = "parked domain"
    LOGIN = "login wall"
    NOT_FOUND = "not-found page"


@dataclass(frozen=True, slots=True)
class Seen:
    """A quote of the source, and whether the live page held it on a visit (None where the
    page had no text to look in)."""

    quote: str
    held: bool | None


@dataclass(frozen=True, slots=True)
class Visit:
    """One visit to one address, as a line of the log."""

    day: date
    url: str
    run: str = ""
    status: int | None = None
    """The HTTP status of the last answer; None where there was none."""
    failure: Failure | None = None
    note: str = ""
    """Why there was no answer, in a line."""
    redirects: tuple[tuple[str, int], ...] = ()
    """Each address that redirected, with its status, the address visited first."""
    final: str | None = None
    """The address the answer came from, where it was redirected."""
    sha256: str | None = None
    """The SHA-256 of the body, decoded of its content encoding."""
    size: int = 0
    soft: Soft | None = None
    similarity: float | None = None
    """How much of the Library's copy the page still holds, from 0 to 1."""
    quotes: tuple[Seen, ...] = ()
    etag: str | None = None
    last_modified: str | None = None
    line: int = 0
    """The line of the log it was read from."""

    @property
    def answered(self) -> bool:
        """A page came back: 2xx, or 304 for one unchanged since the last visit."""
        return self.status is not None and (200 <= self.status < 300 or self.status == 304)

    @property
    def failed(self) -> bool:
        """No answer, or one that is no page (4xx, 5xx, a redirect that leads nowhere):
        what makes an address dead when seen twice."""
        if self.failure is Failure.NO_ANSWER:
            return True
        return self.failure is None and self.status is not None and not self.answered

    @property
    def moved_to(self) -> str | None:
        """Where a permanent redirect sends the address: past the permanent redirects it
        starts with; None where it starts with none."""
        target = None
        for index, (_url, status) in enumerate(self.redirects):
            if status not in PERMANENT:
                break
            following = self.redirects[index + 1 :]
            target = following[0][0] if following else self.final
        return target

    def gone(self) -> list[str]:
        """The quotes the page no longer held on this visit."""
        return [seen.quote for seen in self.quotes if seen.held is False]


class State(StrEnum):
    LIVE = "live"
    MOVED = "moved"
    CHANGED = "changed"
    SOFT_DEAD = "soft-dead"
    DEAD = "dead"
    FAILING = "failing"
    REFUSED = "refused"
    UNWATCHED = "unwatched"


@dataclass(frozen=True)
class AddressState:
    """What the live web holds of one address, as of its last visit."""

    url: str
    state: State
    day: date
    """The day of the last visit."""
    since: date
    """The first day of the state's run of visits (dead since, changed since)."""
    last: Visit
    moved_to: str | None = None
    gone: tuple[tuple[str, date], ...] = ()
    """For a changed page: each quote its copy proves that is gone, and since when."""
    failures: int = 0
    """For a failing or dead address: the visits in a row that failed."""


@dataclass
class WatchLog:
    """Every source's visits, in the order of its log; empty where nothing was watched."""

    visits: dict[str, list[Visit]] = field(default_factory=dict)
    runs: list[Run] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    """Each source's log file, as diagnostics show it."""

    def __bool__(self) -> bool:
        return any(self.visits.values())

    def of(self, source: str, url: str) -> list[Visit]:
        """The visits to one address of a source, in day order (the log's for one day)."""
        found = [visit for visit in self.visits.get(source, ()) if visit.url == url]
        return sorted(found, key=lambda visit: visit.day)

    def last_day(self) -> date | None:
        """The day of the last visit of all."""
        days = [visit.day for visits in self.visits.values() for visit in visits]
        return max(days) if days else None


@dataclass(frozen=True)
class Run:
    """A watch that went through every address, as a line of `watch/_runs.jsonl`."""

    run: str
    day: date
    addresses: int
    requests: int
    size: int
    seconds: float


def copies_for(items: Sequence[Item], url: str, visits: Sequence[Visit] = ()) -> list[Item]:
    """The Library's copies of one address of a source: those taken from it, or from where
    its last visit led; all the source's copies where none was."""
    last = visits[-1] if visits else None
    places = {url, *((last.final, last.moved_to) if last is not None else ())}
    return [item for item in items if item.url in places] or list(items)


def address_state(visits: Sequence[Visit], proved: Iterable[str] = ()) -> AddressState | None:
    """The state of an address from its visits (in day order); `proved`: the quotes the
    Library's copy of it proves, of which a changed page has lost one. None where it was
    never visited."""
    if not visits:
        return None
    last = visits[-1]
    if last.failure is Failure.ROBOTS:
        return AddressState(last.url, State.UNWATCHED, last.day, last.day, last)
    if last.failure is Failure.REFUSED:
        return AddressState(last.url, State.REFUSED, last.day, _since(visits, _refused), last)
    if last.failed:
        return _failing(visits)
    if last.soft is not None:
        return AddressState(last.url, State.SOFT_DEAD, last.day, _since(visits, _soft), last)
    gone = _gone(visits, set(proved))
    moved = last.moved_to
    if gone:
        since = min(day for _quote, day in gone)
        return AddressState(last.url, State.CHANGED, last.day, since, last, moved, tuple(gone))
    if moved is not None:
        return AddressState(last.url, State.MOVED, last.day, _since(visits, _moved), last, moved)
    return AddressState(last.url, State.LIVE, last.day, _since(visits, _live), last)


def _failing(visits: Sequence[Visit]) -> AddressState:
    streak = []
    for visit in reversed(visits):
        if not visit.failed:
            break
        streak.append(visit)
    first, last = streak[-1], streak[0]
    dead = (last.day - first.day).days >= DEAD_AFTER_DAYS
    state = State.DEAD if dead else State.FAILING
    return AddressState(last.url, state, last.day, first.day, last, failures=len(streak))


def _since(visits: Sequence[Visit], same: object) -> date:
    """The day of the first visit of the last run of visits alike by `same`."""
    since = visits[-1].day
    for visit in reversed(visits):
        if not same(visit):  # type: ignore[operator]
            break
        since = visit.day
    return since


def _refused(visit: Visit) -> bool:
    return visit.failure is Failure.REFUSED


def _soft(visit: Visit) -> bool:
    return visit.soft is not None and not visit.failed


def _moved(visit: Visit) -> bool:
    return visit.answered and visit.moved_to is not None


def _live(visit: Visit) -> bool:
    return visit.answered and visit.soft is None


def _gone(visits: Sequence[Visit], proved: set[str]) -> list[tuple[str, date]]:
    """Each proved quote the last visit did not find, with the day since which no visit
    that looked found it."""
    last = visits[-1]
    gone = [quote for quote in last.gone() if quote in proved]
    out = []
    for quote in gone:
        since = last.day
        for visit in reversed(visits):
            held = {seen.quote: seen.held for seen in visit.quotes}
            if held.get(quote) is True:
                break
            if held.get(quote) is False:
                since = visit.day
        out.append((quote, since))
    return out


LABELS = {
    State.LIVE: "live",
    State.MOVED: "moved",
    State.CHANGED: "changed since the copy",
    State.SOFT_DEAD: "dead",
    State.DEAD: "dead",
    State.FAILING: "did not answer",
    State.REFUSED: "redirected elsewhere",
    State.UNWATCHED: "not watched",
}
"""How a reader is told each state."""

COLUMNS = ("live", "moved", "changed", "dead", "unsure")
"""The report's columns: a soft-dead address counts as dead; one that failed once, was
refused or not watched is unsure."""
COLUMN_OF = {
    State.LIVE: "live",
    State.MOVED: "moved",
    State.CHANGED: "changed",
    State.SOFT_DEAD: "dead",
    State.DEAD: "dead",
    State.FAILING: "unsure",
    State.REFUSED: "unsure",
    State.UNWATCHED: "unsure",
}
AGES = ("under a year", "1 to 2 years", "2 to 5 years", "5 years or more", "undated")
"""The ages of a source the report counts by, from its date to the day it was watched."""


def age_of(published: date | None, watched: date) -> str:
    """The report's age group of a source published on `published`, watched on `watched`."""
    if published is None:
        return AGES[-1]
    years = (watched - published).days / 365.25
    if years < 1:
        return AGES[0]
    if years < 2:
        return AGES[1]
    return AGES[2] if years < 5 else AGES[3]


@dataclass
class Tally:
    """Addresses counted by the report's columns, under one heading."""

    heading: str
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COLUMNS, 0))

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@dataclass
class Summary:
    """The report of the last watch: addresses by state, by category and by age."""

    day: date | None
    total: Tally
    by_category: list[Tally]
    by_age: list[Tally]
    unvisited: int = 0
    """Addresses the sources list that no watch has visited."""


def summarize(rows: Iterable[tuple[str, date | None, AddressState | None]]) -> Summary:
    """The report over (category, source's day, state) of every address."""
    total = Tally("all")
    categories: dict[str, Tally] = {}
    ages = {age: Tally(age) for age in AGES}
    unvisited = 0
    days = []
    listed = list(rows)
    for _category, _published, state in listed:
        if state is not None:
            days.append(state.day)
    last = max(days) if days else None
    for category, published, state in listed:
        if state is None:
            unvisited += 1
            continue
        column = COLUMN_OF[state.state]
        total.counts[column] += 1
        categories.setdefault(category, Tally(category)).counts[column] += 1
        ages[age_of(published, state.day)].counts[column] += 1
    by_category = [categories[name] for name in sorted(categories)]
    by_age = [tally for tally in ages.values() if tally.total]
    return Summary(last, total, by_category, by_age, unvisited)
