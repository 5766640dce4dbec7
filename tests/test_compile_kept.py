"""Each entity's compiled rows kept from run to run: an unchanged entity's rows are taken
as they were, an edited one's made again, and the database is always the one a compile
from nothing makes, byte for byte."""

from __future__ import annotations

import contextlib
import gc
import marshal
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import term
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from site_fixtures import write_record
from test_serve_equivalence import MEMORY, SEEDED, apply, edit
from thorough import examples

from sourcebook.compile import fill, filled
from sourcebook.diagnostics import Diagnostics
from sourcebook.incremental import COMPILED, Memo, Memos, Store
from sourcebook.pipeline import check, read_and_link

FILES = {
    "terms/gpu.md": term("GPU", extra="aliases: [graphics processor]\n", body="A chip.\n"),
    "terms/hbm.md": term("HBM", body="Memory stacked beside the GPU.\n"),
    "sources/s.md": "---\ntitle: S\ncategory: press\ndate: 2026-01-02\n---\n",
}


CLOCK = 1
"""The known-day clock, kept in the same memo as the rows (`check/clock.py`): one more miss
of a compile of a record that has no clock yet."""


def _image(root: Path, kept: Memos) -> bytes:
    checked = check(root, kept=kept)
    assert checked.image is not None
    return checked.image


def _fresh(root: Path) -> bytes:
    return _image(root, Memos.in_memory())


def test_unchanged_rows_are_taken_as_kept(make_record):
    root = make_record(FILES)
    first = _image(root, Memos.open(root))
    kept = Memos.open(root)
    assert _image(root, kept) == first == _fresh(root)
    assert kept.compiled.hits == 4 and kept.compiled.misses == 0  # check gave the clock


def test_an_edited_entity_alone_is_made_again(make_record):
    root = make_record(FILES)
    _image(root, Memos.open(root))
    (root / "terms/hbm.md").write_text(term("HBM", extra="aliases: [stacked memory]\n"))
    kept = Memos.open(root)
    edited = _image(root, kept)
    assert kept.compiled.hits == 3 and kept.compiled.misses == 1
    assert edited == _fresh(root)


def test_serve_keeps_them_in_memory(make_record):
    root = make_record(FILES)
    kept = Memos.in_memory(serving=True)
    first = _image(root, kept)
    assert _image(root, kept) == first
    (root / "terms/gpu.md").write_text(term("GPU", body="A chip that multiplies.\n"))
    assert _image(root, kept) == _fresh(root) != first


def test_with_and_without_the_search_index_the_kept_values_serve_both(make_record):
    root = make_record(FILES)
    record, graph = read_and_link(root, None, Diagnostics())
    assert record is not None
    kept = Memo(COMPILED)
    for search in (True, False, True):
        with_kept, fresh = sqlite3.connect(":memory:"), sqlite3.connect(":memory:")
        fill(with_kept, filled(record, graph, None, search=search, kept=kept))
        fill(fresh, filled(record, graph, None, search=search))
        assert with_kept.serialize() == fresh.serialize()
    # the first compile's values, used twice; its clock computed once for the record
    assert kept.misses == 4 + CLOCK and kept.hits == 8


@pytest.mark.parametrize(
    "spoiled",
    [
        ((), 3, None),  # no columns
        ((1, {"a": 1}), 3, None),  # a value SQLite cannot hold
        (("a", "b"), "three", None),  # a line that is not a number
        "not rows",
    ],
)
def test_spoiled_rows_are_not_trusted(make_record, spoiled):
    root = make_record(FILES)
    _image(root, Memos.open(root))
    kept_file = Store.of(root).folder(COMPILED) / "kept.marshal"
    entries = marshal.loads(kept_file.read_bytes())
    kept_file.write_bytes(marshal.dumps({key: marshal.dumps(spoiled) for key in entries}))
    assert _image(root, Memos.open(root)) == _fresh(root)
    again = Memos.open(root)  # the rows made again were kept in their place
    assert _image(root, again) == _fresh(root) and again.compiled.hits == 4


# The database `serve` keeps, changed in place: only the tables whose rows changed are
# written again, and it holds what a fresh one does.


