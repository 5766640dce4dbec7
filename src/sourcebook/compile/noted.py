"""What a piece of work read of a compiled record, column by column.

SQLite asks a connection's authorizer about every column a statement will read as it
prepares the statement (`SQLITE_READ`: the table and the column, through views and in
subqueries; a table read for its rows alone, as by `count(*)`, with an empty column).
While `noting()` is open in a thread, every compiled record opened in it, and every copy
of one the derive stage makes, tells it each column its statements read. A result made
from those columns alone is the same for any database in which they hold the same values
in the same rows: `digests` says whether they do, so that work done over the last build's
database is not done again over the next where nothing it read has changed.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

Column = tuple[str, str]
"""(table, column) as SQLite names them; the column is '' for a table's rows alone."""

_local = threading.local()


@contextmanager
def noting() -> Iterator[set[Column]]:
    """Note, in this thread, every column read until the block ends, into the set given."""
    before = getattr(_local, "noted", None)
    noted: set[Column] = set()
    _local.noted = noted
    try:
        yield noted
    finally:
        _local.noted = before


def note(action: int, table: str | None, column: str | None) -> None:
    """What an authorizer is asked: kept where a read is noted in this thread."""
    noted = getattr(_local, "noted", None)
    if noted is not None and action == sqlite3.SQLITE_READ and table:
        noted.add((table, column or ""))


def noting_only(action: int, table: str | None, column: str | None, *_: Any) -> int:
    """An authorizer that allows everything and notes reads: for sourcebook's own
    statements over the copies it writes (reading a record as of a day, its histories)."""
    note(action, table, column)
    return sqlite3.SQLITE_OK


def watched(connection: sqlite3.Connection) -> sqlite3.Connection:
    """`connection`, its reads noted while `noting()` is open in this thread."""
    if getattr(_local, "noted", None) is not None:
        connection.set_authorizer(noting_only)
    return connection


def digests(connection: sqlite3.Connection, noted: set[Column]) -> dict[str, bytes]:
    """For each table noted, a digest of its noted columns' values, row by row, in this
    database (with each row's rowid where the table has one); b'' for a table it lacks,
    such as one the work made in a copy of its own; for one that cannot be read, a digest
    never made again, so that the work is done again."""
    present = {
        name
        for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"
        )
    }
    by_table: dict[str, set[str]] = {}
    for table, column in noted:
        by_table.setdefault(table, set()).add(column)
    found: dict[str, bytes] = {}
    for table, columns in sorted(by_table.items()):
        if table not in present and table != "sqlite_master":
            found[table] = b""
            continue
        try:
            found[table] = _digest(connection, table, columns)
        except sqlite3.Error:
            found[table] = os.urandom(32)
    return found


def _digest(connection: sqlite3.Connection, table: str, columns: set[str]) -> bytes:
    name = _quoted(table)
    known = {row[1] for row in connection.execute(f"PRAGMA table_info({name})")}
    read = sorted(c for c in columns if c in known)
    selected = ", ".join(map(_quoted, read)) or "1"
    try:
        rows = connection.execute(f"SELECT rowid, {selected} FROM {name}").fetchall()
    except sqlite3.OperationalError:  # a view, or a table without rowids
        rows = connection.execute(f"SELECT {selected} FROM {name}").fetchall()
    return hashlib.sha256(marshal.dumps([tuple(read), rows])).digest()


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
