"""Run the record's own SQL safely: read-only, one statement, within a time limit.

Indicators and tests are SQL written in record files. The compiled record is opened
read-only (a `mode=ro` URI and `PRAGMA query_only`), an authorizer refuses anything
but reading, and a progress handler stops a query that runs past its time limit.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Any

from sourcebook.compile.as_of import copy_as_of
from sourcebook.compile.noted import note, watched
from sourcebook.incremental import Columns

DEFAULT_SECONDS = 2.0
MAX_SECONDS = 10.0
"""The longest any query may run, whatever the record's settings say."""
MAX_ANSWER_BYTES = 1_000_000
"""The most a query may return, its values counted as their text: an answer is carried
to the build, and a chart's into its page, its table, its CSV and its drawing."""
_PROGRESS_STEPS = 1000
"""SQLite virtual-machine steps between two looks at the clock."""
_LIMITS = {
    sqlite3.SQLITE_LIMIT_ATTACHED: 0,
    # The largest string or blob a query may make: randomblob(1e9) is refused, not
    # allocated. No smaller: the record's own texts (a body of up to 50 MB) must be read.
    sqlite3.SQLITE_LIMIT_LENGTH: 60_000_000,
    sqlite3.SQLITE_LIMIT_SQL_LENGTH: 100_000,
    sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH: 1000,
    sqlite3.SQLITE_LIMIT_EXPR_DEPTH: 200,
    sqlite3.SQLITE_LIMIT_COMPOUND_SELECT: 100,
}

_ALLOWED = {
    sqlite3.SQLITE_SELECT,
    sqlite3.SQLITE_READ,
    sqlite3.SQLITE_FUNCTION,
    sqlite3.SQLITE_RECURSIVE,
}
# FTS5 reads its schema and the data version as it opens the search table; the
# connection is query-only, so these can change nothing.
_FTS5_INTERNALS = {
    (sqlite3.SQLITE_UPDATE, "sqlite_master"),
    (sqlite3.SQLITE_PRAGMA, "data_version"),
}
_DENIED_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"}
_WRITING = ("not authorized", "authorization", "readonly", "may not be modified")
_TOKEN = re.compile(r'(?:near|column|table|function):?\s*"?([^":]+?)"?(?::|$)')


class Failure(StrEnum):
    """Why a query gave no answer; each has its diagnostic code."""

    FAILED = "X001"
    NOT_READ_ONLY = "X002"
    TOO_SLOW = "X003"
    SHAPE = "X004"


class QueryError(Exception):
    """A query that gave no usable answer, with where in its text the trouble is."""

    def __init__(self, failure: Failure, message: str, offset: int | None = None):
        super().__init__(message)
        self.failure, self.message, self.offset = failure, message, offset

    def __reduce__(self) -> tuple[Any, tuple[Failure, str, int | None]]:
        return QueryError, (self.failure, self.message, self.offset)

    def __eq__(self, other: object) -> bool:
        """The same failure, told the same: what derive found of a query compares as the
        values it holds, from run to run (see `publish.site.kept_site`)."""
        if not isinstance(other, QueryError):
            return NotImplemented
        return self.__reduce__() == other.__reduce__()

    def __hash__(self) -> int:
        return hash(self.__reduce__()[1])


@dataclass(frozen=True, slots=True)
class Result:
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    more: bool
    """True when the query had more rows than were asked for."""


class CompiledRecord:
    """A compiled record opened for reading; the record's own queries run through `run`."""

    def __init__(
        self, connection: sqlite3.Connection, seconds: float | None = None, monitor: Any = None
    ):
        connection.execute("PRAGMA query_only = ON")
        for limit, value in _LIMITS.items():
            connection.setlimit(limit, value)
        connection.set_authorizer(_authorize)
        connection.row_factory = sqlite3.Row
        self.connection = connection
        self.seconds = min(seconds if seconds is not None else self._record_seconds(), MAX_SECONDS)
        self.monitor = monitor
        """Where the record's queries run in a process of their own (see `sandbox`), what
        watches them there."""

    @cached_property
    def day(self) -> str:
        """The day the record stands at."""
        return self.meta("as_of") or ""

    def __enter__(self) -> CompiledRecord:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.connection.close()

    def image(self) -> bytes:
        """The whole database, serialized (see `open_image`)."""
        self.connection.set_authorizer(None)  # serializing reads the file as a whole
        try:
            return self.connection.serialize()
        finally:
            self.connection.set_authorizer(_authorize)

    def tables_read(self, sql: str) -> frozenset[str]:
        """The tables a statement reads (through views included), found as SQLite prepares
        it, without running it; empty for a statement that does not prepare."""
        read: set[str] = set()

        def note(action: int, table: str | None, *_: Any) -> int:
            if action == sqlite3.SQLITE_READ and table:
                read.add(table)
            return _authorize(action, table, *_)

        self.connection.set_authorizer(note)
        try:
            self.connection.execute(f"EXPLAIN {sql}").fetchall()
        except sqlite3.Error:
            return frozenset()
        finally:
            self.connection.set_authorizer(_authorize)
        return frozenset(read)

    def writable(self) -> sqlite3.Connection:
        """The connection with writing allowed again, for the derive stage's own copies
        (see `as_of`); the record's queries never run on it."""
        self.connection.set_authorizer(None)
        watched(self.connection)  # what sourcebook's own statements read is noted still
        self.connection.execute("PRAGMA query_only = OFF")
        return self.connection

    def meta(self, key: str) -> str | None:
        row = self.connection.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        """sourcebook's own fixed queries over the record's tables."""
        return self.connection.execute(sql, params).fetchall()

    def as_of(self, day: date) -> CompiledRecord:
        """An in-memory copy of this record as it stood on `day`; close it after use."""
        return CompiledRecord(copy_as_of(self.connection, day), self.seconds, self.monitor)

    def run(self, sql: str, max_rows: int = 1000, seconds: float | None = None) -> Result:
        """Run one of the record's own statements, within `seconds` (default: the record's
        limit). Raises QueryError, saying why and where."""
        seconds = self.seconds if seconds is None else min(seconds, self.seconds)
        if self.monitor is not None:
            return self.monitor.run(self, sql, max_rows, seconds)  # type: ignore[no-any-return]
        return self.run_here(sql, max_rows, seconds)

    def run_here(self, sql: str, max_rows: int, seconds: float) -> Result:
        """`run` in this process: stopped between steps once past `seconds`."""
        if seconds <= 0:
            raise _too_slow(self.seconds)
        deadline = time.monotonic() + seconds
        self.connection.set_progress_handler(_stopper(deadline), _PROGRESS_STEPS)
        try:
            cursor = self.connection.execute(sql)
            rows = _fetched(cursor, max_rows + 1)
            columns = tuple(d[0] for d in cursor.description or ())
            cursor.close()
        except sqlite3.ProgrammingError as exc:
            raise _programming(exc) from None
        except sqlite3.Error as exc:
            raise _classify(exc, sql, self.seconds) from None
        except MemoryError:
            raise QueryError(Failure.FAILED, "the query ran out of memory") from None
        finally:
            self.connection.set_progress_handler(None, 0)
        return Result(columns, tuple(tuple(r) for r in rows[:max_rows]), len(rows) > max_rows)

    def _record_seconds(self) -> float:
        try:
            value = self.meta("query_seconds")
        except sqlite3.Error:
            return DEFAULT_SECONDS
        return float(value) if value else DEFAULT_SECONDS


