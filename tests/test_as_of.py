"""--as-of: the record as it stood on a day, with figures, sources and captures dated after
it left out, so that the scorecard and the tests read as they did then."""

from __future__ import annotations

import json
import sqlite3
from datetime import date

import pytest
from click.testing import CliRunner
from conftest import BUNDLED, SETTINGS

from sourcebook import derive
from sourcebook.cli import main
from sourcebook.compile import AsOfError
from sourcebook.compile.database import QueryError
from sourcebook.derive.scorecard import history_months
from sourcebook.pipeline import check, compile_checked

CAMPUS = """\
---
title: Colossus
location: Memphis
country: US
status: operating
figures:
  - metric: it-power
    value: 200
    unit: MW
    status: operating
    as_of: 2025-05
    grade: reported
    source: story
    quote: it has reached 200 megawatts
  - metric: it-power
    value: 500
    unit: MW
    status: operating
    as_of: 2026-02
    grade: reported
    source: later
    quote: now 500 MW
  - metric: it-power
    value: 2
    unit: GW
    status: projected
    as_of: 2028
    grade: estimated
    source: story
    quote: two gigawatts by 2028
  - metric: land
    value: 500
    unit: acres
    status: announced
    as_of: 2024
    grade: claimed
    source: undated
    quote: on 500 acres
    stated: 2025-09-15
---
"""
LARGEST = """\
---
title: Largest site
row: 11
description: The largest.
query: |
  SELECT value, unit, id AS figure FROM figures
  WHERE status = 'operating' ORDER BY base_value DESC LIMIT 1
---
"""


def source(title: str, day: str | None) -> str:
    dated = f"date: {day}\n" if day else ""
    return f"---\ntitle: {title}\ncategory: press\n{dated}---\n"


@pytest.fixture
def root(make_record):
    return make_record(
        {
            "campuses/colossus.md": CAMPUS,
            "indicators/largest.md": LARGEST,
            "sources/story.md": source("A story", "2025-06-01"),
            "sources/later.md": source("A later story", "2026-03-01"),
            "sources/undated.md": source("An undated page", None),
        },
        settings=SETTINGS,
    )


def at(root, tmp_path, day: date | None):
    checked = check(root, as_of=day)
    assert not checked.diagnostics.has_errors(), [d.format() for d in checked.diagnostics]
    return compile_checked(checked, tmp_path / f"{day}.db")


def figures(path) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT value, unit FROM figures ORDER BY position").fetchall()


def sources(path) -> list[str]:
    with sqlite3.connect(path) as db:
        return [row[0] for row in db.execute("SELECT id FROM sources ORDER BY id")]


def largest(path) -> str | None:
    with derive.open_record(path) as db:
        (row,) = derive.scorecard(db, history=False)
    return row.answer.shown if row.answer else None


def test_before_a_figure_its_source_and_it_are_left_out(root, tmp_path):
    path = at(root, tmp_path, date(2025, 5, 31))
    assert figures(path) == []
    assert sources(path) == []  # an undated source with no copy: not known before the close
    assert largest(path) is None


def test_on_and_after_its_sources_date_the_figure_is_in(root, tmp_path):
    path = at(root, tmp_path, date(2025, 6, 1))
    assert figures(path) == [(200.0, "MW"), (2.0, "GW")]
    assert sources(path) == ["story"]
    assert largest(path) == "200 MW"


def test_a_figure_stated_on_a_day_is_in_from_that_day(root, tmp_path):
    assert (500.0, "acres") not in figures(at(root, tmp_path, date(2025, 9, 14)))
    assert (500.0, "acres") in figures(at(root, tmp_path, date(2025, 9, 15)))


def test_by_default_the_record_stands_at_its_close(root, tmp_path):
    path = at(root, tmp_path, None)
    assert len(figures(path)) == 4 and largest(path) == "500 MW"
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT day FROM record_day").fetchone() == ("2026-11-08",)


def test_the_scorecard_history_shows_each_month_the_value_moved(root, tmp_path):
    with derive.open_record(at(root, tmp_path, None)) as db:
        (row,) = derive.scorecard(db)
    assert [(p.day, p.answer.shown) for p in row.history] == [
        ("2025-06", "200 MW"),
        ("2026-03", "500 MW"),
    ]


