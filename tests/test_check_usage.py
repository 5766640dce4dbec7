"""Usage warnings: terms nothing uses, and drafts."""

from __future__ import annotations

from conftest import codes, term

from sourcebook.diagnostics import Severity
from sourcebook.pipeline import check


def test_term_nothing_uses_warns(make_record):
    checked = check(make_record({"terms/orphan.md": term("Orphan")}))
    (found,) = [d for d in checked.diagnostics if d.code == "U001"]
    assert found.severity is Severity.WARNING
    assert not checked.diagnostics.has_errors()


def test_a_mention_anywhere_is_a_use(make_record):
    root = make_record(
        {
            "terms/orphan.md": term("Orphan"),
            "terms/parent.md": term("Parent", body="An orphan no more."),
            "terms/child.md": term("Child", extra="related: [parent]\n"),
        }
    )
    assert [d.message for d in check(root).diagnostics if d.code == "U001"] == [
        "term 'child' is used by nothing in the record"
    ]


def test_draft_warns_at_its_flag(make_record):
    root = make_record({"terms/d.md": term("Dee", extra="draft: true\n", body="Dee.")})
    (found,) = [d for d in check(root).diagnostics if d.code == "U002"]
    assert found.pos.line == 5 and found.severity is Severity.WARNING
    assert "U001" in codes(check(root))
