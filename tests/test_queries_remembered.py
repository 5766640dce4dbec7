"""The record's queries and derive, run again by `serve` only where what they read changed:
each run notes the columns its statements read of the compiled record (`compile.noted`),
and `QueryRuns` gives its value again where those columns hold what they held."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import date
from functools import partial
from pathlib import Path

import pytest
from conftest import BUNDLED
from site_fixtures import write_record

from sourcebook.compile.database import CompiledRecord, Failure, QueryError, open_image
from sourcebook.compile.noted import digests, noting
from sourcebook.derive import derive_all, derive_checked
from sourcebook.derive.sandbox import isolated
from sourcebook.derive.scorecard import history_months
from sourcebook.incremental import Memos, QueryRuns
from sourcebook.pipeline import check

SLOW = (
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000000)"
    " SELECT count(*) AS value FROM n"
)
MAX_FIGURE = "query: SELECT max(value) AS value FROM figures WHERE metric = 'it-power'\n"
INDICATOR = (
    "---\ntitle: Largest evidenced operating site\nrow: 11\ndescription: The largest.\n{query}---\n"
)


def image_of(root: Path) -> bytes:
    checked = check(root)
    assert checked.ok, checked.diagnostics.errors
    assert checked.image is not None
    return checked.image


def titles(db: CompiledRecord) -> list[str]:
    return [row[0] for row in db.rows("SELECT title FROM campuses ORDER BY id")]


def sources_then(day: date, db: CompiledRecord) -> list[str]:
    """The sources known on `day` (a source is not known before its date)."""
    with db.as_of(day) as then:
        return [row[0] for row in then.rows("SELECT id FROM sources ORDER BY id")]


def run_slow(db: CompiledRecord) -> str:
    try:
        db.run(SLOW, seconds=0.2)
    except QueryError as exc:
        return exc.failure.value
    return "ran"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    query = INDICATOR.format(query=MAX_FIGURE)
    return write_record(
        tmp_path / "record", {"indicators/largest-evidenced-operating-site.md": query}
    )


def test_a_run_notes_each_column_its_statements_read(root: Path) -> None:
    connection = sqlite3.connect(":memory:")
    connection.deserialize(image_of(root))
    with noting() as noted:
        db = CompiledRecord(connection)
        titles(db)
        db.rows("SELECT count(*) FROM sources")
    assert ("campuses", "title") in noted
    assert ("campuses", "id") in noted  # ordered by it
    assert ("sources", "") in noted  # its rows alone
    assert not any(table == "terms" for table, _ in noted)


def test_a_copy_as_of_a_day_notes_what_choosing_its_rows_read(root: Path) -> None:
    connection = sqlite3.connect(":memory:")
    connection.deserialize(image_of(root))
    with noting() as noted:
        sources_then(date(2025, 1, 1), CompiledRecord(connection))
    assert ("sources", "id") in noted
    assert ("sources", "known_from") in noted  # which sources were known then
    assert ("figures", "known_from") in noted  # and the figures, whose rows the copy holds


def test_nothing_is_noted_outside_the_block(root: Path) -> None:
    connection = sqlite3.connect(":memory:")
    connection.deserialize(image_of(root))
    with noting():
        pass
    with noting() as noted:
        pass
    titles(CompiledRecord(connection))
    assert noted == set()


def test_digests_change_with_what_was_read_and_nothing_else(root: Path) -> None:
    before = image_of(root)
    term = root / "terms" / "cluster.md"
    term.write_text(term.read_text() + "\nMore prose.\n")
    prose_edited = image_of(root)
    campus = root / "campuses" / "stargate-uae.md"
    campus.write_text(
        campus.read_text().replace("title: Stargate UAE", "title: Stargate Abu Dhabi")
    )
    retitled = image_of(root)

    read = {("campuses", "title"), ("campuses", "id"), ("history", "day")}

    def of(image: bytes) -> dict[str, bytes]:
        connection = sqlite3.connect(":memory:")
        connection.deserialize(image)
        return digests(connection, read)

    assert of(before) == of(prose_edited)
    assert of(before) != of(retitled)
    assert of(before)["history"] == b""  # a table the work made for itself


def test_a_job_is_given_again_while_what_it_read_is_unchanged(root: Path) -> None:
    remembered = QueryRuns()
    first = isolated(image_of(root), titles, runs=remembered)
    term = root / "terms" / "cluster.md"
    term.write_text(term.read_text() + "\nMore prose.\n")
    again = isolated(image_of(root), titles, runs=remembered)
    assert again == first
    assert again is not first  # new objects, which no build can change for the next
    assert remembered.hits == 1
    campus = root / "campuses" / "stargate-uae.md"
    campus.write_text(
        campus.read_text().replace("title: Stargate UAE", "title: Stargate Abu Dhabi")
    )
    changed = isolated(image_of(root), titles, runs=remembered)
    assert "Stargate Abu Dhabi" in changed
    assert remembered.hits == 1


def test_what_derive_gives_again_has_the_version_it_had(root: Path) -> None:
    """A prose edit: derive given again, of the same version (which the site's pages take
    as they were, `Table.version`); a campus retitled: another. Where nothing keeps its
    run, it is still versioned by what its child gave."""
    kept = Memos.in_memory(serving=True)
    first = derive_checked(check(root, kept=kept), kept.queries)
    assert first.version
    term = root / "terms" / "cluster.md"
    term.write_text(term.read_text() + "\nMore prose.\n")
    again = derive_checked(check(root, kept=kept), kept.queries)
    assert again.version == first.version and again == first and again is not first
    campus = root / "campuses" / "stargate-uae.md"
    campus.write_text(campus.read_text().replace("title: Stargate UAE", "title: Stargate AD"))
    changed = derive_checked(check(root, kept=kept), kept.queries)
    assert changed.version != first.version and changed != first
    alone = derive_checked(check(root))
    assert alone == changed and alone.version == changed.version


def test_another_job_or_another_day_is_not_given_the_first_ones_value(root: Path) -> None:
    remembered = QueryRuns()
    image = image_of(root)
    now = isolated(image, partial(sources_then, date(2027, 1, 1)), runs=remembered)
    then = isolated(image, partial(sources_then, date(2020, 1, 1)), runs=remembered)
    assert now and then == []
    assert remembered.hits == 0


def test_derive_over_a_record_whose_figures_changed_runs_again(root: Path) -> None:
    remembered = QueryRuns()
    first = derive_checked(check(root), remembered)
    term = root / "terms" / "cluster.md"
    term.write_text(term.read_text() + "\nMore prose.\n")
    assert derive_checked(check(root), remembered) == first
    assert remembered.hits == 1
    campus = root / "campuses" / "colossus-2.md"
    campus.write_text(campus.read_text().replace("value: 200\n", "value: 300\n", 1))
    moved = derive_checked(check(root), remembered)
    assert moved != first
    assert moved.row("largest-evidenced-operating-site").answer.value == 300  # type: ignore[union-attr]
    assert remembered.hits == 1
    connection = sqlite3.connect(":memory:")
    connection.deserialize(check(root).image or b"")
    with CompiledRecord(connection) as db:
        assert derive_all(db) == moved  # what a run of its own makes


def test_a_run_with_a_query_stopped_for_time_is_not_kept(root: Path) -> None:
    """What a query stopped for time gives depends on the clock, not on what it read."""
    remembered = QueryRuns()
    image = image_of(root)
    assert isolated(image, run_slow, runs=remembered) == Failure.TOO_SLOW.value
    assert isolated(image, run_slow, runs=remembered) == Failure.TOO_SLOW.value
    assert remembered.hits == 0


def test_only_the_runs_used_last_are_kept(root: Path) -> None:
    """Each edit of the record's queries makes another job: `serve` does not keep them all."""
    remembered = QueryRuns()
    image = image_of(root)
    days = [date(2020 + year, 1, 1) for year in range(QueryRuns.KEPT + 1)]
    for day in days:
        isolated(image, partial(sources_then, day), runs=remembered)
    isolated(image, partial(sources_then, days[-1]), runs=remembered)
    assert remembered.hits == 1
    isolated(image, partial(sources_then, days[0]), runs=remembered)  # let go: run again
    assert remembered.hits == 1


