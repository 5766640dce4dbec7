"""The compiled record is opened read-only for the record's own queries: a query that
would write, or that runs too long, is refused with a clear error."""

from __future__ import annotations

import sqlite3

import pytest

from sourcebook.compile.database import CompiledRecord, Failure, QueryError, open_record

SLOW = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT COUNT(*) FROM n"


@pytest.fixture
def path(tmp_path):
    path = tmp_path / "record.db"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
        "INSERT INTO meta VALUES ('query_seconds', '0.2'), ('as_of', '2026-11-08');"
        "CREATE TABLE figures (id TEXT, value REAL);"
        "INSERT INTO figures VALUES ('a', 1), ('b', 2);"
        "CREATE VIRTUAL TABLE search USING fts5(kind UNINDEXED, id UNINDEXED, title, text);"
        "INSERT INTO search VALUES ('term', 'cluster', 'Cluster', 'chips wired as one');"
    )
    db.commit()
    db.close()
    return path


@pytest.fixture
def db(path):
    with open_record(path) as opened:
        yield opened


def refused(db: CompiledRecord, sql: str) -> QueryError:
    with pytest.raises(QueryError) as caught:
        db.run(sql)
    return caught.value


def test_reading_works_full_text_search_included(db):
    assert db.run("SELECT SUM(value) FROM figures").rows == ((3.0,),)
    assert db.run("SELECT id FROM search WHERE search MATCH 'wired'").rows == (("cluster",),)


@pytest.mark.parametrize(
    "sql",
    [
        "DELETE FROM figures",
        "DROP TABLE figures",
        "UPDATE figures SET value = 0",
        "INSERT INTO figures VALUES ('c', 3)",
        "CREATE TABLE x (a)",
        "CREATE TEMP TABLE x (a)",
        "PRAGMA query_only = OFF",
        "ATTACH DATABASE ':memory:' AS other",
        "VACUUM",
        "SELECT load_extension('x')",
        "UPDATE sqlite_master SET sql = ''",
    ],
)
def test_a_destructive_query_is_refused(db, path, sql):
    before = path.read_bytes()
    error = refused(db, sql)
    assert error.failure is Failure.NOT_READ_ONLY, error.message
    assert "only SELECT is allowed" in error.message or "one SELECT" in error.message
    assert path.read_bytes() == before
    assert db.run("SELECT COUNT(*) FROM figures").rows == ((2,),)


def test_two_statements_are_refused(db):
    error = refused(db, "SELECT 1; DELETE FROM figures")
    assert error.failure is Failure.NOT_READ_ONLY and "one SELECT statement" in error.message


def test_a_slow_query_is_stopped_at_the_records_time_limit(db):
    assert db.seconds == 0.2
    error = refused(db, SLOW)
    assert error.failure is Failure.TOO_SLOW
    assert error.message == "the query ran past its time limit of 0.2 s and was stopped"
    assert db.run("SELECT COUNT(*) FROM figures").rows == ((2,),)


def test_the_time_limit_can_be_set_when_opened(path):
    with open_record(path, seconds=0.05) as db:
        assert "0.05 s" in refused(db, SLOW).message


def test_an_error_names_where_in_the_query(db):
    assert refused(db, "SELECT value FROM figurez").offset == len("SELECT value FROM ")
    assert refused(db, "SELECT valu FROM figures").offset == len("SELECT ")
    error = refused(db, "SELECT (value FROM figures")
    assert error.failure is Failure.FAILED and error.offset == len("SELECT (value ")
    assert 'near "FROM": syntax error' in error.message


def test_the_connection_itself_refuses_writes(db):
    for sql in ("PRAGMA query_only = OFF", "DELETE FROM figures"):
        with pytest.raises(sqlite3.DatabaseError):
            db.connection.execute(sql)


def test_the_file_is_opened_read_only_underneath(path):
    with open_record(path) as db:
        db.connection.set_authorizer(None)
        db.connection.execute("PRAGMA query_only = OFF")
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            db.connection.execute("DELETE FROM figures")