class Image(bytes):
    """A compiled record as the bytes of its database (`open_image` opens it), with what
    each column held when it was compiled, by digest (`incremental.Columns`): what the
    queries' memo compares without reading the database again."""

    columns: Columns | None

    def __new__(cls, data: bytes, columns: Columns | None = None) -> Image:
        made = super().__new__(cls, data)
        made.columns = columns
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return Image, (bytes(self), self.columns)


def open_record(path: Path | str, seconds: float | None = None) -> CompiledRecord:
    """The compiled record at `path`, opened read-only; `seconds` defaults to the record's."""
    uri = f"{Path(path).resolve().as_uri()}?mode=ro"
    return CompiledRecord(sqlite3.connect(uri, uri=True), seconds)


def open_image(image: bytes, seconds: float | None = None) -> CompiledRecord:
    """A compiled record from its serialized bytes (`sqlite3.Connection.serialize`), in
    memory: what check compiled, read again without compiling twice."""
    connection = sqlite3.connect(":memory:")
    connection.deserialize(image)
    return CompiledRecord(connection, seconds)


def _fetched(cursor: sqlite3.Cursor, most: int) -> list[Any]:
    """Up to `most` rows, one at a time, refused once their values pass MAX_ANSWER_BYTES:
    no more of an answer than that is ever held."""
    rows = []
    size = 0
    for row in cursor:
        size += sum(len(v) if isinstance(v, (str, bytes)) else 8 for v in row)
        if size > MAX_ANSWER_BYTES:
            cursor.close()
            raise QueryError(
                Failure.SHAPE,
                f"the query returns more than {MAX_ANSWER_BYTES:,} bytes; ask for fewer rows "
                "or shorter values",
            )
        rows.append(row)
        if len(rows) == most:
            break
    return rows


def _stopper(deadline: float) -> Callable[[], int]:
    def stop() -> int:
        return int(time.monotonic() > deadline)

    return stop


def _authorize(action: int, arg1: str | None, arg2: str | None, *_: Any) -> int:
    note(action, arg1, arg2)
    if (action, arg1) in _FTS5_INTERNALS:
        return sqlite3.SQLITE_OK
    if action not in _ALLOWED:
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in _DENIED_FUNCTIONS:
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


def _programming(exc: sqlite3.ProgrammingError) -> QueryError:
    if "one statement" in str(exc):
        return QueryError(
            Failure.NOT_READ_ONLY, "a query is one SELECT statement; this holds several"
        )
    return QueryError(Failure.FAILED, str(exc))


def _too_slow(seconds: float) -> QueryError:
    return QueryError(
        Failure.TOO_SLOW, f"the query ran past its time limit of {seconds:g} s and was stopped"
    )


def _classify(exc: sqlite3.Error, sql: str, seconds: float) -> QueryError:
    message = str(exc)
    if message == "interrupted":
        return _too_slow(seconds)
    if any(word in message for word in _WRITING):
        return QueryError(
            Failure.NOT_READ_ONLY,
            f"the query does more than read ({message}); only SELECT is allowed",
            _statement_start(sql),
        )
    return QueryError(Failure.FAILED, message, _offset(message, sql))


def _statement_start(sql: str) -> int:
    return len(sql) - len(sql.lstrip())


def _offset(message: str, sql: str) -> int | None:
    """Where in the query the token an SQLite message names first appears."""
    found = _TOKEN.search(message)
    if not found:
        return None
    token = found[1].strip().split(".")[-1]
    if not token:
        return None
    match = re.search(rf"(?<!\w){re.escape(token)}(?!\w)", sql, re.I)
    return match.start() if match else None