def test_the_history_agrees_with_the_record_read_at_each_month_end(root, tmp_path):
    path = at(root, tmp_path, None)
    with derive.open_record(path) as db:
        (row,) = derive.scorecard(db)
        for month_end in history_months(db):
            with db.as_of(month_end) as then:
                (was,) = derive.scorecard(then, history=False)
            shown = [p for p in row.history if p.day <= month_end.isoformat()[:7]]
            assert shown and shown[-1].answer.same(was.answer), month_end


def test_a_record_can_be_read_again_as_of_an_earlier_day(root, tmp_path):
    with derive.open_record(at(root, tmp_path, None)) as db, db.as_of(date(2025, 7, 1)) as then:
        assert then.meta("as_of") == "2025-07-01"
        (row,) = derive.scorecard(then, history=False)
        assert row.answer.shown == "200 MW"
        with pytest.raises(QueryError):
            then.run("DELETE FROM figures")


def test_the_record_check_compiled_can_be_read_as_of_an_earlier_day(root):
    with derive.open_image(check(root).image) as db, db.as_of(date(2025, 7, 1)) as then:
        (row,) = derive.scorecard(then, history=False)
        assert row.answer.shown == "200 MW"


def test_indicators_with_the_same_query_have_the_same_history(root, tmp_path):
    (root / "indicators" / "again.md").write_text(LARGEST.replace("row: 11", "row: 12"))
    with derive.open_record(at(root, tmp_path, None)) as db:
        first, second = derive.scorecard(db)
    assert (first.row, second.row) == (11, 12)
    assert (first.answer, first.history) == (second.answer, second.history)
    assert len(first.history) == 2


def test_a_day_after_the_record_closes_is_refused(root):
    with pytest.raises(AsOfError, match="after the record closes"):
        check(root, as_of=date(2027, 1, 1))


def test_check_as_of_runs_the_queries_on_the_record_of_that_day(make_record):
    shape = LARGEST.replace(
        "SELECT value, unit, id AS figure FROM figures\n  WHERE status = 'operating' "
        "ORDER BY base_value DESC LIMIT 1",
        "SELECT value FROM figures WHERE status = 'operating'",
    )
    root = make_record(
        {
            "campuses/colossus.md": CAMPUS,
            "indicators/largest.md": shape,
            "sources/story.md": source("A story", "2025-06-01"),
            "sources/later.md": source("A later story", "2026-03-01"),
            "sources/undated.md": source("An undated page", None),
        },
        settings=SETTINGS,
    )
    runner = CliRunner()
    early = runner.invoke(main, ["check", str(root), "--as-of", "2025-12-31", "--format", "json"])
    assert early.exit_code == 0, early.output
    late = runner.invoke(main, ["check", str(root), "--format", "json"])
    assert late.exit_code == 1
    errors = [d for d in json.loads(late.output)["diagnostics"] if d["severity"] == "error"]
    assert [(d["code"], d["file"].rsplit("/", 1)[-1]) for d in errors] == [("X004", "largest.md")]


def test_the_cli_refuses_a_day_after_the_close(root):
    result = CliRunner().invoke(main, ["check", str(root), "--as-of", "2030-01-01"])
    assert result.exit_code == 2
    assert "after the record closes (2026-11-08)" in result.output


def test_the_bundled_record_before_its_copies_were_taken(tmp_path):
    """Figures known only later are left out; the Library's copies, taken later, still
    prove the words of the sources known then."""
    day = date(2025, 11, 1)
    path = compile_checked(check(BUNDLED, as_of=day), tmp_path / "early.db")
    with sqlite3.connect(path) as db:
        late = db.execute(
            "SELECT COUNT(*) FROM figures WHERE known_from > ?", (day.isoformat(),)
        ).fetchone()
        held = db.execute("SELECT COUNT(*) FROM library_items").fetchone()
        proved = db.execute("SELECT COUNT(*) FROM figures WHERE quote_status = 'verified'")
        assert proved.fetchone()[0] > 0
    assert late == (0,)
    assert held[0] == len(list((BUNDLED / "library").glob("S*.yaml")))
