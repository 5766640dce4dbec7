"""A database filled from tables of rows, changed in place from one run to the next.

A stage that writes a database from rows it makes (compile: the record's tables) gives
each run's rows table by table (`Fill`), and how the filled database is then settled
(`Settle`: compile's reading of the record as of its day, which deletes and moves rows
and whatever rested on them). A `KeptDatabase` held from run to run in the process
(`serve`'s) compares each table's rows with the last run's by value, and writes again only
the tables whose rows changed and those that rest on them (what the settling read of them,
noted by SQLite's authorizer as it ran): each emptied and filled in the same order as a
fresh database is, so its rows keep the same rowids and come back from a scan in the same
order. The rest is not touched. The database it gives (`image`) holds what a fresh fill
and settle of the same rows holds, table by table and row by row.

It also says what each column holds (`Columns.digests`), the way the queries' memo
(`QueryRuns`) compares what a job read, without reading the database again: a column's
digest is that of its rows as filled, and of everything its table's settling read; and
what a table holds settled on an earlier day (`Columns.as_of`), by the digests of its rows
known by each day (`Days`), so that a query's answer on a day is given again where what
it reads then is as it was. A database no memo keeps for a next run is filled afresh and
let go once given, and none of this is said of it: nothing would compare it.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import marshal
import os
import sqlite3
import weakref
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from sourcebook.incremental._memo import Memo, key_of

Column = tuple[str, str]
"""(table, column) as SQLite names them; the column is '' for a table's rows alone."""

KNOWN_FROM = "known_from"
"""The column that says the day a row is known from: settled on an earlier day, a table
holds its rows known by then (and what their settling keeps of them)."""

Settle = Callable[[sqlite3.Connection, Collection[str] | None], None]
"""Settle the tables named (all where None) of a filled database, in place."""


class Fill(Protocol):
    """One table's rows, in the order they go in."""

    @property
    def table(self) -> str: ...

    @property
    def rows(self) -> Sequence[tuple[Any, ...]]: ...

    def write(self, db: sqlite3.Connection) -> None:
        """Insert the rows into the table, which is empty."""


_WRITES = (sqlite3.SQLITE_DELETE, sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE)


def _digest(*parts: Any) -> bytes:
    try:
        return hashlib.sha256(marshal.dumps(parts)).digest()
    except ValueError:  # a value marshal cannot hold: never the same as another run's
        return os.urandom(32)


@dataclass(frozen=True)
class Days:
    """A table's rows as the days they are known from add them: for each day a row is known
    from (in order; '' for rows known from the start), a digest of every row known by then,
    each with its place in the table. What the table holds settled on a day rests on those
    rows alone (and on the other tables' rows its settling read)."""

    known: tuple[str, ...]
    digests: tuple[bytes, ...]

    @classmethod
    def of(cls, rows: Sequence[tuple[Any, ...]], column: int | None) -> Days:
        """The days of `rows`, whose `column` says the day each is known from (None: a
        table whose rows are known from the start)."""
        if column is None:
            return cls(("",), (_digest(rows),))
        order = sorted(range(len(rows)), key=lambda n: (rows[n][column] or "", n))
        digest = hashlib.sha256()
        known: list[str] = []
        digests: list[bytes] = []
        for n in order:
            day = rows[n][column] or ""
            if known and known[-1] != day:
                digests.append(digest.copy().digest())
            if not known or known[-1] != day:
                known.append(day)
            try:
                digest.update(marshal.dumps((n, rows[n])))
            except ValueError:
                digest.update(os.urandom(32))
        digests.append(digest.digest())
        return cls(tuple(known), tuple(digests[: len(known)]))

    def by(self, day: str) -> bytes:
        """The digest of the rows known by `day`."""
        found = bisect.bisect_right(self.known, day)
        return self.digests[found - 1] if found else b""


