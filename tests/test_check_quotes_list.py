"""`check --quotes --list`: each quote's verdict, the rules it needed, its nearest passage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run

COPY = (
    "Key points:\n"
    "- The campus will draw 1.2 gigawatts\n"
    "- It was built in 122 days\n"
    "The company said it “expects to\nfinish” the ﬁrst hall in 2026.\n"
)
OTHER = "A wholly different story about batteries and turbines.\n"

SOURCE = """\
---
title: {title}
category: press
annotation: >-
  {annotation}
---
"""


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("listed") / "record"
    quotes = {
        "campus": (
            "The campus: “The campus will draw 1.2 gigawatts”; it says it "
            '"expects to finish" as “expects to finish” the “first hall”; '
            "“It was built in 212 days”; “batteries and turbines”."
        ),
        "other": "Another.",
        "bare": "“never held anywhere”",
    }
    for name, annotation in quotes.items():
        path = root / "sources" / f"{name}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SOURCE.format(title=name, annotation=annotation), encoding="utf-8")
    (root / "sourcebook.toml").write_text(
        '[book]\ntitle = "B"\nhouse = "H"\ncloses = 2026-11-08\n', encoding="utf-8"
    )
    for name, text in (("campus", COPY), ("other", OTHER)):
        copy = root.parent / f"{name}.txt"
        copy.write_text(text, encoding="utf-8")
        added = run("library", "add", str(copy), "--record", str(root), "--source", name)
        assert added.returncode == 0, added.stderr
    return root


def listed(record: Path) -> dict[str, dict]:
    result = run("check", str(record), "--quotes", "--list", "--format", "json")
    return {q["quote"]: q for q in json.loads(result.stdout)["quote_list"]}


def test_each_verdict_in_json(record: Path) -> None:
    quotes = listed(record)
    assert quotes["The campus will draw 1.2 gigawatts"]["verdict"] == "exact"
    assert quotes["The campus will draw 1.2 gigawatts"]["shelf"] == "S1"
    assert quotes["It was built in 212 days"]["verdict"] == "not found"
    assert quotes["batteries and turbines"]["verdict"] == "found only in another source"
    assert quotes["batteries and turbines"]["elsewhere"] == [{"shelf": "S2", "held_for": ["other"]}]
    assert quotes["never held anywhere"]["verdict"] == "no copy"


def test_a_normalized_quote_names_the_rules_it_needed(record: Path) -> None:
    quotes = listed(record)
    spaced = quotes["expects to finish"]
    assert spaced["verdict"] == "proved after normalization"
    assert [r["rule"] for r in spaced["rules"]] == [6]
    ligature = quotes["first hall"]
    assert [r["rule"] for r in ligature["rules"]] == [1]
    assert ligature["rules"][0]["what"] == "Unicode NFKC"


def test_the_nearest_passage_reads_as_the_copy_does(record: Path) -> None:
    near = listed(record)["It was built in 212 days"]["nearest"]
    assert near["shelf"] == "S1"
    assert "{212 → 122}" in near["passage"]
    assert "-It" not in near["passage"] and "-The" not in near["passage"]
    assert near["differences"] == ["a changed figure: “212” where the copy has “122”"]


def test_the_list_in_text(record: Path) -> None:
    result = run("check", str(record), "--quotes", "--list")
    out = result.stdout
    assert result.returncode == 1
    assert "campus.md:5:16: campus: exact in S1: “The campus will draw 1.2 gigawatts”" in out
    assert "campus: proved after normalization in S1: “first hall”" in out
    assert "rules needed: 1. Unicode NFKC" in out
    assert "campus: not found: “It was built in 212 days”" in out
    assert "nearest, in S1, as the copy reads:" in out
    assert "found in S2, held for other" in out
    assert "bare: no copy: “never held anywhere”" in out
