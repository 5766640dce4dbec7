"""Adding originals to the Library: shelves, deduplication, metadata, sources, the CLI."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import BUNDLED

from sourcebook.cli import main
from sourcebook.diagnostics import Diagnostics
from sourcebook.library.intake import Details, take_in
from sourcebook.library.refusal import Refused
from sourcebook.model.library import ItemKind
from sourcebook.read.library import read_library

SOURCE = """\
---
title: A page
category: press
---
"""

CAPTURE = """\
url: https://example.com/story
title: A Story
publisher: Example
date: 2025-11-19
retrieved-from: public web page text

The first line of the story.
The second line, with \u201cquotes\u201d.
"""


@pytest.fixture
def record(make_record) -> Path:
    return make_record({"sources/a-page.md": SOURCE, "sources/other.md": SOURCE})


def add(root: Path, path: Path, source: str | None = None, **details):
    return take_in(root, str(path), Details(**details), source)


def test_a_file_is_held_by_content_with_its_text_and_metadata(record, tmp_path) -> None:
    page = tmp_path / "page.txt"
    page.write_text("Plain words of a source.\n", encoding="utf-8")
    intake = add(record, page, captured="2026-10-12", by="A. Curator", holds="the whole page")
    item = intake.item
    assert (intake.new, item.shelf, item.kind) == (True, "S1", ItemKind.TEXT)
    library = record / "library"
    assert (library / "objects" / item.sha256[:2] / item.sha256).read_bytes() == page.read_bytes()
    assert (library / "S1.txt").read_text(encoding="utf-8") == "Plain words of a source.\n"
    meta = yaml.safe_load((library / "S1.yaml").read_text(encoding="utf-8"))
    assert meta["captured"] == "2026-10-12"
    assert meta["by"] == "A. Curator"
    assert meta["holds"] == "the whole page"
    assert meta["size"] == page.stat().st_size


def test_the_same_bytes_give_the_same_item(record, tmp_path) -> None:
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_bytes(b"same bytes")
    second.write_bytes(b"same bytes")
    one = add(record, first)
    two = add(record, second)
    assert (one.item.shelf, two.item.shelf, two.new) == ("S1", "S1", False)
    assert len(list((record / "library" / "objects").rglob("*"))) == 2  # one folder, one file


def test_shelves_count_up(record, tmp_path) -> None:
    shelves = []
    for n in range(3):
        path = tmp_path / f"{n}.txt"
        path.write_text(f"text {n}", encoding="utf-8")
        shelves.append(add(record, path).item.shelf)
    assert shelves == ["S1", "S2", "S3"]


def test_source_names_its_item(record, tmp_path) -> None:
    page = tmp_path / "page.txt"
    page.write_text("words", encoding="utf-8")
    assert add(record, page, source="a-page").attached
    assert not add(record, page, source="a-page").attached
    text = (record / "sources" / "a-page.md").read_text(encoding="utf-8")
    assert "library: [S1]" in text
    assert text.endswith("---\n")


def test_unknown_source_is_refused_before_anything_is_added(record, tmp_path) -> None:
    page = tmp_path / "page.txt"
    page.write_text("words", encoding="utf-8")
    with pytest.raises(Refused, match="no source 'nope'"):
        add(record, page, source="nope")
    assert not (record / "library").exists()


def test_capture_file_holds_its_bytes_and_the_text_after_its_header(record, tmp_path) -> None:
    capture = tmp_path / "story.txt"
    capture.write_text(CAPTURE, encoding="utf-8")
    item = add(record, capture, capture_file=True, captured="2026-11-08").item
    assert item.url == "https://example.com/story"
    assert item.published == "2025-11-19"
    assert item.title == "A Story"
    text = (record / "library" / "S1.txt").read_text(encoding="utf-8")
    assert text.startswith("The first line") and "url:" not in text
    assert (record / "library" / "objects" / item.sha256[:2] / item.sha256).read_text(
        encoding="utf-8"
    ) == CAPTURE


def test_capture_file_without_header_is_refused(record, tmp_path) -> None:
    capture = tmp_path / "story.txt"
    capture.write_text("No header here.\n\nJust text.\n", encoding="utf-8")
    with pytest.raises(Refused, match="no capture header"):
        add(record, capture, capture_file=True)


def test_image_is_read_as_an_image_from_its_transcription(record, tmp_path) -> None:
    chart = tmp_path / "chart.png"
    chart.write_bytes(b"\x89PNG\r\n\x1a\nnot really an image")
    transcription = tmp_path / "chart.txt"
    transcription.write_text("Datacenters Have Booked About 75 GW of Onsite Generation\n")
    item = add(record, chart, transcription=transcription).item
    assert item.kind is ItemKind.IMAGE and item.read_as_image
    assert item.media_type == "image/png"
    assert "75 GW" in (record / "library" / "S1.txt").read_text(encoding="utf-8")


def _add_in_process(args: tuple[str, str]) -> str:
    root, path = args
    return take_in(Path(root), path, Details(), None).item.shelf


def test_two_processes_adding_at_once_take_different_shelves(record, tmp_path) -> None:
    paths = []
    for n in range(6):
        path = tmp_path / f"{n}.txt"
        path.write_text(f"text number {n}", encoding="utf-8")
        paths.append((str(record), str(path)))
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        shelves = pool.map(_add_in_process, paths)
    assert sorted(shelves, key=lambda s: int(s[1:])) == [f"S{n}" for n in range(1, 7)]
    library = read_library(record, "record", Diagnostics())
    assert len(library) == 6


def test_cli_add_and_list(record, tmp_path) -> None:
    page = tmp_path / "page.html"
    page.write_text("<html><title>T</title><body><p>Hello there.</p></body></html>")
    runner = CliRunner()
    result = runner.invoke(
        main,
        [
            "library",
            "add",
            str(page),
            "-r",
            str(record),
            "--source",
            "a-page",
            "--url",
            "https://example.com/p",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "S1 added: html, page.html" in result.output
    assert "named in the library of source 'a-page'" in result.output
    again = runner.invoke(main, ["library", "add", str(page), "-r", str(record)])
    assert "S1 already held" in again.output
    listed = runner.invoke(main, ["library", "list", "-r", str(record)])
    assert "S1\thtml\t" in listed.output and "https://example.com/p" in listed.output
    data = json.loads(
        runner.invoke(main, ["library", "list", "-r", str(record), "--format", "json"]).output
    )
    assert data[0]["shelf"] == "S1" and data[0]["title"] == "T"


def test_cli_add_of_a_missing_file_fails_with_one_line(record) -> None:
    result = CliRunner().invoke(main, ["library", "add", "nope.txt", "-r", str(record)])
    assert result.exit_code == 2
    assert "nope.txt: no such file" in result.output


def test_bundled_library_holds_every_capture() -> None:
    library = read_library(BUNDLED, "compute-race", Diagnostics())
    assert len(library) == 23
    for item in library:
        assert item.captured == "2026-11-08"
        assert "stored public copy" in item.how
        assert item.url and item.url.startswith("https://")
