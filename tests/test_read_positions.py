"""Where check points: at the value that opens what a YAML error never closes, not at the
closing `---`; at the name of a field that should not be there, however its value runs."""

from __future__ import annotations

import pytest
from conftest import run, term

UNCLOSED = {
    "a quote": (
        '---\ntitle: "Cluster\ndefinition: A thing.\nchapters: [chapter-1]\n---\n',
        "2:8: error R001 malformed YAML: found unexpected end of stream while scanning a "
        "quoted scalar",
    ),
    "a bracket": (
        "---\ntitle: Cluster\ndefinition: A thing.\nchapters: [chapter-1\n---\n",
        "4:11: error R001 malformed YAML: did not find expected ',' or ']' while parsing a "
        "flow sequence",
    ),
    "a bracket in a list": (
        "---\ntitle: Cluster\ndefinition: A thing.\nchapters:\n- chapter-1\n- [a\n---\n",
        "6:3: error R001 malformed YAML: did not find expected ',' or ']' while parsing a "
        "flow sequence",
    ),
}


@pytest.mark.parametrize("case", list(UNCLOSED))
def test_a_yaml_error_points_at_what_is_never_closed(make_record, case: str) -> None:
    text, said = UNCLOSED[case]
    root = make_record({"terms/cluster.md": text})
    result = run("check", str(root))
    assert f"{root}/terms/cluster.md:{said}\n" in result.stdout
    assert "hint: close the quote or bracket this value opens" in result.stdout


def test_a_yaml_error_found_where_it_is_keeps_its_place(make_record) -> None:
    root = make_record({"terms/cluster.md": "---\ntitle: x\ndefinition: d\n  oops: 1\n---\n"})
    result = run("check", str(root))
    assert f"{root}/terms/cluster.md:4:7: error R001 malformed YAML: " in result.stdout


@pytest.mark.parametrize(
    ("extra", "line", "col"),
    [
        ("whatever: >-\n  folded\n  over lines\n", 5, 1),
        ("whatever: |\n  kept\n  as written\n", 5, 1),
        ("whatever: plain\n", 5, 1),
        ("whatever:\n  - a\n", 5, 1),
    ],
    ids=["folded", "literal", "plain", "list"],
)
def test_an_unknown_field_points_at_its_name(make_record, extra: str, line: int, col: int) -> None:
    root = make_record({"terms/cluster.md": term("Cluster", extra=extra)})
    result = run("check", str(root))
    assert f"{root}/terms/cluster.md:{line}:{col}: error S002 unknown field 'whatever'" in (
        result.stdout
    )


def test_an_unknown_field_inside_a_list_points_at_its_name(make_record) -> None:
    campus = (
        "---\ntitle: C\nlocation: L\ncountry: US\nstatus: operating\nfigures:\n"
        "  - metric: it-power\n    value: 1\n    unit: GW\n    status: operating\n"
        "    as_of: 2025\n    grade: reported\n    remark: >-\n      folded\n      text\n---\n"
    )
    root = make_record({"campuses/c.md": campus})
    result = run("check", str(root))
    assert f"{root}/campuses/c.md:13:5: error S002 unknown field 'figures.0.remark'" in (
        result.stdout
    )
