"""check runs every indicator's and test's query, and reports a bad one at its file and line."""

from __future__ import annotations

import textwrap

import pytest
from conftest import SETTINGS, codes

from sourcebook.pipeline import check, derive_checked

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
---
"""
SOURCE = "---\ntitle: A story\ncategory: press\ndate: 2025-06-01\n---\n"
SLOW = (
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)"
    " SELECT COUNT(*) AS value FROM n"
)


def indicator(query: str | None) -> str:
    text = "---\ntitle: Largest site\nrow: 11\ndescription: The largest.\n"
    if query is not None:
        text += "query: |\n" + textwrap.indent(query, "  ") + "\n"
    return text + "---\n"


def book_test(query: str) -> str:
    return (
        "---\ntitle: A claim\nclaim: It will be so.\ndeadline: 2026-12-31\nrule: Look.\n"
        "query: |\n" + textwrap.indent(query, "  ") + "\n---\n"
    )


@pytest.fixture
def run(make_record):
    def checked(files: dict[str, str], settings: str = SETTINGS):
        base = {"campuses/colossus.md": CAMPUS, "sources/story.md": SOURCE}
        return check(make_record({**base, **files}, settings=settings))

    return checked


def only(result, code: str):
    found = [d for d in result.diagnostics if d.code == code]
    assert len(found) == 1, [d.format() for d in result.diagnostics]
    return found[0]


def test_good_queries_raise_nothing(run):
    result = run(
        {
            "indicators/largest.md": indicator(
                "SELECT value, unit, id AS figure FROM figures ORDER BY base_value DESC LIMIT 1"
            ),
            "tests/claim.md": book_test("SELECT 1 AS holds, 'it is so' AS why"),
        }
    )
    assert not [c for c in codes(result) if c[0] == "X"], codes(result)


def test_a_failing_query_is_reported_at_its_token(run):
    result = run({"indicators/largest.md": indicator("SELECT value\nFROM figurez")})
    diagnostic = only(result, "X001")
    assert diagnostic.severity == "error" and "no such table: figurez" in diagnostic.message
    assert diagnostic.pos.file.endswith("indicators/largest.md")
    assert (diagnostic.pos.line, diagnostic.pos.col) == (7, 8)


def test_a_destructive_query_is_refused_at_its_file(run):
    diagnostic = only(run({"indicators/largest.md": indicator("DELETE FROM figures")}), "X002")
    assert "only SELECT is allowed" in diagnostic.message
    assert (diagnostic.pos.line, diagnostic.pos.col) == (6, 3)


def test_a_slow_query_is_stopped(run):
    settings = SETTINGS + "\n[limits]\nquery_seconds = 0.1\n"
    result = run({"indicators/largest.md": indicator(SLOW)}, settings=settings)
    assert "time limit of 0.1 s" in only(result, "X003").message


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("SELECT 1 AS amount", "returns amount"),
        ("SELECT value FROM figures UNION ALL SELECT 2", "at most one row"),
        ("SELECT value, 'campus:nowhere:1' AS figure FROM figures", "figure 'campus:nowhere:1'"),
        ("SELECT value, 1 AS colour FROM figures", "returns value, colour"),
    ],
)
def test_an_indicator_query_of_the_wrong_shape(run, query, words):
    diagnostic = only(run({"indicators/largest.md": indicator(query)}), "X004")
    assert words in diagnostic.message


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("SELECT 1 AS passed", "holds"),
        ("SELECT 1 AS holds FROM figures WHERE 0", "exactly one row"),
        ("SELECT 2 AS holds", "1, 0 or NULL"),
    ],
)
def test_a_test_query_of_the_wrong_shape(run, query, words):
    assert words in only(run({"tests/claim.md": book_test(query)}), "X004").message


def test_an_indicator_without_a_query_is_a_warning(run):
    assert only(run({"indicators/largest.md": indicator(None)}), "X005").severity == "warning"


def test_a_query_of_the_full_text_index_runs_in_check_and_derive(run):
    query = "SELECT COUNT(*) AS value FROM search WHERE search MATCH 'colossus'"
    checked = run({"indicators/largest.md": indicator(query)})
    assert "X001" not in codes(checked)
    (row,) = derive_checked(checked).rows
    assert row.error is None and row.answer.value == 1


def test_what_derive_finds_compares_alike_from_run_to_run(run) -> None:
    """A query's failure compares as what it says: `serve` writes again only the pages
    whose part of what derive found changed, and finds a failing query's unchanged."""
    settings = SETTINGS + "\n[limits]\nquery_seconds = 0.1\n"
    files = {
        "indicators/slow.md": indicator(SLOW),
        "tests/claim.md": book_test("SELECT holds FROM nowhere"),
    }
    first, second = (derive_checked(run(files, settings=settings)) for _ in range(2))
    assert first.rows[0].error is not None and first.verdicts[0].error is not None
    assert first == second
