"""check reads the conclusions: prose numbers against the figures (C001, C002), markup that
would print as text (C003), claims the counts deny (C004) and embeds of computed values
(L009), each on a small record made to break it; and the bundled record clean of all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import BUNDLED, run, term

from sourcebook.incremental import Memos
from sourcebook.pipeline import check

SOURCE = """\
---
title: A trade report
category: press
date: "2025-10-01"
---
"""

COLOSSUS_1 = """\
---
title: Colossus 1
aliases: [Colossus]
location: Memphis, Tennessee
country: US
status: operating
figures:
  - metric: grid-supply
    value: 150
    unit: MW
    status: operating
    as_of: "2025"
    grade: reported
    source: report
    quote: the site takes 150 MW from the grid
  - id: c1-300
    metric: facility-power
    value: 300
    unit: MW
    status: operating
    as_of: "2024"
    grade: reported
    source: report
    quote: it reached 300 MW of capacity
  - metric: chips
    value: 100000
    unit: chips
    chip: H100
    status: operating
    as_of: 2024-07
    grade: reported
    source: report
    quote: it housed 100,000 GPUs
---
"""

COLOSSUS_2 = """\
---
title: Colossus 2
location: Memphis, Tennessee
country: US
status: operating
figures:
  - metric: it-power
    value: 200
    unit: MW
    status: operating
    as_of: 2025-09
    grade: reported
    source: report
    quote: the facility has reached 200 megawatts
  - metric: it-power
    value: 1
    unit: GW
    status: under construction
    as_of: 2025-09
    grade: reported
    source: report
    quote: resources in place to scale beyond 1 gigawatt
---
{body}"""

CORRECTION = """\
---
title: Colossus 1 did not have 300 MW in 2024
scope: source
date: "2026-10-20"
source: report
corrects: [c1-300]
wrong: Colossus 1 had 300 MW in 2024.
right: It had 150 MW from the grid.
---
"""


def campus_record(make_record, body: str, campus_body: str = "", extra: dict | None = None):
    return make_record(
        {
            "sources/report.md": SOURCE,
            "campuses/colossus-1.md": COLOSSUS_1,
            "campuses/colossus-2.md": COLOSSUS_2.format(body=campus_body),
            "corrections/c1-300mw.md": CORRECTION,
            "terms/cluster.md": term("Cluster", body=body),
            **(extra or {}),
        }
    )


def found(root, *codes: str) -> list:
    return [d for d in check(root).diagnostics if d.code in codes]


def at(diagnostic) -> tuple[str, int, int]:
    """Where a diagnostic points: the file as `folder/name`, its line and column."""
    path = Path(diagnostic.pos.file)
    return f"{path.parent.name}/{path.name}", diagnostic.pos.line, diagnostic.pos.col


# C001: a number said of a campus that none of its figures bears out.


def test_a_number_no_figure_bears_out_is_c001_at_the_number(make_record):
    root = campus_record(make_record, "Memphis has one big site. Colossus 2 runs 5 GW today.\n")
    (warning,) = found(root, "C001", "C002")
    assert warning.code == "C001" and warning.severity.value == "warning"
    assert (
        warning.message
        == "'5 GW' said of Colossus 2: no figure of Colossus 2's bears it out as what is or was"
    )
    assert at(warning) == ("terms/cluster.md", 6, 43)
    assert warning.hint and "curly quotes" in warning.hint


@pytest.mark.parametrize(
    "said",
    [
        "Colossus 2 runs 200 MW.",
        "Colossus 2 runs 200 megawatts.",
        "Colossus 2 runs about 210 MW.",  # about: a tenth either way
        "Colossus 2 runs more than 150 MW.",  # more than: no upper end
        "Colossus 2 is being built to 1 GW.",
        "Colossus 2 runs 0.2 GW.",
        "Colossus 2 will reach 1,000 MW.",
    ],
)
def test_a_number_a_figure_bears_out_is_not_reported(make_record, said):
    assert found(campus_record(make_record, said), "C001", "C002") == []


@pytest.mark.parametrize(
    "said",
    [
        "Colossus 2 runs 1.2 GW.",  # 1.15–1.25 GW: not the 1 GW figure
        "Colossus 2 runs 250 MW.",  # 245–255 MW
        "Colossus 2 runs five gigawatts.",
        "Colossus 2 holds 400,000 GPUs.",  # no chips at all
    ],
)
def test_the_range_is_the_written_precision(make_record, said):
    assert [d.code for d in found(campus_record(make_record, said), "C001", "C002")] == ["C001"]


def test_a_plan_may_rest_on_a_plan_but_a_fact_may_not(make_record):
    extra = {
        "campuses/hyperion.md": """\
            ---
            title: Hyperion
            location: Louisiana
            country: US
            status: announced
            figures:
              - metric: it-power
                value: 5
                unit: GW
                status: announced
                as_of: 2025-07
                grade: reported
                source: report
                quote: it will scale to 5 GW
            ---
            """
    }
    fact = campus_record(make_record, "Hyperion draws 5 GW.", extra=extra)
    assert [d.code for d in found(fact, "C001")] == ["C001"]
    for plan in (
        "Hyperion will draw 5 GW.",
        "Hyperion is to draw 5 GW.",
        "Hyperion: 5 GW by 2030.",
    ):
        assert found(campus_record(make_record, plan, extra=extra), "C001") == [], plan


@pytest.mark.parametrize(
    "said",
    [
        "The report says Colossus 2 “runs 5 GW” [@report].",  # the source's words
        "Colossus 1 and Colossus 2 run 5 GW between them.",  # two campuses: not checked
        "Some site runs 5 GW.",  # no campus named
        "Colossus 2 uses Trainium 2 chips.",  # a chip's name, not a count
        "See `5 GW` at Colossus 2.",  # code
    ],
)
def test_what_is_not_the_records_claim_about_one_campus_is_not_checked(make_record, said):
    assert found(campus_record(make_record, said), "C001", "C002") == []


def test_a_campus_own_prose_speaks_of_the_campus(make_record):
    root = campus_record(make_record, "", campus_body="It runs 3 GW.\n")
    (warning,) = found(root, "C001")
    assert warning.message.startswith("'3 GW' said of Colossus 2")
    assert at(warning) == ("campuses/colossus-2.md", 24, 9)


def test_a_wiki_link_names_the_campus(make_record):
    root = campus_record(make_record, "The [[campus:colossus-2|second site]] runs 9 GW.")
    assert [d.code for d in found(root, "C001")] == ["C001"]


# C002: a number only a retired figure bears out.


def test_what_prose_says_is_kept_and_held_to_the_figures_as_they_are_now(make_record):
    """An unchanged term's numbers are found again, not read again, and held to the
    campus's figures as a save left them: an edit of the campus alone is what decides."""
    root = campus_record(make_record, "Colossus 2 runs 200 MW.")
    kept = Memos.open(root)
    assert [d.code for d in check(root, kept=kept).diagnostics if d.code == "C001"] == []
    campus = root / "campuses/colossus-2.md"
    campus.write_text(
        campus.read_text(encoding="utf-8").replace("value: 200", "value: 300"), encoding="utf-8"
    )
    kept = Memos.open(root)
    (warning,) = [d for d in check(root, kept=kept).diagnostics if d.code in ("C001", "C002")]
    assert at(warning) == ("terms/cluster.md", 6, 17) and "'200 MW'" in warning.message
    assert kept.checked.hits > 0  # the term's sentences were found, not read again
    assert [(d.code, at(d)) for d in found(root, "C001", "C002")] == [(warning.code, at(warning))]


