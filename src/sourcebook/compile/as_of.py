"""The compiled record as it stood on a day: what was known then, and nothing dated after.

Every dated row of the compiled record carries `known_from`, the first day on which the
record could have held it (`model/known.py`; NULL for the book's own apparatus, which
stands on every day). Reading the record as of a day deletes every row known only later,
then whatever rested on them, and moves each figure retired by then from `figures` to
`retired_figures`. It gives the database of the record cut at that day
(`model.known.record_as_of`), which is how the histories walk back a month at a time.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from datetime import date

from sourcebook.compile.noted import watched
from sourcebook.model.base import day_start
from sourcebook.model.kinds import KINDS

DATED_TABLES = (
    "figures",
    "retired_figures",
    "campus_parties",
    "entities",
    *(kind.folder for kind in KINDS),
)

_CLEAN_UP = {
    "refs": "DELETE FROM refs WHERE NOT EXISTS (SELECT 1 FROM entities e"
    " WHERE e.kind = refs.from_kind AND e.id = refs.from_id) OR NOT EXISTS"
    " (SELECT 1 FROM entities e WHERE e.kind = refs.to_kind AND e.id = refs.to_id)",
    "search": "DELETE FROM search WHERE NOT EXISTS (SELECT 1 FROM entities e"
    " WHERE e.kind = search.kind AND e.id = search.id)",
    "quotes": "DELETE FROM quotes WHERE source NOT IN (SELECT id FROM sources) OR NOT EXISTS"
    " (SELECT 1 FROM entities e WHERE e.kind = quotes.owner_kind AND e.id = quotes.owner_id)",
    "figure_inputs": "DELETE FROM figure_inputs WHERE figure NOT IN (SELECT id FROM figures"
    " UNION ALL SELECT id FROM retired_figures) OR input NOT IN (SELECT id FROM figures"
    " UNION ALL SELECT id FROM retired_figures)",
    "source_library": "DELETE FROM source_library WHERE source NOT IN (SELECT id FROM sources)",
    "watch_visits": "DELETE FROM watch_visits WHERE source NOT IN (SELECT id FROM sources)",
    "watch_addresses": "DELETE FROM watch_addresses WHERE source NOT IN (SELECT id FROM sources)",
    "campus_parties": "DELETE FROM campus_parties WHERE source IS NOT NULL"
    " AND source NOT IN (SELECT id FROM sources) OR campus NOT IN (SELECT id FROM campuses)"
    " OR party NOT IN (SELECT id FROM parties)",
    "scenario_parameters": "DELETE FROM scenario_parameters"
    " WHERE scenario NOT IN (SELECT id FROM scenarios)",
}
"""Each table that rests on dated rows, and how to delete what rested on rows now gone, in
the order they are cleaned."""


_RETIRE = (
    "INSERT INTO figures SELECT * FROM retired_figures WHERE retired_from > ?1",
    "DELETE FROM retired_figures WHERE retired_from > ?1",
    "INSERT INTO retired_figures SELECT * FROM figures WHERE retired_from <= ?1",
    "DELETE FROM figures WHERE retired_from <= ?1",
)
"""A figure counts (is in `figures`) until the day it is retired, and from then is in
`retired_figures`: walking back in time, a figure retired later counts again."""


def iso(day: str | None) -> str | None:
    """The first date a possibly partial day can mean, as YYYY-MM-DD."""
    return None if day is None else day_start(day).isoformat()


def restrict(db: sqlite3.Connection, only: Collection[str] | None = None, *, day: date) -> None:
    """Delete from a writable compiled record every row known only after `day`, in the
    tables named `only` (all where None: a database whose other tables stand at `day`
    already, as `incremental.KeptDatabase` asks)."""
    shown = day.isoformat()

    def cut(table: str) -> bool:
        return only is None or table in only

    for table in DATED_TABLES:
        if cut(table):
            db.execute(f'DELETE FROM "{table}" WHERE known_from > ?', (shown,))
    if cut("figures") or cut("retired_figures"):
        for statement in _RETIRE:
            db.execute(statement, (shown,))
    present = tables(db)
    for table, statement in _CLEAN_UP.items():
        if table in present and cut(table):
            db.execute(statement)
    if cut("meta"):
        db.execute("UPDATE meta SET value = ? WHERE key = 'as_of'", (shown,))


def copy_as_of(db: sqlite3.Connection, day: date) -> sqlite3.Connection:
    """An in-memory copy of a compiled record as it stood on `day`, still writable."""
    copy = watched(sqlite3.connect(":memory:"))
    db.backup(copy)
    restrict(copy, day=day)
    copy.commit()
    return copy


def tables(db: sqlite3.Connection) -> set[str]:
    """The tables a database holds: the in-memory record check compiled may lack `search`."""
    return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def history_copy(db: sqlite3.Connection, needed: set[str]) -> sqlite3.Connection:
    """A writable in-memory copy to walk back in time with `restrict`, day after earlier day.

    Its dated tables are indexed by `known_from`, so that each step deletes only what it
    must; the tables kept consistent after each step that no query in `needed` reads are
    emptied, so that keeping them costs nothing.
    """
    copy = watched(sqlite3.connect(":memory:"))
    db.backup(copy)
    for table in DATED_TABLES:
        copy.execute(f'CREATE INDEX IF NOT EXISTS "{table}_known_from" ON "{table}" (known_from)')
    present = tables(copy)
    for table in _CLEAN_UP:
        if table in present and table not in needed:
            copy.execute(f'DELETE FROM "{table}"')
    copy.commit()
    return copy