@dataclass(frozen=True)
class Columns:
    """What each column of a database held when it was given: by digest, for the queries'
    memo to compare with a later run's."""

    tokens: Mapping[Column, bytes]
    """Each filled table's columns (and its rows alone, as ''), as settled."""
    schema: bytes
    """What a view or the schema holds: views are read through their tables, which SQLite
    notes too."""
    other: frozenset[str]
    """The other tables the database holds (a full-text index's own): they change with
    anything."""
    whole: bytes
    """A digest of every table's rows and the day: what those other tables are said to hold."""
    views: frozenset[str] = frozenset()
    days: Mapping[str, Days] = field(default_factory=dict)
    """Each filled table's rows known by each day (see `Days`), where the database is kept
    from run to run: what its settling on an earlier day keeps depends on nothing else."""
    rests_on: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """The tables whose rows each table's settling read, and theirs in turn."""

    def as_of(self, day: str, tables: Iterable[str]) -> bytes | None:
        """A digest of what `tables` hold in the database settled on `day` (an ISO date no
        later than its own): of the rows of each, and of each table its settling read,
        known by then; None where it is not said (the database was not kept)."""
        if not self.days:
            return None
        read = set(tables)
        for table in list(read):
            read |= self.rests_on.get(table, frozenset())
        parts = []
        for table in sorted(read):
            days = self.days.get(table)
            if days is not None:
                parts.append((table, days.by(day)))
            elif table in self.other:
                parts.append((table, self.whole))
            else:  # a view or the schema, read through its tables; or one the database lacks
                parts.append((table, self.schema if table in self.views else b""))
        return _digest(day, self.schema, parts)

    def digests(self, noted: Iterable[Column]) -> dict[str, bytes]:
        """For each table noted, a digest of its noted columns (b'' for a table the database
        lacks, such as one a job made in a copy of its own)."""
        by_table: dict[str, list[bytes]] = {}
        for table, column in sorted(set(noted)):
            token = self.tokens.get((table, column))
            if token is None:
                if (table, "") in self.tokens:  # its rowid: which rows it holds
                    token = self.tokens[(table, "")]
                elif table in self.other:
                    token = self.whole
                elif table == "sqlite_master" or table in self.views:
                    token = self.schema
                else:
                    token = b""
            by_table.setdefault(table, []).append(token)
        return {table: _digest(tokens) for table, tokens in by_table.items()}


