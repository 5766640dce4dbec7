"""The record's own SQL, run in a process of its own, within time and memory it cannot exceed.

An indicator's or a test's query is code from whoever wrote the record. In the process
that runs it, SQLite's progress handler stops a query that runs long between two steps of
its virtual machine; but one step can be one call of `instr()`, `replace()` or `like()` on
megabytes of text, which nothing inside the process can interrupt. So the work that runs
the record's queries (check's run of each, derive's scorecard, verdicts and history) runs
in a child process, which tells this one as each query starts and ends. A query that
outruns its limit by GRACE_SECONDS is stopped by killing the child; a new child then
carries on with the same work, told how each query already run came out, so that nothing
runs twice and the stopped query fails as too slow. The child's memory is capped too.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import resource
import sqlite3
import threading
import time
from collections.abc import Callable
from functools import partial
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from sourcebook.children import (
    die_with,
    for_child,
    last_line,
    stderr_file,
    stop,
    write_stderr_to,
    written,
)
from sourcebook.compile.database import CompiledRecord, Failure, QueryError, Result, open_image
from sourcebook.compile.noted import Column, digests, noting
from sourcebook.incremental import Columns, QueryRuns, run_key, version_of
from sourcebook.runtime.memo import answers_asked, give_answers

T = TypeVar("T")

GRACE_SECONDS = 1.0
"""How long past its limit a query may run before its process is killed: the progress
handler stops almost every query by itself, with a better message."""
TOTAL_SECONDS = 60.0
"""All the record's queries of one run together, at most: past it, every query left fails."""
MEMORY_BYTES = 2 << 30
"""Memory the child may take beyond what it starts with (the record it was forked with)."""
SQLITE_HEAP_BYTES = 1 << 30
"""SQLite's own heap in the child, at most."""

Key = tuple[str, bytes | None, str, int]
"""One run of one query: (the day the record stands at, a digest of what the statement can
read on that day, the statement, the most rows asked for). The digest is there where the
compiled record says what its tables hold on each day (`incremental.Columns`), so that a
later build whose record holds the same then is given the run's outcome again
(`Monitor.key`); None where it does not say."""
Outcome = Result | QueryError


def isolated(
    image: bytes,
    job: Callable[[CompiledRecord], T],
    seconds: float | None = None,
    runs: QueryRuns | None = None,
) -> T:
    """`job(db)` run in a child process over the compiled record `image`, its queries each
    within `seconds` (default: the record's limit) however they run, and all of them
    within TOTAL_SECONDS. Where `runs` holds the same job's last run, and nothing that run
    read of its record differs in `image`, its value is given again instead; where it must
    run, each of its queries whose key is among the last run's answers (`Monitor.key`: what
    the query reads on its day, as `image` says) is given that answer again."""
    return versioned(image, job, seconds, runs)[0]


def versioned(
    image: bytes,
    job: Callable[[CompiledRecord], T],
    seconds: float | None = None,
    runs: QueryRuns | None = None,
) -> tuple[T, bytes]:
    """`isolated`'s value, with its version: a digest of it as pickled (`version_of`), the
    same in every process that computes it."""
    found = _given_again(image, job, seconds, runs)
    if found is not None:
        return found
    if not _holds_queries(image):  # nothing of the record's own runs: no need to isolate
        made, version = _here(image, job, seconds, runs)
        return made, version or version_of(pickle.dumps(made))
    key = run_key(job, seconds) if runs is not None else b""
    digests = partial(_digests, image)
    known: dict[Key, Outcome] = runs.outcomes(key) if runs is not None else {}
    given = set(known)
    started = time.monotonic()
    attempts = 0
    while True:
        attempts += 1
        done, value, noted, in_time = _attempt(image, seconds, job, known, started)
        if done:
            break
    # Not kept where a query was stopped for time: what it gave depends on the clock, and
    # what it read went with the child that ran it.
    version = b""
    if runs is not None and in_time and attempts == 1:
        version = runs.record(key, frozenset(noted), digests, value)
    if runs is not None:  # each query's answer, by what it read on its day
        runs.ran += len(known.keys() - given)
        said = {k: v for k, v in known.items() if k[1] is not None and isinstance(v, Result)}
        runs.keep_outcomes(key, said)
    return pickle.loads(value), version or version_of(value)