def test_a_new_name_is_looked_for_in_what_unchanged_prose_says(make_record):
    """A term's sentence that names no campus is not held to any; an alias given to a
    campus in its own file makes the same, unchanged sentence name it."""
    root = campus_record(make_record, "The big Memphis site runs 5 GW.")
    kept = Memos.open(root)
    assert [d for d in check(root, kept=kept).diagnostics if d.code == "C001"] == []
    campus = root / "campuses/colossus-2.md"
    campus.write_text(
        campus.read_text(encoding="utf-8").replace(
            "title: Colossus 2\n", "title: Colossus 2\naliases: [big Memphis site]\n"
        ),
        encoding="utf-8",
    )
    kept = Memos.open(root)
    (warning,) = [d for d in check(root, kept=kept).diagnostics if d.code == "C001"]
    assert at(warning) == ("terms/cluster.md", 6, 27) and "'5 GW' said of Colossus 2" in (
        warning.message
    )


def test_a_number_resting_on_a_corrected_figure_is_c002(make_record):
    root = campus_record(make_record, "The first Colossus reached 300 MW in 2024.")
    (warning,) = found(root, "C001", "C002")
    assert warning.code == "C002"
    assert warning.message == (
        "'300 MW' said of Colossus 1 rests only on figure 'c1-300', which correction "
        "'c1-300mw' retired"
    )
    assert (warning.pos.line, warning.pos.col) == (6, 28)


def test_telling_of_the_corrected_figure_is_not_c002(make_record):
    said = (
        "A trade report wrote that Colossus 1 “reached 300 MW of capacity” [@report]. "
        "Colossus 1 had 300 MW, the report said ([[correction:c1-300mw]])."
    )
    root = campus_record(make_record, said)
    assert found(root, "C001", "C002") == []  # the correction's own title and `wrong` too


def test_a_figure_marked_unreliable_retires_what_rests_on_it(make_record):
    doubted = COLOSSUS_1.replace(
        "    quote: it housed 100,000 GPUs\n",
        "    quote: it housed 100,000 GPUs\n    unreliable: the count is a guess\n",
    )
    root = campus_record(
        make_record, "Colossus 1 housed 100,000 H100s.", extra={"campuses/colossus-1.md": doubted}
    )
    (warning,) = found(root, "C002")
    assert "which the record's doubt retired" in warning.message


# C003: markup that would print as text.


