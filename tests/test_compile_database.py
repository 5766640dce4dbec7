"""The compiled record: the whole bundled record in one SQLite database, as documented."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
from conftest import BUNDLED, REPO

from sourcebook import derive
from sourcebook.compile import SCHEMA_VERSION, compile_in_memory, compile_record
from sourcebook.compile.rows import insert_rows, sql_value
from sourcebook.compile.schema import kind_columns, may_read
from sourcebook.model.figures import placed_figures
from sourcebook.model.kinds import KINDS
from sourcebook.pipeline import check, compile_checked

DATABASE_DOC = (REPO / "docs" / "database.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def checked():
    return check(BUNDLED)


@pytest.fixture(scope="module")
def db(checked, tmp_path_factory):
    path = compile_checked(checked, tmp_path_factory.mktemp("db") / "record.db")
    connection = sqlite3.connect(path)
    yield connection
    connection.close()


def count(db, table: str, where: str = "1") -> int:
    return db.execute(f'SELECT COUNT(*) FROM "{table}" WHERE {where}').fetchone()[0]


def test_every_entity_is_in_its_kinds_table_and_in_entities(db, checked):
    for kind in KINDS:
        expected = len(checked.record.of(kind.name))
        assert count(db, kind.folder) == expected, kind.folder
        assert count(db, "entities", f"kind = '{kind.name}'") == expected


def test_every_field_of_every_kind_has_a_column(db):
    for kind in KINDS:
        columns = {row[1] for row in db.execute(f'PRAGMA table_info("{kind.folder}")')}
        assert {name for name, _type in kind_columns(kind)} <= columns
        assert {"id", "title", "body", "file", "line", "known_from"} <= columns


def test_every_figure_is_written_with_its_value_in_base_units(db, checked):
    counted, retired = count(db, "figures"), count(db, "retired_figures")
    assert counted + retired == len(placed_figures(checked.record)) and retired == 1
    row = db.execute(
        "SELECT value, unit, base_value, base_unit, dimension FROM figures"
        " WHERE campus = 'hyperion' AND metric = 'it-power' AND value = 2"
    ).fetchone()
    assert row == (2.0, "GW", 2e9, "W", "power")
    assert count(db, "figures", "base_value IS NULL") == 0


def test_the_meta_table_says_what_the_database_is(db, checked):
    meta = dict(db.execute("SELECT key, value FROM meta"))
    assert meta["schema_version"] == SCHEMA_VERSION
    assert meta["as_of"] == meta["closes"] == "2026-11-08"
    assert meta["title"] == "The AI Compute Race"
    assert float(meta["query_seconds"]) == checked.record.settings.limits.query_seconds


def test_the_full_text_index_finds_prose(db):
    found = {
        (kind, entity)
        for kind, entity in db.execute("SELECT kind, id FROM search WHERE search MATCH 'cluster'")
    }
    assert ("term", "cluster") in found and ("campus", "colossus-2") in found
    stemmed = db.execute("SELECT COUNT(*) FROM search WHERE search MATCH 'clusters'").fetchone()
    assert stemmed[0] == len(found)


def test_links_parties_quotes_and_library_are_written(db, checked):
    assert count(db, "refs", "from_kind = 'indicator' AND to_id = 'cluster'") >= 1
    assert count(db, "campus_parties", "campus = 'hyperion' AND party = 'meta'") == 2
    shelves = sorted(p.stem for p in (BUNDLED / "library").glob("S*.yaml"))
    items = sorted(shelf for (shelf,) in db.execute("SELECT shelf FROM library_items"))
    assert items == shelves and shelves
    assert count(db, "source_library") == sum(
        len(getattr(s, "library", [])) for s in checked.record.of("source")
    )
    quoted = [
        (e.key, f"figures.{i}.quote")
        for e in checked.record
        for i, f in enumerate(getattr(e, "figures", None) or [])
        if f.quote and f.source
    ]
    assert count(db, "quotes", "field LIKE 'figures.%'") == len(quoted) > 0
    verified = {
        (p.claim.owner, p.claim.field) for p in checked.proofs.proofs if p.status == "verified"
    }
    proved = count(db, "figures", "quote_status = 'verified'")
    proved += count(db, "retired_figures", "quote_status = 'verified'")
    assert proved == len(set(quoted) & verified) > 0


def test_the_views(db):
    assert db.execute("SELECT day FROM record_day").fetchone() == ("2026-11-08",)
    assert count(db, "evidenced_figures") == count(db, "figures", "evidenced = 1")
    latest = db.execute(
        "SELECT as_of FROM latest_figures WHERE campus = 'hyperion' AND metric = 'it-power'"
        " AND evidenced = 1"
    ).fetchall()
    assert latest == [("2026-05",)]


def test_every_table_and_view_is_documented(db):
    names = [
        name
        for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
        if not name.startswith(("search_", "sqlite_"))
    ]
    for name in names:
        assert f"`{name}`" in DATABASE_DOC or f"### {name}" in DATABASE_DOC, name


def test_the_same_record_gives_the_same_bytes(checked, tmp_path):
    first = compile_checked(checked, tmp_path / "a.db").read_bytes()
    second = compile_checked(checked, tmp_path / "b.db").read_bytes()
    assert first == second


def test_a_failed_compile_leaves_the_last_database(checked, tmp_path, monkeypatch):
    path = compile_checked(checked, tmp_path / "record.db")
    before = path.read_bytes()

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr("sourcebook.compile.write_figures", broken)
    with pytest.raises(RuntimeError):
        compile_record(checked.record, path, checked.graph)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["record.db"]


def test_the_database_check_queries_leaves_out_the_full_text_index_and_references(db, checked):
    with derive.open_image(checked.image) as in_memory:
        names = {r[0] for r in in_memory.rows("SELECT name FROM sqlite_master")}
        (empty,) = in_memory.rows("SELECT COUNT(*) AS n FROM refs")
        assert empty["n"] == 0
    assert "search" not in names and "figures" in names
    assert count(db, "search") == sum(len(checked.record.of(k.name)) for k in KINDS)
    assert count(db, "refs") == sum(ref.resolved for ref in checked.graph.refs) > 0


def test_a_query_that_reads_the_references_has_them_in_memory(tmp_path):
    shutil.copytree(BUNDLED, tmp_path / "r", ignore=shutil.ignore_patterns("_site", ".*"))
    indicator = tmp_path / "r" / "indicators" / "campuses-over-1gw.md"
    text = indicator.read_text()
    start, end = text.index("query: |"), text.index("\n---\n")
    query = "query: SELECT COUNT(*) AS value, 'references' AS unit FROM refs"
    indicator.write_text(text[:start] + query + text[end:])
    checked = check(tmp_path / "r")
    with compile_in_memory(checked.record, checked.graph) as in_memory:
        (row,) = in_memory.rows("SELECT COUNT(*) AS n FROM refs")
    assert row["n"] == sum(ref.resolved for ref in checked.graph.refs) > 0


@pytest.mark.parametrize(
    ("table", "query", "reads"),
    [
        ("search", "SELECT id AS value FROM search WHERE search MATCH 'x'", True),
        ("search", 'SELECT COUNT(*) AS value FROM "SEARCH_data"', True),
        ("search", "SELECT COUNT(*) AS value FROM sqlite_master", True),
        ("search", "SELECT COUNT(*) AS value FROM dbstat", True),
        ("search", "SELECT value FROM figures WHERE metric = 'it-power'", False),
        ("search", None, False),
        ("refs", "SELECT COUNT(*) AS value FROM refs WHERE via = 'mention'", True),
        ("refs", "SELECT COUNT(*) AS value FROM REFS", True),
        ("refs", "SELECT COUNT(*) AS value FROM sqlite_master", True),
        ("refs", "SELECT value FROM figures WHERE metric = 'it-power'", False),
        ("refs", None, False),
    ],
)
def test_a_query_that_may_see_a_table_left_out_in_memory_is_noticed(table, query, reads):
    assert may_read(table, [query]) is reads


def test_rows_are_inserted_in_order_many_to_a_statement():
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (n INTEGER, word TEXT)")
    rows = [(n, f"w{n}") for n in range(123)]
    insert_rows(db, "t", rows)
    insert_rows(db, "t", [])
    assert db.execute("SELECT n, word FROM t ORDER BY rowid").fetchall() == rows


def test_a_list_of_words_is_stored_as_json_dumps_writes_it():
    words = [
        "plain",
        'a "quoted" word',
        "back\\slash",
        "tab\tand\nline",
        "café",
        "\u2028",
        "🚀",
        "",
    ]
    for value in ([], words, words[:1]):
        assert sql_value(value) == json.dumps(value, ensure_ascii=False)
