"""Visiting many addresses without troubling any host: one host at a time per lane, a
delay between requests, robots.txt asked first, and a budget for the whole watch.

The addresses are grouped by host (its name and port). Up to `Polite.hosts` hosts are
visited at once, each by `Polite.per_host` lanes (1 or 2) that share it: the start of any
request to a host waits until `delay` seconds after the start of the one before (or the
`Crawl-delay` its robots.txt asks, where longer). Each origin's robots.txt is asked for
once, before its first address, and every address it forbids is written down unvisited.

The whole watch spends at most `total_seconds` and `total_bytes`: each fetch is given
what remains where that is less than its own budget, and once either is spent no more
visits start. A visit that ran out of the whole watch's budget (not its own) is not
written down, so the next watch makes it.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import date
from urllib.parse import urlsplit

from sourcebook.library.fetch import Budget, FetchError, RedirectRefused, fetch
from sourcebook.library.origins import Resolver
from sourcebook.model.watch import Failure, Visit
from sourcebook.watch.robots import MAX_BYTES, Robots
from sourcebook.watch.targets import Target
from sourcebook.watch.visit import Asked, Outcome, visit


@dataclass(frozen=True)
class Polite:
    """How a watch visits: its manners and its budgets."""

    delay: float = 1.0
    """Seconds between the starts of two requests to one host."""
    per_host: int = 1
    """Requests to one host at once: 1 or 2."""
    hosts: int = 8
    """Hosts visited at once."""
    budget: Budget = field(default_factory=Budget)
    """What one fetch may cost: the Library's budget."""
    total_seconds: float = 3600.0
    total_bytes: int = 1024 * 1024 * 1024
    user_agent: str = "sourcebook"
    resolve: Resolver | None = None


@dataclass
class Spent:
    """What the watch has spent so far (shared by every lane)."""

    started: float = field(default_factory=time.monotonic)
    requests: int = 0
    size: int = 0
    stopped: bool = False
    """The whole watch's budget ran out before every address was visited."""
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, requests: int, size: int) -> None:
        with self.lock:
            self.requests += requests
            self.size += size


Written = Callable[[Target, Visit], None]
"""Where each visit goes, as soon as it is made: the log."""
RobotsKept = Callable[[str, Robots], None]


@dataclass
class _Host:
    delay: float
    next_start: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def wait_turn(self) -> None:
        """Wait until this lane may start a request to the host, and take that turn."""
        with self.lock:
            start = max(time.monotonic(), self.next_start)
            self.next_start = start + self.delay
        time.sleep(max(0.0, start - time.monotonic()))


