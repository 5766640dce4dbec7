"""References: every id named in front matter, wiki links and citations must exist."""

from __future__ import annotations

from conftest import codes, term

from sourcebook.pipeline import check


def diagnostics(root, code):
    return [d for d in check(root).diagnostics if d.code == code]


def test_unknown_id_in_front_matter_with_did_you_mean(make_record):
    root = make_record(
        {
            "terms/cluster.md": term("Cluster", extra="related: [trainng]\n"),
            "terms/training.md": term("Training", body="Training on a cluster."),
        }
    )
    (found,) = diagnostics(root, "L001")
    assert found.message == "unknown term id 'trainng' in 'related'"
    assert found.hint == "did you mean 'training'?"
    assert (found.pos.line, found.pos.col) == (5, 11)


def test_reference_to_an_entity_of_the_wrong_kind(make_record):
    root = make_record({"terms/cluster.md": term("Cluster", chapters="[cluster]")})
    (found,) = diagnostics(root, "L001")
    assert found.hint == "'cluster' is a term, not a chapter"


def test_unknown_wiki_link_in_body_points_into_the_body(make_record):
    root = make_record({"terms/cluster.md": term("Cluster", body="One line.\nSee [[clustr]].\n")})
    (found,) = diagnostics(root, "L001")
    assert found.message == "[[clustr]] names no entity"
    assert found.hint == "did you mean 'cluster'?"
    assert (found.pos.line, found.pos.col) == (7, 5)


def test_unknown_kind_in_wiki_link(make_record):
    root = make_record({"terms/cluster.md": term("Cluster", body="[[campuss:x]]")})
    (found,) = diagnostics(root, "L002")
    assert found.hint == "did you mean 'campus'?"


def test_citation_of_a_missing_source(make_record):
    root = make_record(
        {
            "terms/cluster.md": term("Cluster", body="As said [@sa-esay, p. 81]."),
            "sources/sa-essay.md": "---\ntitle: Situational Awareness\ncategory: other\n---\n",
        }
    )
    (found,) = diagnostics(root, "L003")
    assert found.message == "citation of a source that does not exist: @sa-esay"
    assert found.hint == "did you mean 'sa-essay'?"


def test_ambiguous_wiki_link(make_record):
    root = make_record(
        {
            "terms/tva.md": term("Tennessee authority"),
            "parties/tva.md": "---\ntitle: TVA\ntype: utility\n---\n",
            "campuses/c.md": "---\ntitle: C\nlocation: L\ncountry: US\nstatus: operating\n---\n"
            "Power from [[tva]].\n",
        }
    )
    (found,) = diagnostics(root, "L005")
    assert "[[term:tva]]" in found.hint


def test_a_reference_to_a_broken_file_is_not_reported_twice(make_record):
    root = make_record(
        {
            "terms/cluster.md": term("Cluster", extra="related: [broken]\n"),
            "terms/broken.md": "---\ntitle: [oops\n---\n",
        }
    )
    found = codes(check(root))
    assert "R001" in found and "L001" not in found


def test_self_related_term_warns(make_record):
    root = make_record({"terms/cluster.md": term("Cluster", extra="related: [cluster]\n")})
    assert "L006" in codes(check(root))


def test_same_as_must_name_an_entity(make_record):
    root = make_record({"terms/tva.md": term("TVA", extra="same_as: party:tva\n")})
    assert "L002" in codes(check(root))


def test_positions_inside_a_folded_block_scalar(make_record):
    root = make_record(
        {
            "sources/s.md": (
                "---\ntitle: T\ncategory: press\nannotation: >-\n  First line of prose,\n"
                "  then a [[nothing]] link.\n---\n"
            )
        }
    )
    (found,) = diagnostics(root, "L001")
    assert (found.pos.line, found.pos.col) == (6, 10)


def test_positions_inside_a_plain_scalar_over_lines(make_record):
    root = make_record(
        {
            "sources/s.md": (
                "---\ntitle: T\ncategory: press\nannotation: First line\n   and [[nothing]].\n---\n"
            )
        }
    )
    (found,) = diagnostics(root, "L001")
    assert (found.pos.line, found.pos.col) == (5, 8)
