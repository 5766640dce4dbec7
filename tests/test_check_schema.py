"""Schema problems: missing, unknown and mistyped fields, bad ids, duplicate keys."""

from __future__ import annotations

from conftest import codes, term

from sourcebook.pipeline import check


def only(checked, code):
    found = [d for d in checked.diagnostics if d.code == code]
    assert found, [d.format() for d in checked.diagnostics]
    return found[0]


def test_missing_field(make_record):
    root = make_record({"terms/cluster.md": "---\ntitle: Cluster\n---\n"})
    diagnostic = only(check(root), "S001")
    assert diagnostic.message == "missing field 'definition'"
    assert diagnostic.pos.file.endswith("terms/cluster.md")
    assert diagnostic.pos.line == 2


def test_unknown_field_with_did_you_mean(make_record):
    root = make_record({"terms/cluster.md": term("Cluster", extra="relatd: []\n")})
    diagnostic = only(check(root), "S002")
    assert "unknown field 'relatd'" in diagnostic.message
    assert diagnostic.hint == "did you mean 'related'?"
    assert (diagnostic.pos.line, diagnostic.pos.col) == (5, 1)


def test_wrong_type_points_at_the_value(make_record):
    root = make_record({"chapters/chapter-2.md": "---\ntitle: T\nnumber: two\nsummary: S\n---\n"})
    diagnostic = only(check(root), "S003")
    assert diagnostic.message.startswith("'number': input should be a valid integer")
    assert "'two'" in diagnostic.message
    assert (diagnostic.pos.line, diagnostic.pos.col) == (3, 9)


def test_wrong_enum_value(make_record):
    root = make_record({"sources/s.md": "---\ntitle: T\ncategory: blog\n---\n"})
    diagnostic = only(check(root), "S003")
    assert "'category'" in diagnostic.message and "'blog'" in diagnostic.message


def test_bad_day(make_record):
    root = make_record({"sources/s.md": "---\ntitle: T\ncategory: press\ndate: 2026-13-01\n---\n"})
    assert "S003" in codes(check(root))


def test_id_is_the_file_stem_and_must_be_a_slug(make_record):
    root = make_record({"terms/Big Cluster.md": term("Big cluster")})
    assert "S005" in codes(check(root))


def test_id_in_front_matter_is_refused(make_record):
    root = make_record({"terms/cluster.md": term("Cluster", extra="id: other\n")})
    assert only(check(root), "S002").message == "unknown field 'id'"


def test_duplicate_id_in_subfolders(make_record):
    root = make_record({"terms/a/cluster.md": term("Cluster"), "terms/b/cluster.md": term("C2")})
    assert "S004" in codes(check(root))


def test_duplicate_key(make_record):
    root = make_record({"terms/cluster.md": term("Cluster", extra="title: Again\n")})
    assert "S006" in codes(check(root))


def test_duplicate_rows_and_chapter_numbers(make_record):
    indicator = "---\ntitle: {t}\nrow: 11\ndescription: D\n---\n"
    root = make_record(
        {
            "indicators/a.md": indicator.format(t="A"),
            "indicators/b.md": indicator.format(t="B"),
            "chapters/chapter-1b.md": "---\ntitle: T\nnumber: 1\nsummary: S\n---\n",
        }
    )
    found = codes(check(root))
    assert "S007" in found and "S008" in found


def test_a_clean_record_has_no_diagnostics(make_record):
    root = make_record(
        {
            "terms/cluster.md": term("Cluster", body="A cluster of chips."),
            "terms/chip.md": term("Chip", body="Many chips make a cluster."),
        }
    )
    assert [d.format() for d in check(root).diagnostics] == []


def test_settings_problems_are_reported_at_their_line(make_record):
    settings = '[book]\ntitle = "T"\nhouse = "H"\ncloses = 2026-11-08\ncolour = 1\n'
    root = make_record({}, settings=settings)
    diagnostic = only(check(root), "S002")
    assert diagnostic.pos.file.endswith("sourcebook.toml") and diagnostic.pos.line == 5


def test_malformed_settings(make_record):
    root = make_record({}, settings='[book\ntitle = "T"\n')
    diagnostic = only(check(root), "R001")
    assert diagnostic.pos.line == 1
