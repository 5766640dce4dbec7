"""The bundled record's scorecard is computed from its figures, never typed in."""

from __future__ import annotations

import shutil

import pytest
from conftest import BUNDLED

from sourcebook import derive
from sourcebook.compile.database import QueryError
from sourcebook.derive.scorecard import figure_refs, history_months
from sourcebook.model.base import day_end
from sourcebook.model.figures import placed_figures
from sourcebook.model.units import to_base
from sourcebook.pipeline import check, compile_checked

SITE_POWER = ("it-power", "facility-power")
EVIDENCED = ("documented", "observed", "reported")

NEW_FIGURE = """\
  - metric: it-power
    value: 900
    unit: MW
    status: operating
    as_of: 2026-10
    grade: observed
    source: zawya-stargate-uae-press-release
    quote: the first 900 MW are running
"""


def largest_by_the_figures(record) -> tuple[str, float]:
    """Row 11 worked out in Python: each campus at its latest evidenced operating power."""
    latest: dict[str, tuple] = {}
    for placed in placed_figures(record):
        f = placed.figure
        if placed.owner.KIND != "campus" or f.metric not in SITE_POWER:
            continue
        if f.status.value != "operating" or f.grade.value not in EVIDENCED:
            continue
        watts = to_base(f.value, f.unit)[0]
        key = (day_end(f.as_of), -list(EVIDENCED).index(f.grade.value), watts)
        if placed.owner.id not in latest or key > latest[placed.owner.id][0]:
            latest[placed.owner.id] = (key, watts)
    campus = max(latest, key=lambda c: (latest[c][1], c))
    return campus, latest[campus][1]


def rows_of(root, tmp_path):
    checked = check(root)
    path = compile_checked(checked, tmp_path / "record.db")
    with derive.open_record(path) as db:
        return checked, {row.row: row for row in derive.scorecard(db)}


@pytest.fixture(scope="module")
def bundled(tmp_path_factory):
    return rows_of(BUNDLED, tmp_path_factory.mktemp("bundled"))


def test_row_11_names_the_campus_the_figures_make_largest(bundled):
    checked, rows = bundled
    row = rows[11]
    assert row.indicator == "largest-evidenced-operating-site" and row.error is None
    campus, watts = largest_by_the_figures(checked.record)
    assert row.answer.campus == campus
    assert row.answer.value * 1e6 == pytest.approx(watts)
    assert row.figure.evidenced and row.figure.status == "operating"
    assert row.grade in EVIDENCED and row.source == row.figure.source


def test_row_11_changes_when_a_larger_figure_is_added(tmp_path):
    copy = tmp_path / "record"
    shutil.copytree(BUNDLED, copy, ignore=shutil.ignore_patterns(".sourcebook-cache", "_site"))
    campus_file = copy / "campuses" / "stargate-uae.md"
    text = campus_file.read_text(encoding="utf-8")
    assert "\nfigures:\n" in text
    campus_file.write_text(text.replace("\nfigures:\n", "\nfigures:\n" + NEW_FIGURE, 1), "utf-8")
    checked, rows = rows_of(copy, tmp_path)
    assert largest_by_the_figures(checked.record) == ("stargate-uae", 900e6)
    assert rows[11].answer.campus == "stargate-uae"
    assert rows[11].answer.shown == "900 MW"
    assert rows[11].figure.grade == "observed"


def test_at_least_six_rows_each_with_a_value_and_its_evidence(bundled):
    _checked, rows = bundled
    assert len(rows) >= 6
    for row in rows.values():
        assert row.error is None, (row.indicator, row.error and row.error.message)
        assert row.answer is not None and row.answer.value is not None, row.indicator
    assert rows[5].answer.shown == "$2.35 per GPU-hour"
    assert rows[5].figure.metric == "h100-rental-price"
    assert rows[1].answer.campus == "hyperion" and rows[1].answer.unit == "GW"


def test_a_total_names_every_figure_it_adds_and_no_single_campus(bundled):
    _checked, rows = bundled
    total = rows[2].answer
    assert total.campus is None and len(total.figures) >= 2
    assert total.value == pytest.approx(sum(f.value for f in total.figures if f.unit == "MW"))


def test_the_history_of_row_11_moves_forward_and_ends_at_its_value(bundled):
    _checked, rows = bundled
    history = rows[11].history
    assert len(history) >= 2
    days = [point.day for point in history]
    assert days == sorted(days)
    assert history[-1].answer.same(rows[11].answer)
    assert history[0].answer.value != history[-1].answer.value


def test_every_rows_history_is_the_record_read_again_at_each_month_end(tmp_path):
    path = compile_checked(check(BUNDLED), tmp_path / "record.db")
    with derive.open_record(path) as db:
        rows = {r.indicator: r for r in derive.scorecard(db)}
        for month_end in history_months(db):
            with db.as_of(month_end) as then:
                for was in derive.scorecard(then, history=False):
                    shown = [
                        p for p in rows[was.indicator].history if p.day <= month_end.isoformat()[:7]
                    ]
                    if was.answer is None:
                        assert not shown, (was.indicator, month_end)
                    else:
                        assert shown[-1].answer.same(was.answer), (was.indicator, month_end)


def test_figures_named_come_in_their_order_and_the_first_unknown_is_named(bundled):
    checked, _rows = bundled
    with derive.open_image(checked.image) as db:
        a, b = (r[0] for r in db.rows("SELECT id FROM figures ORDER BY id DESC LIMIT 2"))
        known: dict = {}
        assert [f.id for f in figure_refs(db, f"{a}, {b},{a}", known)] == [a, b, a]
        assert set(known) == {a, b}
        assert figure_refs(db, b, known)[0] is known[b]
        with pytest.raises(QueryError, match="names figure 'nothing'"):
            figure_refs(db, f"{a},nothing,also-nothing")
