"""Dates: nothing after the record closes; updated not before published."""

from __future__ import annotations

from conftest import codes

from sourcebook.pipeline import check

SOURCE = "---\ntitle: T\ncategory: press\n{fields}---\n"


def test_source_dated_after_close(make_record):
    root = make_record({"sources/s.md": SOURCE.format(fields="date: 2026-11-09\n")})
    (found,) = [d for d in check(root).diagnostics if d.code == "D001"]
    assert found.message == "'date' 2026-11-09 is after the record closes (2026-11-08)"
    assert (found.pos.line, found.pos.col) == (4, 7)


def test_a_month_is_after_close_only_when_it_starts_after(make_record):
    assert "D001" not in codes(
        check(make_record({"sources/s.md": SOURCE.format(fields="date: 2026-11\n")}))
    )


def test_updated_before_published(make_record):
    root = make_record(
        {"sources/s.md": SOURCE.format(fields="date: 2026-07-31\nupdated: 2026-07-30\n")}
    )
    assert "D003" in codes(check(root))


def test_operating_figure_in_the_future_but_projection_allowed(make_record):
    campus = (
        "---\ntitle: C\nlocation: L\ncountry: US\nstatus: operating\nfigures:\n"
        "  - {metric: it-power, value: 1, unit: GW, status: operating, as_of: 2027-01,"
        " grade: reported}\n"
        "  - {metric: it-power, value: 5, unit: GW, status: projected, as_of: 2028,"
        " grade: estimated}\n---\n"
    )
    found = [
        d for d in check(make_record({"campuses/c.md": campus})).diagnostics if d.code == "D001"
    ]
    assert len(found) == 1 and "it-power" in found[0].message
