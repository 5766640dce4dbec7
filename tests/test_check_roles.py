"""A party's roles at a campus: what a supplier supplies, and the words that say so."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sourcebook.diagnostics import Severity
from sourcebook.library.intake import Details, take_in
from sourcebook.pipeline import check, compile_checked

CAMPUS = """\
---
title: Colossus 1
location: Memphis, Tennessee
country: US
status: operating
parties:
  - party: tesla
    roles: [supplier]
{entry}---
"""
PARTY = "---\ntitle: Tesla\ntype: company\n---\n"
SOURCE = "---\ntitle: Colossus is fully operational\ncategory: press\n---\n"
COPY = "The site also boasts another 150 MW of Megapack Batteries that will serve as backup.\n"


def record(make_record, entry: str) -> Path:
    root = make_record(
        {
            "campuses/colossus-1.md": CAMPUS.format(entry=entry),
            "parties/tesla.md": PARTY,
            "sources/colossus.md": SOURCE,
        }
    )
    copy = root.parent / "colossus.txt"
    copy.write_text(COPY, encoding="utf-8")
    take_in(root, str(copy), Details(captured="2026-10-12"), "colossus")
    return root


def found(checked, code: str) -> list:
    return [d for d in checked.diagnostics if d.code == code]


def test_a_supplier_that_says_what_it_supplies_passes(make_record):
    checked = check(record(make_record, "    supplies: Megapack batteries\n"))
    assert not found(checked, "S011") and not found(checked, "S012")
    assert not checked.diagnostics.has_errors()


def test_a_supplier_that_does_not_say_what_is_warned_at_its_roles(make_record):
    (warning,) = found(check(record(make_record, "")), "S012")
    assert warning.severity is Severity.WARNING
    assert warning.pos.file.endswith("colossus-1.md") and warning.pos.line == 8
    assert "does not say what it supplies" in warning.message


def test_supplies_on_a_party_that_supplies_nothing_is_an_error(make_record):
    root = record(make_record, "    supplies: Megapack batteries\n")
    path = root / "campuses" / "colossus-1.md"
    path.write_text(path.read_text().replace("[supplier]", "[builder]"))
    (error,) = found(check(root), "S011")
    assert error.severity is Severity.ERROR
    assert (error.pos.line, error.pos.col) == (9, 15)


def test_a_roles_quote_is_proved_and_compiled_with_what_is_supplied(make_record, tmp_path):
    entry = (
        "    supplies: Megapack batteries\n    source: colossus\n"
        "    quote: another 150 MW of Megapack Batteries\n"
    )
    checked = check(record(make_record, entry))
    assert not checked.diagnostics.has_errors()
    db = sqlite3.connect(compile_checked(checked, tmp_path / "record.db"))
    rows = db.execute(
        "SELECT party, role, position, supplies, quote, quote_status FROM campus_parties"
    ).fetchall()
    quote = "another 150 MW of Megapack Batteries"
    assert rows == [("tesla", "supplier", 1, "Megapack batteries", quote, "verified")]
    quoted = db.execute("SELECT field, status FROM quotes WHERE owner_id = 'colossus-1'")
    assert quoted.fetchall() == [("parties.0.quote", "verified")]


def test_a_roles_quote_its_source_does_not_hold_is_reported(make_record):
    entry = (
        "    supplies: Megapack batteries\n    source: colossus\n    quote: 300 MW of turbines\n"
    )
    checked = check(record(make_record, entry))
    (error,) = [d for d in checked.diagnostics if "300 MW of turbines" in d.message]
    assert error.code.startswith("Q") and error.pos.line == 11
