"""`sourcebook import hypothesis`: highlights on a source's page become proved quotes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run

from sourcebook.interchange.hypothesis import url_key

PAGE = (
    "Microsoft opened Fairwater Atlanta on Wednesday. The company called it\n"
    "the first of many “Fairwater” sites, linked into one machine by a dedicated\n"
    "network. Each site draws hundreds\nof megawatts.\n"
)

SOURCE = """\
---
title: Microsoft opens Fairwater Atlanta
category: press
urls:
  - https://www.example.com/news/fairwater-atlanta/
annotation: >-
  The opening of the second Fairwater site.
---
Kept by hand.
"""


def row(ident: str, uri: str, exact: str, prefix: str = "", suffix: str = "") -> dict:
    """One annotation as the Hypothesis API's search returns it."""
    return {
        "id": ident,
        "created": "2026-10-12T09:15:02.118000+00:00",
        "updated": "2026-10-12T09:15:02.118000+00:00",
        "user": "acct:reader@hypothes.is",
        "uri": uri,
        "text": "Key line for chapter 1.",
        "tags": ["fairwater", "chapter-1"],
        "group": "__world__",
        "permissions": {"read": ["group:__world__"]},
        "target": [
            {
                "source": uri,
                "selector": [
                    {
                        "type": "RangeSelector",
                        "endOffset": 59,
                        "startOffset": 0,
                        "endContainer": "/main[1]/p[2]",
                        "startContainer": "/main[1]/p[2]",
                    },
                    {"end": 5203, "type": "TextPositionSelector", "start": 5144},
                    {
                        "type": "TextQuoteSelector",
                        "exact": exact,
                        "prefix": prefix,
                        "suffix": suffix,
                    },
                ],
            }
        ],
        "document": {"title": ["Microsoft opens Fairwater Atlanta"]},
        "links": {"html": f"https://hypothes.is/a/{ident}"},
        "flagged": False,
        "hidden": False,
    }


EXPORT = {
    "total": 4,
    "rows": [
        row(
            "kJ3x1Qb2EfC",
            "http://www.example.com/news/fairwater-atlanta?utm_source=newsletter#top",
            "the first of many “Fairwater” sites, linked into one machine",
            prefix="The company called it\n",
            suffix=" by a dedicated",
        ),
        row(
            "pQ7v9Lm0EfD",
            "https://www.example.com/news/fairwater-atlanta/",
            "Each site draws hundreds\nof megawatts.",
            prefix="network. ",
        ),
        row("zZ1a2B3cEfE", "https://elsewhere.example.org/other", "Words nobody holds."),
        {
            "id": "nOtE0000EfF",
            "uri": "https://www.example.com/news/fairwater-atlanta/",
            "text": "A note on the whole page.",
            "target": [{"source": "https://www.example.com/news/fairwater-atlanta/"}],
        },
    ],
}


@pytest.fixture
def record(make_record, tmp_path: Path) -> Path:
    root = make_record({"sources/fairwater-atlanta.md": SOURCE})
    page = tmp_path / "fairwater.txt"
    page.write_text(PAGE, encoding="utf-8")
    added = run("library", "add", str(page), "--record", str(root), "--source", "fairwater-atlanta")
    assert added.returncode == 0, added.stderr
    return root