def _content(image: bytes) -> dict[str, list[tuple]]:
    """Every table of a database, its rows in rowid order (a scan's), with their rowids;
    the full-text index as it is searched, not as it lays out its own tables."""
    with _opened(image) as db:
        names = [n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {
            name: db.execute(f'SELECT rowid, * FROM "{name}" ORDER BY rowid').fetchall()
            for name in names
            if not name.startswith("search_")
        }


@contextlib.contextmanager
def _opened(image: bytes) -> Iterator[sqlite3.Connection]:
    """The database of `image`, closed after: a connection holds its database until then."""
    db = sqlite3.connect(":memory:")
    try:
        db.deserialize(image)
        yield db
    finally:
        db.close()


def _columns(image: bytes) -> dict[tuple[str, str], bytes]:
    """What each column of each table holds, by the digest the queries' memo read before
    the compile said it (`compile.noted.digests`)."""
    from sourcebook.compile.noted import digests

    found = {}
    with _opened(image) as db:
        tables = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        for (name,) in tables:
            if name.startswith("search_"):
                continue  # the full-text index's own tables
            for column in ["", *(row[1] for row in db.execute(f'PRAGMA table_info("{name}")'))]:
                found[(name, column)] = digests(db, {(name, column)})[name]
    return found


def _written(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The tables written from now on, as each is."""
    from sourcebook.compile.rows import TableRows

    written: list[str] = []
    write = TableRows.write

    def counted(self: TableRows, db: sqlite3.Connection) -> None:
        written.append(self.table)
        write(self, db)

    monkeypatch.setattr(TableRows, "write", counted)
    return written


def test_serve_writes_again_only_the_tables_whose_rows_changed(tmp_path, monkeypatch):
    root = write_record(tmp_path / "record", SEEDED)
    kept = Memos.in_memory(serving=True)
    _image(root, kept)
    written = _written(monkeypatch)
    assert _image(root, kept) and written == []  # nothing changed: nothing written
    apply(root, "terms/cluster.md", ("\n---\n", "\n---\nA sentence more.\n"))
    image = _image(root, kept)
    assert written == ["terms"]
    assert _content(image) == _content(_fresh(root))
    written.clear()
    apply(root, "campuses/colossus-2.md", ("value: 200\n", "value: 300\n"))
    image = _image(root, kept)
    assert set(written) == {"figures", "retired_figures", "figure_inputs"}
    assert _content(image) == _content(_fresh(root))


@settings(
    max_examples=examples(15),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(edits=st.lists(st.lists(edit, min_size=1, max_size=2), min_size=1, max_size=4))
def test_a_database_changed_in_place_holds_what_a_fresh_one_does(edits):
    """After any edits, the kept database holds a fresh one's rows, in the same rowids; and
    a column whose values changed has another digest, as the queries' memo reads them."""
    with tempfile.TemporaryDirectory(dir=MEMORY) as folder:
        _changed_in_place(write_record(Path(folder) / "record", {**SEEDED, **SEARCHED}), edits)


SEARCHED = {
    "indicators/searched.md": "---\ntitle: Searched\nrow: 12\ndescription: Found.\nquery:"
    " SELECT (SELECT count(*) FROM search WHERE search MATCH 'cluster')"
    " + (SELECT count(*) FROM refs) AS value\n---\n"
}
"""A query that reads the full-text index and the references: the database has both."""


def _changed_in_place(root: Path, edits: list[list[tuple[str, str | tuple[str, str]]]]) -> None:
    kept = Memos.in_memory(serving=True)
    last = _image(root, kept)
    for step in edits:
        for path, change in step:
            apply(root, path, change)
        checked = check(root, kept=kept)
        if checked.image is None:
            continue  # a record check refuses compiles nothing
        fresh = _fresh(root)
        assert {"search", "refs"} <= _content(fresh).keys()
        assert _content(checked.image) == _content(fresh)
        before, after = _columns(last), _columns(fresh)
        for column, digest in after.items():
            if before.get(column) != digest:
                assert last.columns.digests([column]) != checked.image.columns.digests([column])
        _held_to_each_day(last, checked.image, fresh)
        last = checked.image


DAYS = ("2020-01-01", "2026-06-30", "2026-09-30", "2026-10-01")
"""Days the small record's history may stand at: before anything, between its figures,
and on its corrections' day."""


def _held_to_each_day(last: bytes, now: bytes, fresh: bytes) -> None:
    """Where a table holds other rows as it stood on a day, the kept database says that
    what the table can read on that day changed (`incremental.Columns.as_of`)."""
    with _opened(last) as db:
        day = db.execute("SELECT value FROM meta WHERE key = 'as_of'").fetchone()[0]
    for then in (d for d in DAYS if d <= day):
        was, is_ = _content(_as_of(last, then)), _content(_as_of(fresh, then))
        for table in was.keys() | is_.keys():
            if was.get(table) != is_.get(table):
                told = last.columns.as_of(then, [table]), now.columns.as_of(then, [table])
                assert told[0] is not None and told[0] != told[1], (then, table)


def _as_of(image: bytes, day: str) -> bytes:
    """The compiled record as it stood on `day`, as the histories cut it."""
    from datetime import date

    from sourcebook.compile.as_of import copy_as_of

    with _opened(image) as db:
        copy = copy_as_of(db, date.fromisoformat(day))
    try:
        return copy.serialize()
    finally:
        copy.close()


def _open_connections() -> int:
    """The SQLite connections of this process still open, collected or not."""
    found = 0
    for thing in gc.get_objects():
        if isinstance(thing, sqlite3.Connection):
            with contextlib.suppress(sqlite3.ProgrammingError):  # closed
                thing.execute("SELECT 1")
                found += 1
    return found


def test_a_database_let_go_is_closed_at_once(tmp_path: Path) -> None:
    """A connection and its statement cache hold each other: a compile's database is closed
    as soon as it is let go, not when the cycle collector comes (which a long run of builds
    in one process may not see before SQLite's heap is spent)."""
    root = write_record(tmp_path / "record", SEEDED)
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        before = _open_connections()
        check(root, kept=Memos.in_memory())  # the database not kept
        assert _open_connections() == before
        kept = Memos.in_memory(serving=True)
        check(root, kept=kept)
        assert _open_connections() == before + 1  # held for the next save
        del kept
        assert _open_connections() == before
    finally:
        if enabled:
            gc.enable()


class _Rows:
    """One table's rows, as compile gives them to the kept database (`incremental.Fill`)."""

    def __init__(self, table: str, rows: list[tuple]):
        self.table, self.rows = table, rows

    def write(self, db: sqlite3.Connection) -> None:
        db.executemany(f'INSERT INTO "{self.table}" VALUES (?, ?)', self.rows)


def _digested(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The rows in each digest taken from now on (0 for a digest of anything else)."""
    from sourcebook.incremental import _database

    taken: list[int] = []
    digest = _database._digest

    def counted(*parts: object) -> bytes:
        taken.append(sum(len(p) for p in parts if isinstance(p, list)))
        return digest(*parts)

    monkeypatch.setattr(_database, "_digest", counted)
    return taken


def test_a_table_whose_rows_are_the_same_is_compared_by_value_not_digested(monkeypatch):
    """10,000 rows, made again for each fill as compile makes them: no fill digests a
    table whose rows are equal to the last fill's; one whose value turned from 1 to 1.0
    (equal in Python, not in SQLite) is written again, and holds a REAL."""
    from sourcebook.incremental import KeptDatabase

    schema = "CREATE TABLE big (id TEXT, n); CREATE TABLE small (id TEXT, n);"
    memo = Memo(COMPILED, holding=True)

    def filled_with(n: object) -> bytes:
        big = _Rows("big", [(f"row {i}", i) for i in range(10_000)])
        database = KeptDatabase.held(memo, "published", schema)
        image, _columns = database.fill([big, _Rows("small", [("x", n)])], _settle, "2026")
        return image

    filled_with(1)
    digested = _digested(monkeypatch)
    filled_with(1)
    assert KeptDatabase.held(memo, "published", schema).written == set()
    assert max(digested) < 10_000  # the columns' digests said again, not the rows
    image = filled_with(1.0)
    assert KeptDatabase.held(memo, "published", schema).written == {"small"}
    with _opened(image) as db:
        assert db.execute("SELECT typeof(n) FROM small").fetchone() == ("real",)


def _settle(db: sqlite3.Connection, tables: object) -> None:
    """Nothing to settle."""