class KeptDatabase:
    """A database in memory, filled by `fill` and changed in place by the next (see the
    module's docstring). `held` gives the one a memo holds from the last run."""

    def __init__(self, schema: str):
        self.schema = schema
        self._db: sqlite3.Connection | None = None
        self._closing: weakref.finalize | None = None
        self._filled: dict[str, Sequence[tuple[Any, ...]]] = {}
        """Each table's rows, as last filled: the next fill compares its own with them by
        value (`_changed`), so that a table whose rows are the same is not digested."""
        self._types: dict[str, tuple[type, ...]] = {}
        """The type of each value of a table's rows, as last compared (SQLite holds 1, 1.0
        and True apart, where Python's equality does not)."""
        self._columns: dict[str, dict[str, bytes]] = {}
        """Each table's columns, as last filled, by digest; '' for its rows alone."""
        self._closures: dict[str, set[Column]] = {}
        """What the settling of each table read, its own columns and other tables', and
        what settling those read, in turn (`_closure`)."""
        self._days: dict[str, Days] = {}
        """Each table's rows by the day each is known from, where kept from run to run."""
        self._settled_as = ""
        self.written: set[str] = set()
        """The tables the last `fill` wrote (for tests and the bench)."""

    @classmethod
    def held(cls, memo: Memo | None, name: str, schema: str) -> KeptDatabase:
        """The database `memo` holds under `name` from the last run, where it has the same
        schema; else a new one. It is held for the next run once `fill` has filled it."""
        key = key_of("database", name, schema)
        found = memo.held(key, carry=False) if memo is not None else None
        kept = found if isinstance(found, KeptDatabase) else cls(schema)
        # by a weak reference: the memo holds the database, which would otherwise hold it
        # back, and a cycle is let go only when the cycle collector comes (a database in
        # memory, and SQLite's heap, with it)
        kept._memo, kept._key = (weakref.ref(memo) if memo is not None else None), key
        return kept

    _memo: weakref.ref[Memo] | None = None
    _key: bytes = b""

    def fill(
        self, fills: Sequence[Fill], settle: Settle, settled_as: str
    ) -> tuple[bytes, Columns | None]:
        """The database of `fills` settled (`settled_as` names how: the day it stands at), as
        its serialized bytes and what its columns hold; the tables whose rows are as the
        last fill's are not written again. Where no memo holds it for a next run, it is
        filled afresh, let go once given, and what its columns hold is not said (None):
        nothing would compare it."""
        memo = self._memo() if self._memo is not None else None
        if memo is None or not memo.holding:
            try:
                return self._fresh(fills, settle, noting=False).serialize(), None
            finally:
                self._drop()
        filled = {fill.table: fill.rows for fill in fills}
        db = self._db
        try:
            if db is None or settled_as != self._settled_as or filled.keys() != self._filled.keys():
                db = self._fresh(fills, settle)
                written = set(filled)
            else:
                last = self._filled
                changed = self._changed(filled, last)
                written = self._again(db, fills, settle, changed)
            image = db.serialize()
        except BaseException:
            self._drop()  # half changed: the next fill starts afresh
            raise
        self._settled_as, self._db = settled_as, db
        for fill in fills:
            if fill.table in written:
                names = [row[1] for row in db.execute(f'PRAGMA table_info("{fill.table}")')]
                self._columns[fill.table] = _column_digests(names, fill.rows)
                known = names.index(KNOWN_FROM) if KNOWN_FROM in names else None
                self._days[fill.table] = Days.of(fill.rows, known)
        self._filled, self.written = filled, written
        memo.hold(self._key, self)
        return image, self._tokens(db, settled_as)

    def _fresh(
        self, fills: Sequence[Fill], settle: Settle, noting: bool = True
    ) -> sqlite3.Connection:
        """A new database of `fills`, settled; what the settling read noted where `noting`."""
        self._drop()
        # used by one run at a time, whichever thread runs it (`serve`'s watcher's)
        db = sqlite3.connect(":memory:", check_same_thread=False)
        # closed as soon as this is let go: a connection and its statement cache hold each
        # other, so it would otherwise hold its database until the cycle collector comes
        self._closing = weakref.finalize(self, db.close)
        db.executescript(self.schema)
        for fill in fills:
            fill.write(db)
        if noting:
            rests_on = _settling_reads(db, settle)
            self._closures = {fill.table: _closure(fill.table, rests_on) for fill in fills}
        else:
            settle(db, None)
        db.commit()
        self._columns = {}
        return db

    def _again(
        self, db: sqlite3.Connection, fills: Sequence[Fill], settle: Settle, changed: set[str]
    ) -> set[str]:
        """Write again the tables `changed` and those whose settling read one of them."""
        if not changed:
            return set()
        again = {
            table
            for table in self._filled
            if table in changed or any(t in changed for t, _ in self._closures.get(table, ()))
        }
        with db:  # one transaction: a failure leaves nothing half written
            for fill in fills:
                if fill.table in again:
                    db.execute(f'DELETE FROM "{fill.table}"')
                    fill.write(db)
            settle(db, again)
        return again

    def _tokens(self, db: sqlite3.Connection, settled_as: str) -> Columns:
        """What each column holds, settled: its filled digest with those of every column
        its table's settling read, and of theirs in turn."""
        tokens: dict[Column, bytes] = {}
        for table, columns in self._columns.items():
            read = self._closures.get(table, set())
            under = [self._columns.get(t, {}).get(c, b"") for t, c in sorted(read)]
            for column, digest in columns.items():
                tokens[(table, column)] = _digest(settled_as, digest, under)
        names = db.execute("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')")
        present = {name: kind for name, kind in names}
        views = frozenset(name for name, kind in present.items() if kind == "view")
        other = frozenset(present) - views - set(self._columns)
        by_table = sorted((table, sorted(found.items())) for table, found in self._columns.items())
        whole = _digest(settled_as, by_table)
        rests_on = {
            table: frozenset(t for t, _ in self._closures.get(table, ())) for table in self._days
        }
        days = dict(self._days)
        return Columns(tokens, _digest(self.schema), other, whole, views, days, rests_on)

    def _changed(
        self,
        filled: dict[str, Sequence[tuple[Any, ...]]],
        last: dict[str, Sequence[tuple[Any, ...]]],
    ) -> set[str]:
        """The tables whose rows differ from the last fill's, by value or by type."""
        changed: set[str] = set()
        types = self._types
        for table, rows in filled.items():
            if rows != last[table]:
                changed.add(table)
                types.pop(table, None)
                continue
            now = _types(rows)
            was = types.get(table)
            if now != (was if was is not None else _types(last[table])):
                changed.add(table)
            types[table] = now
        return changed

    def ready(self) -> None:
        """Note now the types of the values of each table as last filled, where they are
        not noted: the next fill compares its own with them (`_changed`), and `serve`
        notes them while it waits for an edit, not after one."""
        for table, rows in self._filled.items():
            if table not in self._types:
                self._types[table] = _types(rows)

    def _drop(self) -> None:
        if self._closing is not None:
            self._closing()
        self._db, self._filled, self._columns, self._days = None, {}, {}, {}
        self._types = {}