@pytest.fixture
def export(tmp_path: Path) -> Path:
    path = tmp_path / "hypothesis.json"
    path.write_text(json.dumps(EXPORT, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def test_addresses_compare_without_scheme_slash_fragment_or_utm() -> None:
    assert url_key("http://WWW.example.com/a/?utm_source=x&id=3#frag") == url_key(
        "https://www.example.com/a?id=3"
    )
    assert url_key("https://example.com/a?id=3") != url_key("https://example.com/a?id=4")


def test_highlights_become_quotes_that_check_proves(record: Path, export: Path) -> None:
    result = run("import", "hypothesis", str(export), str(record))
    assert result.returncode == 0, result.stderr
    assert "added 2 quotes to sources/fairwater-atlanta.md" in result.stdout
    assert "no source holds https://elsewhere.example.org/other: 1 highlight" in result.stdout
    assert "2 quotes added, 0 already imported, 1 on addresses no source holds, 1 page notes" in (
        result.stdout
    )
    text = (record / "sources" / "fairwater-atlanta.md").read_text("utf-8")
    assert text.startswith(SOURCE.split("annotation:")[0])
    assert (
        "annotation: >-\n"
        "  The opening of the second Fairwater site.\n"
        "  “the first of many “Fairwater” sites, linked into one machine”\n"
        "  “Each site draws hundreds of megawatts.”\n"
    ) in text
    assert '    prefix: "The company called it\\n"\n' in text
    assert "    hypothesis: kJ3x1Qb2EfC\n" in text
    assert text.endswith("---\nKept by hand.\n")
    listed = run("check", str(record), "--quotes", "--list", "--format", "json")
    assert listed.returncode == 0, listed.stdout
    verdicts = {q["quote"]: q["verdict"] for q in json.loads(listed.stdout)["quote_list"]}
    assert verdicts == {
        "the first of many “Fairwater” sites, linked into one machine": "exact",
        "Each site draws hundreds of megawatts.": "proved after normalization",
    }


def test_a_reimport_adds_nothing_twice(record: Path, export: Path) -> None:
    run("import", "hypothesis", str(export), str(record))
    first = (record / "sources" / "fairwater-atlanta.md").read_text("utf-8")
    again = run("import", "hypothesis", str(export), str(record))
    assert "0 quotes added, 2 already imported" in again.stdout
    assert (record / "sources" / "fairwater-atlanta.md").read_text("utf-8") == first


def test_dry_run_writes_nothing(record: Path, export: Path) -> None:
    before = (record / "sources" / "fairwater-atlanta.md").read_text("utf-8")
    result = run("import", "hypothesis", str(export), str(record), "--dry-run")
    assert "would add 2 quotes to sources/fairwater-atlanta.md" in result.stdout
    assert (record / "sources" / "fairwater-atlanta.md").read_text("utf-8") == before


def test_a_highlight_not_in_the_copy_fails_check(record: Path, tmp_path: Path) -> None:
    changed = dict(EXPORT)
    changed["rows"] = [
        row("aaaa", "https://www.example.com/news/fairwater-atlanta", "the last of many sites")
    ]
    path = tmp_path / "changed.json"
    path.write_text(json.dumps(changed), encoding="utf-8")
    run("import", "hypothesis", str(path), str(record))
    assert "Q001" in run("check", str(record)).stdout


def test_a_file_that_is_not_an_export_is_one_line(record: Path, tmp_path: Path) -> None:
    path = tmp_path / "not.json"
    path.write_text('{"total": 3}', encoding="utf-8")
    result = run("import", "hypothesis", str(path), str(record))
    assert result.returncode == 2
    assert (
        result.stderr
        == f"error: {path}: not a Hypothesis export: no list of annotations ('rows' or "
        "'annotations')\n"
    )


def client_export(rows: list[dict]) -> dict:
    """What the Hypothesis client's Export button writes: its rows under 'annotations'."""
    return {
        "export_date": "2026-10-12T09:20:44.112Z",
        "export_userid": "acct:reader@hypothes.is",
        "client_version": "1.1571.0",
        "annotations": rows,
    }


EDGES = [
    ("The company called it\n", " by a dedicated"),
    ("  two spaces before, a tab after\t", "\u00a0no-break space first"),
    ("", "\n\nnew lines  "),
]


def test_the_clients_export_is_taken_and_edges_kept_byte_for_byte(
    record: Path, tmp_path: Path
) -> None:
    words = ["Microsoft opened Fairwater Atlanta", "linked into one machine", "megawatts"]
    rows = [
        row(f"edge{i}", "https://www.example.com/news/fairwater-atlanta/", said, pre, post)
        for i, (said, (pre, post)) in enumerate(zip(words, EDGES, strict=True))
    ]
    path = tmp_path / "hypothesis-export.json"
    path.write_text(json.dumps(client_export(rows), indent=2), encoding="utf-8")
    result = run("import", "hypothesis", str(path), str(record))
    assert result.returncode == 0, result.stderr
    assert "3 quotes added, 0 already imported" in result.stdout
    from sourcebook.pipeline import check

    (source,) = check(record).record.of("source")
    kept = [(h.prefix, h.suffix) for h in source.highlights]
    assert kept == EDGES
    assert run("check", str(record)).returncode == 0