def in_process(
    image: bytes,
    job: Callable[[CompiledRecord], T],
    seconds: float | None = None,
    runs: QueryRuns | None = None,
) -> T:
    """`job(db)` run in this process over the compiled record `image`: for a job that runs
    sourcebook's own SQL alone, none of the record's. Kept in `runs`, and given again, as
    `isolated` keeps a run."""
    found = _given_again(image, job, seconds, runs)
    return (found if found is not None else _here(image, job, seconds, runs))[0]


def _given_again(
    image: bytes, job: Callable[[CompiledRecord], T], seconds: float | None, runs: QueryRuns | None
) -> tuple[T, bytes] | None:
    """The value of the job's last run in `runs`, with its version, where nothing it read
    differs in `image`."""
    if runs is None:
        return None
    return runs.lookup(run_key(job, seconds), partial(_digests, image))


def _here(
    image: bytes, job: Callable[[CompiledRecord], T], seconds: float | None, runs: QueryRuns | None
) -> tuple[T, bytes]:
    """`job(db)` run in this process, its run recorded in `runs` with what it read; with its
    version where it was recorded."""
    with noting() as noted, open_image(image, seconds) as db:
        made = job(db)
    if runs is None:
        return made, b""
    digests = partial(_digests, image)
    pickled = pickle.dumps(made)
    return made, runs.record(run_key(job, seconds), frozenset(noted), digests, pickled)


def _digests(image: bytes, noted: frozenset[Column]) -> dict[str, bytes]:
    """What the columns `noted` hold in the compiled record `image`, by table: as the
    compile said they held (`Image.columns`), else read from the database."""
    columns = getattr(image, "columns", None)
    if columns is not None:
        return columns.digests(noted)  # type: ignore[no-any-return]
    connection = sqlite3.connect(":memory:")
    try:
        connection.deserialize(image)
        return digests(connection, set(noted))
    finally:
        connection.close()


QUERY_TABLES = ("indicators", "tests", "charts")
"""The tables whose `query` column holds the record's own SQL."""


def _holds_queries(image: bytes) -> bool:
    connection = sqlite3.connect(":memory:")
    try:
        connection.deserialize(image)
        return any(
            connection.execute(f"SELECT 1 FROM {table} WHERE query != '' LIMIT 1").fetchone()
            for table in QUERY_TABLES
        )
    except sqlite3.Error:
        return True
    finally:
        connection.close()


def _attempt(
    image: bytes,
    seconds: float | None,
    job: Callable[[CompiledRecord], Any],
    known: dict[Key, Outcome],
    started: float,
) -> tuple[bool, bytes, set[Column], bool]:
    """One child's run of `job`: (True, its value pickled, the columns it read, whether it
    ran each query to its end in time), or (False, …) where a query had to be stopped (now
    in `known` as too slow) and a new child must carry on."""
    context = _context()
    ours, theirs = context.Pipe(duplex=False)
    said = stderr_file()
    stderr = for_child(said)
    child = context.Process(
        target=_child,
        args=(theirs, image, seconds, job, dict(known), started, os.getpid(), stderr),
        daemon=True,
    )
    child.start()
    theirs.close()
    stderr.close()
    running: Key | None = None
    deadline = budget = float("inf")
    try:
        while True:
            wait = max(0.0, deadline - time.monotonic()) if running else None
            if not ours.poll(wait):
                assert running is not None
                known[running] = _too_slow(budget)
                return False, b"", set(), False
            try:
                message = ours.recv()
            except EOFError:  # the child died: out of memory, or killed from outside
                if running is None:
                    why = last_line(written(said)) or "it said nothing"
                    raise RuntimeError(
                        f"the process running the record's queries died: {why}"
                    ) from None
                known[running] = QueryError(
                    Failure.FAILED, "the query ran out of memory and was stopped"
                )
                return False, b"", set(), False
            kind = message[0]
            if kind == "start":
                running, budget = message[1], message[2]
                deadline = time.monotonic() + budget + GRACE_SECONDS
            elif kind == "end":
                known[message[1]] = message[2]
                running = None
            elif kind == "done":
                give_answers(message[4], asked=True)  # a pure function's, for the next run
                return True, message[1], message[2], message[3]
            else:  # "failed": the job itself raised, as it would have in this process
                raise message[1]
    finally:
        ours.close()
        said.close()
        stop(child)


def _too_slow(seconds: float) -> QueryError:
    return QueryError(
        Failure.TOO_SLOW, f"the query ran past its time limit of {seconds:g} s and was stopped"
    )