def test_a_table_that_cannot_be_read_is_never_the_same() -> None:
    """Its digest is made anew each time: what read it runs again."""
    connection = sqlite3.connect(":memory:")
    connection.executescript(
        'CREATE TABLE t (a); CREATE TABLE "odd ""name""" (b); CREATE VIEW v AS SELECT a FROM t;'
        "DROP TABLE t;"
    )
    noted = {("v", "a"), ('odd "name"', "b"), ("gone", "c")}
    first, second = digests(connection, noted), digests(connection, noted)
    assert first["v"] != second["v"]  # its table dropped under it
    assert first['odd "name"'] == second['odd "name"']
    assert first["gone"] == second["gone"] == b""


def test_a_late_figures_edit_runs_the_queries_of_its_days_alone(tmp_path: Path) -> None:
    """`serve` keeps each query's answer by what it could read on its day
    (`incremental.Columns.as_of`): an edit of a figure known late runs again the queries of
    the days from then on, and gives the earlier days' answers again; derive comes out as a
    run of its own makes it."""
    root = tmp_path / "record"
    shutil.copytree(BUNDLED, root, ignore=shutil.ignore_patterns("_site", ".sourcebook-cache"))
    kept = Memos.in_memory(serving=True)
    assert kept.queries is not None
    derive_checked(check(root, kept=kept), kept.queries)
    first = kept.queries.ran
    with open_image(check(root).image or b"") as db:
        (late,) = db.rows(
            "SELECT file, line, known_from FROM figures"
            " WHERE known_from < ? AND COALESCE(note, '') = ''"
            " ORDER BY known_from DESC, file, line LIMIT 1",
            (db.day,),
        )
        months = len(history_months(db))
    path = root / late["file"]
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    item = lines[late["line"] - 1]
    indent = " " * (len(item) - len(item.lstrip(" -")))
    lines.insert(late["line"], f"{indent}note: Noted again.\n")
    path.write_text("".join(lines), encoding="utf-8")
    checked = check(root, kept=kept)
    assert checked.ok, [d.format() for d in checked.diagnostics.errors]
    moved = derive_checked(checked, kept.queries)
    again = kept.queries.ran - first
    assert months > 3 and 0 < again < first
    with open_image(check(root).image or b"") as db:
        assert derive_all(db) == moved  # what a run of its own makes


