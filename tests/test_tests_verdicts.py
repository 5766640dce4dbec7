"""The book's tests: pending, passed or failed, and why, from their queries."""

from __future__ import annotations

import textwrap
from datetime import date

import pytest
from conftest import BUNDLED, SETTINGS

from sourcebook import derive
from sourcebook.derive.verdicts import Outcome, outcome
from sourcebook.pipeline import check, compile_checked

PRICE = """\
---
title: SemiAnalysis
type: research
figures:
  - metric: h100-rental-price
    value: {value}
    unit: USD/GPU-hour
    chip: H100
    status: market
    as_of: 2026-03
    grade: reported
    source: index
    quote: a one-year H100 at ${value} per GPU-hour
---
"""
SOURCE = "---\ntitle: The index\ncategory: research\ndate: 2026-04-02\n---\n"
ABOVE_TROUGH = """\
WITH low AS (
  SELECT * FROM figures
  WHERE metric = 'h100-rental-price' AND base_value <= 1.70
    AND as_of_start >= '2026-01-01')
SELECT CASE WHEN EXISTS (SELECT 1 FROM low) THEN 0
            WHEN (SELECT day FROM record_day) >= '2026-12-31' THEN 1 END AS holds,
  COALESCE((SELECT 'fell to ' || value FROM low), 'not below the trough') AS why,
  (SELECT id FROM low) AS figure
"""


@pytest.mark.parametrize(
    ("holds", "today", "expected"),
    [
        (True, date(2026, 1, 1), Outcome.PASSED),
        (False, date(2026, 1, 1), Outcome.FAILED),
        (None, date(2026, 1, 1), Outcome.PENDING),
        (None, date(2026, 12, 30), Outcome.PENDING),
        (None, date(2026, 12, 31), Outcome.FAILED),
        (True, date(2027, 3, 1), Outcome.PASSED),
    ],
)
def test_an_outcome_follows_the_query_and_the_deadline(holds, today, expected):
    assert outcome(holds, "2026", today) is expected


def a_test(query: str, title: str = "Above the trough") -> str:
    return (
        f"---\ntitle: {title}\nclaim: It stays up.\ndeadline: 2026-12-31\n"
        "rule: Fails at or below 1.70.\nquery: |\n" + textwrap.indent(query, "  ") + "---\n"
    )


def compiled(make_record, tmp_path, price: str, closes: str = "2026-11-08", **tests: str):
    files = {
        "parties/semianalysis.md": PRICE.format(value=price),
        "sources/index.md": SOURCE,
        "tests/above-trough.md": a_test(ABOVE_TROUGH),
        **{f"tests/{name}.md": text for name, text in tests.items()},
    }
    settings = SETTINGS.replace("closes = 2026-11-08", f"closes = {closes}")
    checked = check(make_record(files, settings=settings))
    assert not checked.diagnostics.has_errors(), [d.format() for d in checked.diagnostics]
    return derive.open_record(compile_checked(checked, tmp_path / "record.db"))


def verdict_of(make_record, tmp_path, price: str, closes: str = "2026-11-08"):
    with compiled(make_record, tmp_path, price, closes) as db:
        (verdict,) = derive.verdicts(db)
    return verdict


def test_a_claim_not_yet_settled_is_pending(make_record, tmp_path):
    verdict = verdict_of(make_record, tmp_path, "2.35")
    assert verdict.outcome is Outcome.PENDING
    assert verdict.why == "not below the trough" and verdict.figures == ()
    assert verdict.as_of == "2026-11-08" and verdict.deadline == "2026-12-31"


def test_a_claim_broken_before_its_deadline_has_failed(make_record, tmp_path):
    verdict = verdict_of(make_record, tmp_path, "1.65")
    assert verdict.outcome is Outcome.FAILED
    assert verdict.why == "fell to 1.65"
    assert [f.id for f in verdict.figures] == ["party:semianalysis:1"]


def test_a_claim_that_lasts_to_its_deadline_has_passed(make_record, tmp_path):
    verdict = verdict_of(make_record, tmp_path, "2.35", closes="2027-01-15")
    assert verdict.outcome is Outcome.PASSED


def test_the_bundled_tests_each_have_a_verdict_and_a_reason(tmp_path):
    checked = check(BUNDLED)
    with derive.open_record(compile_checked(checked, tmp_path / "record.db")) as db:
        verdicts = derive.verdicts(db)
    assert len(verdicts) >= 2
    for verdict in verdicts:
        assert verdict.error is None, verdict.error and verdict.error.message
        assert verdict.outcome is not None and verdict.why, verdict.test
    by_id = {v.test: v for v in verdicts}
    assert by_id["h100-price-above-trough"].outcome is Outcome.PENDING
    assert "2.35" in by_id["h100-price-above-trough"].why


def test_the_verdicts_history_follows_what_was_known_each_month(make_record, tmp_path):
    # the price of 1.65 is known from its source's day, 2 April 2026; a second test names
    # that figure by id, so in a month before it its query names a figure that is none
    names = a_test("SELECT 1 AS holds, 'party:semianalysis:1' AS figure\n", title="Names it")
    with compiled(make_record, tmp_path, "1.65", **{"names-it": names}) as db:
        history = derive.verdict_history(db, [date(2026, 3, 31), date(2026, 4, 30)])
    assert history == [
        ("above-trough", "Above the trough", "2026-03-31", "pending"),
        ("above-trough", "Above the trough", "2026-04-30", "failed"),
        ("names-it", "Names it", "2026-04-30", "passed"),
        ("above-trough", "Above the trough", "2026-11-08", "failed"),
        ("names-it", "Names it", "2026-11-08", "passed"),
    ]