PRELOADED = (
    "sourcebook.derive",
    "sourcebook.derive.queries",
    "sourcebook.pipeline",
    "sourcebook.derive.preload",
)
"""The modules of the jobs a child runs, and the registry of units (`derive/preload.py`),
loaded once by the fork server (where children are forked from one) rather than by each
child as it takes its job: at 10,000 entities, 0.2 s of each child's start for the modules
and 0.4 s for the registry, twice a save."""


def _context() -> Any:
    """The multiprocessing context children are started by (its Process, typed as Any)."""
    method = _start_method()
    context: Any = multiprocessing.get_context(method)
    if method == "forkserver":  # where the server has started already, it holds them
        context.set_forkserver_preload(list(PRELOADED))
    return context


def _start_method() -> str:
    """Fork where this process has no other thread (the child then shares the record's
    memory until it writes); a server's process forks from a clean one instead, since a
    fork copies locks held by threads that do not exist in the child."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


def _child(
    out: Connection,
    image: bytes,
    seconds: float | None,
    job: Callable[[CompiledRecord], Any],
    known: dict[Key, Outcome],
    started: float,
    parent: int,
    stderr: Connection,
) -> None:
    die_with(parent)
    write_stderr_to(stderr)
    try:
        _cap_memory()
        connection = sqlite3.connect(":memory:")
        connection.execute(f"PRAGMA hard_heap_limit = {SQLITE_HEAP_BYTES}")
        connection.deserialize(image)
        monitor = Monitor(out, known, started, getattr(image, "columns", None))
        with noting() as noted:
            value = pickle.dumps(job(CompiledRecord(connection, seconds, monitor)))
    except Exception as exc:
        out.send(("failed", exc))
    else:
        out.send(("done", value, noted, not monitor.stopped, answers_asked()))
    finally:
        out.close()


def _cap_memory() -> None:
    """Let the child grow by MEMORY_BYTES at most: a query that would take more fails."""
    with contextlib.suppress(OSError, ValueError):
        with open("/proc/self/statm") as statm:
            size = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        resource.setrlimit(resource.RLIMIT_AS, (size + MEMORY_BYTES, size + MEMORY_BYTES))


class Monitor:
    """In the child: tells the parent as each query starts and ends, answers a query already
    run by an earlier child as it came out, and keeps the run within TOTAL_SECONDS."""

    def __init__(
        self,
        out: Connection,
        known: dict[Key, Outcome],
        started: float,
        columns: Columns | None = None,
    ):
        self.out = out
        self.known = known
        self.started = started
        self.stopped = False
        """Whether a query was stopped for time: what comes of it depends on the clock."""
        self.columns = columns
        """What the compiled record holds on each day, where it says (`Image.columns`)."""
        self._tables: dict[str, frozenset[str]] = {}

    def key(self, db: CompiledRecord, sql: str, max_rows: int) -> Key:
        """The key of a run of `sql` over `db` (the record, or a copy of it as of an earlier
        day): with a digest of what the statement can read there, where the record says it
        (`incremental.Columns.as_of`). The tables it reads are found as SQLite prepares it,
        which notes the columns it reads as running it would."""
        day = db.day
        held = self.columns.as_of(day, self._read(db, sql)) if self.columns else None
        return (day, held, sql, max_rows)

    def _read(self, db: CompiledRecord, sql: str) -> frozenset[str]:
        tables = self._tables.get(sql)
        if tables is None:
            tables = self._tables[sql] = db.tables_read(sql)
        return tables

    def run(self, db: CompiledRecord, sql: str, max_rows: int, seconds: float) -> Result:
        key = self.key(db, sql, max_rows)
        outcome = self.known.get(key)
        if outcome is None:
            left = TOTAL_SECONDS - (time.monotonic() - self.started)
            if left <= 0:
                outcome = QueryError(
                    Failure.TOO_SLOW,
                    f"the record's queries together ran past {TOTAL_SECONDS:g} s;"
                    " this one was not run",
                )
            else:
                budget = min(seconds, left)
                self.out.send(("start", key, budget))
                try:
                    outcome = db.run_here(sql, max_rows, budget)
                except QueryError as exc:
                    outcome = exc
                except MemoryError:
                    outcome = QueryError(
                        Failure.FAILED, "the query ran out of memory and was stopped"
                    )
                self.out.send(("end", key, outcome))
            self.known[key] = outcome
        if isinstance(outcome, QueryError):
            self.stopped = self.stopped or outcome.failure is Failure.TOO_SLOW
            raise outcome
        return outcome