class Visitor:
    """Visits targets as `Polite` says; `robots` holds what is known of each origin's
    robots.txt (a resumed watch's), and `kept` is told of each one newly asked."""

    def __init__(
        self, polite: Polite, day: date, run: str, robots: dict[str, Robots], kept: RobotsKept
    ):
        self.polite = polite
        self.day, self.run = day, run
        self.robots = robots
        self.kept = kept
        self.spent = Spent()
        self._origin_locks: dict[str, threading.Lock] = {}
        self._locks = threading.Lock()
        self._failed: list[BaseException] = []
        """What stopped a lane (the log could not be written): raised once all are done."""

    def visit_all(self, targets: list[Target], written: Written) -> Spent:
        groups: dict[str, list[Target]] = {}
        for target in targets:
            groups.setdefault(_host(target.url), []).append(target)
        with ThreadPoolExecutor(max_workers=max(1, self.polite.hosts)) as pool:
            done = [pool.submit(self._host, group, written) for group in groups.values()]
            for future in done:
                future.result()
        if self._failed:
            raise self._failed[0]
        return self.spent

    def _host(self, targets: list[Target], written: Written) -> None:
        queue = deque(targets)
        host = _Host(self.polite.delay)
        lanes = [
            threading.Thread(target=self._guarded, args=(queue, host, written), daemon=True)
            for _ in range(max(1, min(self.polite.per_host, 2, len(queue))))
        ]
        for lane in lanes:
            lane.start()
        for lane in lanes:
            lane.join()

    def _guarded(self, queue: deque[Target], host: _Host, written: Written) -> None:
        try:
            self._lane(queue, host, written)
        except BaseException as exc:  # noqa: BLE001 - raised again by visit_all
            self.spent.stopped = True
            self._failed.append(exc)

    def _lane(self, queue: deque[Target], host: _Host, written: Written) -> None:
        while not self.spent.stopped:
            try:
                target = queue.popleft()
            except IndexError:
                return
            robots = self._robots(target.url, host)
            if robots is None:
                return
            unvisited = _unvisited(target, robots, self.day, self.run)
            if unvisited is not None:
                written(target, unvisited)
                continue
            asked = robots.delay()
            if asked is not None and asked > host.delay:
                host.delay = asked
            outcome = self._fetch(target, host)
            if outcome is None:
                return
            written(target, outcome.visit)

    def _fetch(self, target: Target, host: _Host) -> Outcome | None:
        budget = self._budget()
        if budget is None:
            return None
        host.wait_turn()
        budget = self._budget()
        if budget is None:
            return None
        asked = Asked(budget, self.polite.user_agent, self.day, self.run, self.polite.resolve)
        outcome = visit(target, asked)
        self.spent.add(outcome.requests, outcome.size)
        if outcome.error is not None and self._cut_short(outcome.error, budget):
            self.spent.stopped = True
            return None
        return outcome

    def _budget(self) -> Budget | None:
        """What the next fetch may spend: its own budget, or what the watch has left."""
        polite, spent = self.polite, self.spent
        seconds = polite.total_seconds - (time.monotonic() - spent.started)
        size = polite.total_bytes - spent.size
        if seconds < 0.5 or size <= 0:
            spent.stopped = True
            return None
        return Budget(min(polite.budget.seconds, seconds), min(polite.budget.max_bytes, size))

    def _cut_short(self, error: FetchError, budget: Budget) -> bool:
        """Whether a fetch failed for the whole watch's budget rather than its own."""
        own = self.polite.budget
        if error.code == "Q102":
            return budget.seconds < own.seconds
        if error.code == "Q101":
            return budget.max_bytes < own.max_bytes
        return False

    def _robots(self, url: str, host: _Host) -> Robots | None:
        """The robots.txt of the url's origin, asked for first where not yet known; None
        where the watch's budget ran out first."""
        origin = _origin(url)
        with self._locks:
            lock = self._origin_locks.setdefault(origin, threading.Lock())
        with lock:
            known = self.robots.get(origin)
            if known is not None:
                return known
            budget = self._budget()
            if budget is None:
                return None
            host.wait_turn()
            robots = self._ask_robots(
                origin, replace(budget, max_bytes=min(MAX_BYTES, budget.max_bytes))
            )
            if robots is None:
                return None
            with self._locks:  # the note of the run is written from every lane
                self.robots[origin] = robots
                self.kept(origin, robots)
            return robots

    def _ask_robots(self, origin: str, budget: Budget) -> Robots | None:
        """What the origin's robots.txt says; None where the whole watch's time ran out
        while it was asked for (then nothing is known of it)."""
        try:
            fetched = fetch(
                origin + "/robots.txt",
                budget,
                resolve=self.polite.resolve,
                user_agent=self.polite.user_agent,
            )
        except FetchError as exc:
            self.spent.add(1, 0)
            if exc.code == "Q102" and budget.seconds < self.polite.budget.seconds:
                self.spent.stopped = True
                return None
            if exc.code == "Q101" or isinstance(exc, RedirectRefused):
                return Robots(404, note=str(exc))
            return Robots(None, note=" ".join(str(exc).split()))
        self.spent.add(1 + len(fetched.redirects), len(fetched.raw))
        return Robots(fetched.status, fetched.body.decode("utf-8", errors="replace"))


def _unvisited(target: Target, robots: Robots, day: date, run: str) -> Visit | None:
    """The visit written down without asking: the host gave no answer to robots.txt, or
    robots.txt forbids the address."""
    if not robots.answered:
        note = f"the host gave no answer: {robots.note}"
        return Visit(day=day, url=target.url, run=run, failure=Failure.NO_ANSWER, note=note)
    if not robots.allows(target.url):
        note = (
            f"robots.txt answered {robots.status}: no visit"
            if robots.status and robots.status >= 500
            else "robots.txt forbids it"
        )
        return Visit(day=day, url=target.url, run=run, failure=Failure.ROBOTS, note=note)
    return None


def _host(url: str) -> str:
    parts = urlsplit(url)
    return f"{(parts.hostname or '').lower()}:{parts.port or ''}"


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.rsplit('@', 1)[-1].lower()}"