def test_markup_in_a_field_shown_as_written_is_c003_at_the_mark(make_record):
    noted = COLOSSUS_1.replace(
        "    quote: the site takes 150 MW from the grid\n",
        "    quote: the site takes 150 MW from the grid\n"
        "    note: Phase 1 ([[correction:c1-300mw]]).\n",
    )
    root = campus_record(
        make_record,
        "",
        extra={
            "campuses/colossus-1.md": noted,
            "people/someone.md": "---\ntitle: Someone\nrole: The **chief** of it\n---\n",
        },
    )
    warnings = sorted(found(root, "C003"), key=lambda d: d.pos.file)
    assert [at(d) for d in warnings] == [
        ("campuses/colossus-1.md", 16, 20),
        ("people/someone.md", 3, 11),
    ]
    assert warnings[0].message == (
        "the wiki link '[[correction:c1-300mw]]' in 'figures.0.note' will print as text: "
        "the site shows this field as written"
    )
    assert "'**' (bold)" in warnings[1].message


def test_a_source_read_is_prose_a_quote_is_the_sources(make_record):
    source = SOURCE.replace(
        "category: press\n", "category: press\nread: The free part ([[correction:c1-300mw]]).\n"
    )
    root = campus_record(make_record, "", extra={"sources/report.md": source})
    assert found(root, "C003") == []


# C004: claims the counts deny.


def test_a_claim_that_every_quote_is_proved_is_held_to_the_count(make_record):
    said = "Every quote of this record is proven against an archived copy."
    root = campus_record(make_record, said)
    (warning,) = found(root, "C004")
    assert warning.message == (
        "says every quote is proved, but the Library proves 0 of the record's 5 quotes"
    )
    assert (warning.pos.line, warning.pos.col) == (6, 1)


@pytest.mark.parametrize(
    "said",
    [
        "Not every quote is proven.",
        "Most quotes are proven against an archived copy.",
        "Every quote the record makes, by what the Library proved of it.",
        "“Every quote is proven” [@report], the report says.",
    ],
)
def test_what_makes_no_such_claim_is_not_c004(make_record, said):
    assert found(campus_record(make_record, said), "C004") == []


# L009: an embed that says nothing computed.


def test_an_embed_of_nothing_computed_is_l008(make_record):
    said = "Colossus 2 runs ![[campus:colossus-2|pwr]]; see ![[term:cluster]]."
    root = campus_record(make_record, said, extra={"terms/grid.md": term("Grid")})
    errors = found(root, "L009")
    assert [(d.pos.line, d.pos.col) for d in errors] == [(6, 17), (6, 49)]
    assert errors[0].message == "![[campus:colossus-2|pwr]]: a campus has no 'pwr' to embed"
    assert errors[0].hint == "did you mean 'power'?"
    assert "nothing of a term is computed" in errors[1].message


def test_an_embed_of_a_computed_value_is_clean_and_an_unknown_id_is_l001(make_record):
    said = "Colossus 2 runs ![[campus:colossus-2|power]] of ![[campus:colossus-3]]."
    errors = [d for d in check(campus_record(make_record, said)).diagnostics.errors]
    assert [d.code for d in errors] == ["L001"]


def test_a_kinded_wiki_link_to_an_id_two_kinds_share_is_not_ambiguous(make_record):
    root = campus_record(
        make_record,
        "See [[campus:colossus-2]] and ![[campus:colossus-2|stage]].",
        extra={"terms/colossus-2.md": term("Second Colossus", body="[[term:colossus-2]]")},
    )
    assert [d.code for d in check(root).diagnostics.errors] == []


# The bundled record.


def test_the_bundled_record_is_clean_of_every_new_rule() -> None:
    done = run("check", str(BUNDLED), "--format", "json", "--no-cache")
    assert done.returncode == 0, done.stdout + done.stderr
    codes = {d["code"] for d in json.loads(done.stdout)["diagnostics"]}
    assert not codes & {"C001", "C002", "C003", "C004", "L009"}, codes


def test_every_text_field_of_every_kind_is_prose_shown_plain_or_not_shown() -> None:
    """A new text field must be sorted into one of the three, or C003 would not see it."""
    import typing

    from pydantic import BaseModel

    from sourcebook.check.markup import NOT_SHOWN, SHOWN_PLAIN
    from sourcebook.model.base import Entity
    from sourcebook.model.kinds import KINDS

    def texts(annotation: object) -> bool:
        return annotation is str or any(texts(a) for a in typing.get_args(annotation))

    def models(annotation: object) -> list[type[BaseModel]]:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            return [annotation]
        return [m for a in typing.get_args(annotation) for m in models(a)]

    unsorted = []
    seen: set[type] = set()
    todo: list[tuple[type[BaseModel], frozenset[str]]] = [
        (kind.model, frozenset(kind.model.PROSE_FIELDS)) for kind in KINDS
    ]
    while todo:
        model, prose = todo.pop()
        if model in seen:
            continue
        seen.add(model)
        shown = SHOWN_PLAIN.get(model.__name__, frozenset())
        if issubclass(model, Entity):
            shown |= SHOWN_PLAIN["Entity"]
        for name, info in model.model_fields.items():
            todo += [(inner, frozenset()) for inner in models(info.annotation)]
            if texts(info.annotation) and name not in shown | NOT_SHOWN | prose | {"body"}:
                unsorted.append(f"{model.__name__}.{name}")
    assert unsorted == []
