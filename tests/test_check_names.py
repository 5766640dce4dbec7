"""Names and aliases: one entity each, except a term and what it is the same as."""

from __future__ import annotations

from conftest import codes, term

from sourcebook.pipeline import check

PARTY = "---\ntitle: {title}\ntype: utility\n{extra}---\n"


def test_duplicate_name_across_kinds_is_an_error(make_record):
    root = make_record(
        {
            "terms/tva.md": term("TVA"),
            "parties/tva-party.md": PARTY.format(title="TVA", extra=""),
        }
    )
    found = [d for d in check(root).diagnostics if d.code == "L004"]
    assert len(found) == 1
    assert "also names" in found[0].message
    assert "same_as" in found[0].hint


def test_same_as_lets_a_term_share_its_party_name(make_record):
    root = make_record(
        {
            "terms/tva.md": term("TVA", extra="same_as: party:tva\n"),
            "parties/tva.md": PARTY.format(title="TVA", extra=""),
            "campuses/c.md": "---\ntitle: C\nlocation: L\ncountry: US\nstatus: operating\n---\n"
            "Power from the TVA.\n",
        }
    )
    checked = check(root)
    assert "L004" not in codes(checked)
    targets = {r.target for r in checked.graph.refs if r.via == "mention"}
    assert {("term", "tva"), ("party", "tva")} <= targets


def test_duplicate_alias_differing_in_case(make_record):
    root = make_record(
        {
            "terms/capex.md": term("Capital expenditure", extra="aliases: [Capex]\n"),
            "parties/capex-inc.md": PARTY.format(title="CAPEX", extra=""),
        }
    )
    assert "L004" in codes(check(root))


def test_name_that_is_another_names_plural_warns(make_record):
    root = make_record(
        {
            "terms/megapack.md": term("Megapack"),
            "terms/megapacks.md": term("Megapacks", body="Megapack"),
        }
    )
    assert "L007" in codes(check(root))