def stage_warnings(root: Path, kept: Memos) -> list[str]:
    checked = check(root, kept=kept)
    return [d.message for d in checked.diagnostics.warnings if d.code == "F031"]


def test_a_campus_s_stage_is_read_again_only_where_what_it_is_computed_from_changed(
    root: Path,
) -> None:
    """F031 holds what a campus says against the stage its figures show: `serve` reads the
    stages of the compiled record again only where its figures or campuses changed."""
    kept = Memos.in_memory(serving=True)
    said = "campus 'colossus-2' says it is under construction; its figures show it operating"
    assert stage_warnings(root, kept) == [said]
    assert kept.queries is not None
    hits = kept.queries.hits
    term = root / "terms" / "cluster.md"
    term.write_text(term.read_text() + "\nMore prose.\n")
    assert stage_warnings(root, kept) == [said]
    assert kept.queries.hits == hits + 2  # the record's queries, and the stages
    campus = root / "campuses" / "colossus-2.md"
    planned = campus.read_text().replace("    status: operating\n", "    status: planned\n")
    campus.write_text(planned)
    assert stage_warnings(root, kept) == [
        "campus 'colossus-2' says it is under construction; its figures show it announced"
    ]
    assert kept.queries.hits == hits + 2
    campus.write_text(campus.read_text().replace("status: under construction\n", ""))
    assert stage_warnings(root, kept) == []