def _types(rows: Sequence[tuple[Any, ...]]) -> tuple[type, ...]:
    return tuple(map(type, itertools.chain.from_iterable(rows)))


def _column_digests(names: list[str], rows: Sequence[tuple[Any, ...]]) -> dict[str, bytes]:
    """Each column's values by digest, and the number of rows as ''."""
    columns = list(zip(*rows, strict=False)) or [() for _ in names]
    found = {name: _digest(values) for name, values in zip(names, columns, strict=False)}
    found[""] = _digest(len(rows))
    return found


def _settling_reads(db: sqlite3.Connection, settle: Settle) -> dict[str, frozenset[Column]]:
    """Settle the whole database, noting what each statement that changed a table read."""
    noting = _Noting(db)
    db.set_authorizer(noting.note)
    try:
        settle(noting, None)  # type: ignore[arg-type]
    finally:
        db.set_authorizer(None)
    return {table: frozenset(read) for table, read in noting.rests_on.items()}


class _Noting:
    """A database, each statement run through `execute` credited to the tables it changed
    with what it read (SQLite's authorizer tells both as the statement is prepared)."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db
        self.reads: set[Column] = set()
        self.writes: set[str] = set()
        self.rests_on: dict[str, set[Column]] = {}

    def note(self, action: int, table: str | None, column: str | None, *_: Any) -> int:
        if action == sqlite3.SQLITE_READ and table:
            self.reads.add((table, column or ""))
        elif action in _WRITES and table:
            self.writes.add(table)
        return sqlite3.SQLITE_OK

    def execute(self, sql: str, parameters: Any = ()) -> sqlite3.Cursor:
        self.reads.clear()
        self.writes.clear()
        cursor = self.db.execute(sql, parameters)
        for table in self.writes:
            self.rests_on.setdefault(table, set()).update(self.reads)
        return cursor


def _closure(table: str, rests_on: Mapping[str, frozenset[Column]]) -> set[Column]:
    """Every column the settling of `table` read, and what settling those read, in turn."""
    found: set[Column] = set()
    pending = [table]
    seen = {table}
    while pending:
        for read in rests_on.get(pending.pop(), ()):
            found.add(read)
            if read[0] not in seen:
                seen.add(read[0])
                pending.append(read[0])
    return found
