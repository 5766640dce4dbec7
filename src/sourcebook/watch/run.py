"""A watch of a record: every address visited once, each visit written down as it is made,
and a watch killed half-way taken up where it stopped.

Each visit is appended to its source's log (`watch/SOURCE.jsonl`) the moment it is made,
with the run it belongs to. A run in progress is noted in the record's state folder
(`.sourcebook-cache/watch/unfinished.json`: its id, its day, and each origin's robots.txt
as it was read); a watch started while one is noted, within `RESUME_DAYS` days of its day,
continues it: the addresses its log already holds a visit of for that run are not visited
again, nor any robots.txt asked for again. Once every address is visited, the run is
written to `watch/_runs.jsonl` and the note is removed. Only one watch of a record runs
at a time (a lock beside the note).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from sourcebook import __version__
from sourcebook.diagnostics import Diagnostics
from sourcebook.files import write_atomic
from sourcebook.incremental import Store
from sourcebook.model.record import Record
from sourcebook.model.settings import Settings
from sourcebook.model.watch import FOLDER, RUNS, SUFFIX, Run, Visit
from sourcebook.read.paths import Confined
from sourcebook.read.watch import line_of, run_line
from sourcebook.watch.polite import Polite, Visitor
from sourcebook.watch.robots import Robots
from sourcebook.watch.targets import Target, targets

RESUME_DAYS = 7
"""An unfinished watch older than this is begun afresh: the web has moved on since."""
NOTE = "unfinished.json"


class WatchError(Exception):
    """A watch that cannot be made; the message is one line for a person."""


@dataclass(frozen=True)
class Watched:
    """What a watch did."""

    root: Path
    run: str
    day: date
    addresses: int
    """Every address the sources list."""
    visited: int
    """Addresses visited by this watch."""
    before: int
    """Addresses the run had visited before it was killed (a resumed watch's)."""
    requests: int
    size: int
    seconds: float
    finished: bool
    """Every address is visited; False where the budget ran out first."""


def user_agent(settings: Settings) -> str:
    """`sourcebook/VERSION (+SITE)`: the tool, and the site whose sources it watches (its
    base URL, else the book's title), in the printable ASCII a header carries."""
    site = settings.site.base_url.strip() or settings.book.title
    printable = "".join(c if " " <= c <= "~" and c not in "()" else " " for c in site)
    shown = " ".join(printable.split()) or "a sourcebook record"
    return f"sourcebook/{__version__} (+{shown}; watching the sources it cites)"


def watch_record(
    root: Path, polite: Polite, day: date | None = None, fresh: bool = False
) -> Watched:
    """Watch every address of the record at `root`, as `polite` says, its visits written
    as of `day` (default: today, in UTC); `fresh` begins a new run whatever is unfinished.
    Raises WatchError."""
    from sourcebook.pipeline import read_and_link

    started = time.monotonic()
    diagnostics = Diagnostics()
    record, graph = read_and_link(root, None, diagnostics)
    if record is None:
        first = diagnostics.errors[0].format() if diagnostics.errors else "no record"
        raise WatchError(f"the record cannot be read: {first}")
    folder = _folder(root)
    day = day or datetime.now(UTC).date()
    with _locked(root) as note:
        run, robots = _run(note, day, fresh)
        every = targets(record, graph)
        done = _visited(record, run)
        pending = [t for t in every if (t.source, t.url) not in done]
        _save(note, run, day, robots)
        log = _Log(folder)
        kept = _RobotsKept(note, run, day, robots)
        visitor = Visitor(polite, day, run, robots, kept)
        spent = visitor.visit_all(pending, log.append)
        seconds = time.monotonic() - started
        finished = not spent.stopped
        if finished:
            size = spent.size
            log.add_run(Run(run, day, len(every), spent.requests, size, seconds))
            _clear(note)
    return Watched(
        root, run, day, len(every), log.count, len(done & {(t.source, t.url) for t in every}),
        spent.requests, spent.size, seconds, finished,
    )  # fmt: skip


def _folder(root: Path) -> Path:
    folder = root / FOLDER
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise WatchError(f"{FOLDER}/ is not a folder of the record: the log is not written")
    folder.mkdir(exist_ok=True)
    if not Confined(root).holds(folder):
        raise WatchError(f"{FOLDER}/ leads outside the record: the log is not written")
    return folder


def _visited(record: Record, run: str) -> set[tuple[str, str]]:
    return {
        (source, visit.url)
        for source, visits in record.watch.visits.items()
        for visit in visits
        if visit.run == run
    }


class _Log:
    """The log's files, appended to one whole line at a time (one write each, so that a
    watch killed at any moment leaves whole lines)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.count = 0
        self._lock = threading.Lock()

    def append(self, target: Target, visit: Visit) -> None:
        with self._lock:
            self._write(self.folder / f"{target.source}{SUFFIX}", line_of(visit))
            self.count += 1

    def add_run(self, run: Run) -> None:
        with self._lock:
            self._write(self.folder / RUNS, run_line(run))

    @staticmethod
    def _write(path: Path, line: str) -> None:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(path, flags, 0o644)
        except OSError as exc:
            raise WatchError(f"{path.as_posix()}: {exc.strerror}") from None
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)


@contextlib.contextmanager
def _locked(root: Path) -> Iterator[Path | None]:
    """The note of the unfinished run (None where no state can be kept), held by this
    watch alone."""
    import fcntl

    kept = Store.of(root).folder(FOLDER)
    if kept is None:
        yield None
        return
    with open(kept / "lock", "a+b") as lock:
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise WatchError("another watch of this record is running") from None
        try:
            yield kept / NOTE
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def _run(note: Path | None, day: date, fresh: bool) -> tuple[str, dict[str, Robots]]:
    """The run to make: the unfinished one where there is one to take up, else a new one."""
    if note is not None and not fresh:
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            data = json.loads(note.read_text(encoding="utf-8"))
            begun = date.fromisoformat(data["day"])
            if 0 <= (day - begun).days <= RESUME_DAYS and isinstance(data["run"], str):
                robots = {
                    origin: found
                    for origin, plain in data["robots"].items()
                    if (found := Robots.from_plain(plain)) is not None
                }
                return data["run"], robots
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"), {}


def _save(note: Path | None, run: str, day: date, robots: dict[str, Robots]) -> None:
    if note is None:
        return
    data = {
        "run": run,
        "day": day.isoformat(),
        "robots": {origin: found.plain() for origin, found in robots.items()},
    }
    with contextlib.suppress(OSError):
        write_atomic(note, json.dumps(data, ensure_ascii=False).encode("utf-8"))


def _clear(note: Path | None) -> None:
    if note is not None:
        with contextlib.suppress(OSError):
            note.unlink()


@dataclass
class _RobotsKept:
    """Notes each robots.txt read in the run's note, as soon as it is read (called by one
    lane at a time)."""

    note: Path | None
    run: str
    day: date
    robots: dict[str, Robots]

    def __call__(self, origin: str, robots: Robots) -> None:
        _save(self.note, self.run, self.day, self.robots)
