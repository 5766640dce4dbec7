"""A quote that holds a quote is proved whole; marks that do not balance are reported."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run

from sourcebook.library.report import Status
from sourcebook.link.prose import quote_spans, quotes
from sourcebook.pipeline import check

COPY = (
    "Microsoft said Atlanta is the first of many “Fairwater” sites, linked into one "
    "machine by a dedicated network.\n"
)


def source(annotation: str) -> str:
    return f"---\ntitle: Fairwater Atlanta\ncategory: press\nannotation: >-\n  {annotation}\n---\n"


@pytest.fixture
def held(make_record, tmp_path: Path):
    def make(annotation: str) -> Path:
        root = make_record({"sources/fairwater.md": source(annotation)})
        copy = tmp_path / "copy.txt"
        copy.write_text(COPY, encoding="utf-8")
        added = run("library", "add", str(copy), "--record", str(root), "--source", "fairwater")
        assert added.returncode == 0, added.stderr
        return root

    return make


def test_a_quote_holding_a_quote_is_one_quote() -> None:
    (quote,) = quotes("It is “the first of many “Fairwater” sites” [@fw].")
    assert quote.text == "the first of many “Fairwater” sites"
    assert quote.cited == "fw"


@pytest.mark.parametrize(
    ("text", "inner"),
    [
        ("“a” and “b”", ["a", "b"]),
        ("“one “two “three” two” one”", ["one “two “three” two” one"]),
        ("“x [“so-called”]{.scare} y”", ["x “so-called” y"]),
    ],
)
def test_balanced_marks(text: str, inner: list[str]) -> None:
    assert [q.text for q in quotes(text)] == inner
    assert quote_spans(text).unbalanced == []


@pytest.mark.parametrize(
    ("text", "at", "inner"),
    [
        ("an “opening never closed and “inner” words", [3], ["inner"]),
        ("a stray” mark, then “words”", [7], ["words"]),
    ],
)
def test_unbalanced_marks_are_reported_and_pairs_taken_innermost(
    text: str, at: list[int], inner: list[str]
) -> None:
    assert quote_spans(text).unbalanced == at
    assert [q.text for q in quotes(text)] == inner


def test_the_whole_nested_quote_is_proved(held) -> None:
    root = held("Says Atlanta is “the first of many “Fairwater” sites, linked into one machine”.")
    result = check(root)
    (proof,) = result.proofs.proofs
    assert proof.status is Status.VERIFIED
    assert proof.claim.text == "the first of many “Fairwater” sites, linked into one machine"
    assert [d.code for d in result.diagnostics] == []


def test_a_tampered_word_inside_the_outer_quote_fails_the_whole_quote(held) -> None:
    root = held("Says Atlanta is “the last of many “Fairwater” sites”.")
    result = check(root)
    (proof,) = result.proofs.proofs
    assert proof.status is Status.NOT_FOUND
    assert [d.code for d in result.diagnostics] == ["Q001"]


def test_a_tampered_outer_word_is_not_hidden_by_a_proved_inner_quote(held) -> None:
    root = held("Says “the first of many “Fairwater” campuses”.")
    (proof,) = check(root).proofs.proofs
    assert proof.status is Status.NOT_FOUND


def test_an_unbalanced_mark_is_a_warning_at_its_line_and_column(held) -> None:
    root = held("Says “the first of many “Fairwater” sites.")
    result = run("check", str(root))
    assert "sources/fairwater.md:5:8: warning Q009" in result.stdout, result.stdout
    assert "Q001" not in result.stdout
