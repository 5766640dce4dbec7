"""check's quote rule: each diagnostic code, the --quotes table, locators and the cache."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import codes

from sourcebook.cli import main
from sourcebook.diagnostics import Diagnostics
from sourcebook.incremental import Store
from sourcebook.library.cache import TextCache
from sourcebook.library.intake import Details, take_in
from sourcebook.library.report import Status
from sourcebook.pipeline import check
from sourcebook.read.record import read_record

STORY = "The hardware forms a substantial chunk of the overall computing capacity it uses.\n"
OTHER = "Multiple people close to Moonshot said the agreement is specifically for H200 chips.\n"


TERM = "---\ntitle: Capacity\ndefinition: d\nchapters: [chapter-1]\n---\n"


def source(annotation: str = "", extra: str = "") -> str:
    return f"---\ntitle: A source\ncategory: press\n{extra}annotation: >-\n  {annotation}\n---\n"


@pytest.fixture
def held(make_record, tmp_path):
    """A record with two sources, each holding one text copy, and a third with none."""

    def make(files: dict[str, str], **sources: str) -> Path:
        root = make_record(files)
        for name, (text, source_id) in {
            "a.txt": (STORY, "story"),
            "b.txt": (OTHER, "other"),
        }.items():
            if source_id in sources or (root / "sources" / f"{source_id}.md").exists():
                path = tmp_path / name
                path.write_text(text, encoding="utf-8")
                take_in(root, str(path), Details(captured="2026-10-12"), source_id)
        return root

    return make


def test_quote_in_a_sources_annotation_verifies(held) -> None:
    root = held({"sources/story.md": source("It says “forms a substantial chunk”.")})
    result = check(root)
    assert codes(result) == []
    (proof,) = result.proofs.proofs
    assert proof.status is Status.VERIFIED and proof.found.shelf == "S1"
    assert proof.locator is None


def test_quote_followed_by_a_citation_anywhere_is_checked_against_that_source(held) -> None:
    body = (
        "As reported, “the overall computing capacity it uses” [@story]; and “made up” [@story].\n"
    )
    root = held(
        {
            "sources/story.md": source("A story."),
            "terms/capacity.md": TERM + body,
        }
    )
    result = check(root)
    statuses = [p.status for p in result.proofs.proofs]
    assert statuses == [Status.VERIFIED, Status.NOT_FOUND]
    assert "Q001" in codes(result)


def test_not_found_names_quote_copies_and_nearest_passage(held) -> None:
    root = held({"sources/story.md": source("“forms a large chunk of the overall capacity”")})
    (error,) = [d for d in check(root).diagnostics if d.code == "Q001"]
    assert error.severity.value == "error"
    assert "quote not found in copy S1 of 'story'" in error.message
    assert "“forms a large chunk of the overall capacity”" in error.message
    assert "{large → substantial}" in error.hint
    assert "a missing word: the copy has “computing” here" in error.hint
    assert error.pos.line == 5


def test_quote_found_only_in_another_sources_copy_says_which(held) -> None:
    root = held(
        {
            "sources/story.md": source("“specifically for H200 chips”"),
            "sources/other.md": source("Another."),
        }
    )
    (error,) = [d for d in check(root).diagnostics if d.code == "Q002"]
    assert "not found in copy S1 of 'story' but in S2 (held for other)" in error.message


def test_quote_of_a_source_without_a_copy_is_unverifiable(make_record) -> None:
    root = make_record({"sources/story.md": source("“anything at all”")})
    result = check(root)
    assert codes(result) == ["Q003"]
    assert result.diagnostics.warnings[0].hint.endswith("--source story")
    assert result.proofs.total().unverifiable == 1


def test_unknown_shelf_and_unheld_item(held, tmp_path) -> None:
    root = held({"sources/story.md": source("Words.", extra="library: [S1, S9]\n")})
    loose = tmp_path / "loose.txt"
    loose.write_text("held for nobody", encoding="utf-8")
    take_in(root, str(loose), Details(), None)
    result = check(root)
    assert sorted(codes(result)) == ["Q004", "Q007"]
    q004 = next(d for d in result.diagnostics if d.code == "Q004")
    assert q004.pos.file.endswith("sources/story.md") and "names S9" in q004.message


def test_broken_library_items_are_reported(held) -> None:
    root = held({"sources/story.md": source("Words.")})
    library = root / "library"
    (library / "S1.txt").unlink()
    (library / "S2.yaml").write_text("kind: scroll\n", encoding="utf-8")
    (library / "notes.yaml").write_text("a: b\n", encoding="utf-8")
    found = codes(check(root))
    assert found.count("Q005") >= 2 and "Q006" in found


def test_changed_original_is_reported(held) -> None:
    root = held({"sources/story.md": source("Words.")})
    (original,) = [p for p in (root / "library" / "objects").rglob("*") if p.is_file()]
    original.write_bytes(b"shorter")
    assert "Q006" in codes(check(root))


def test_source_dated_after_its_capture(held) -> None:
    root = held({"sources/story.md": source("Words.", extra="date: 2026-10-20\n")})
    result = check(root)
    assert codes(result) == ["D002"]
    assert "after its copy S1 was captured (2026-10-12)" in result.diagnostics.errors[0].message


def test_marked_spans_are_not_verified_but_counted(held) -> None:
    root = held(
        {
            "sources/story.md": source(
                "So-called [“chunk”]{.scare}, from [“Another Work”]{.title}; "
                "“forms a substantial chunk”."
            )
        }
    )
    result = check(root)
    report = result.proofs
    assert codes(result) == []
    assert report.total().quotes == 1 and report.total().marked == 2
    assert report.marks() == {"scare": 1, "title": 1}


def test_figure_quotes_are_verified(held) -> None:
    campus = """\
    ---
    title: Colossus
    location: Memphis
    country: US
    status: operating
    figures:
      - metric: chips
        value: 200000
        unit: chips
        status: operating
        as_of: 2025-06
        grade: reported
        source: story
        quote: the overall computing capacity it used
    ---
    """
    root = held({"sources/story.md": source("A story."), "campuses/colossus.md": campus})
    result = check(root)
    (error,) = [d for d in result.diagnostics if d.code == "Q001"]
    assert error.pos.file.endswith("campuses/colossus.md")


def test_pdf_quote_knows_its_page_and_a_wrong_page_is_flagged(make_record, tmp_path) -> None:
    from corpus.library.minipdf import build_pdf

    root = make_record(
        {
            "sources/essay.md": source("“AGI by 2027 is strikingly plausible”"),
            "terms/agi.md": "---\ntitle: AGI\ndefinition: d\nchapters: [chapter-1]\n---\n"
            "“north of $1T annually” [@essay, p. 1]\n",
        }
    )
    pdf = tmp_path / "essay.pdf"
    pdf.write_bytes(
        build_pdf([["AGI by 2027 is strikingly plausible."], ["north of $1T annually"]])
    )
    take_in(root, str(pdf), Details(captured="2026-10-12"), "essay")
    result = check(root)
    assert [p.locator for p in result.proofs.proofs] == ["p. 2", "p. 1"]
    (warning,) = [d for d in result.diagnostics if d.code == "Q008"]
    assert "cited at p. 1 stands on p. 2 of S1" in warning.message


def test_image_quote_is_read_as_an_image(make_record, tmp_path) -> None:
    root = make_record({"sources/chart.md": source("titled “About 75 GW of Onsite Generation”")})
    image, transcription = tmp_path / "chart.png", tmp_path / "chart.txt"
    image.write_bytes(b"\x89PNG\r\n\x1a\n")
    transcription.write_text("Datacenters Have Booked About 75 GW of Onsite Generation")
    take_in(root, str(image), Details(transcription=transcription, captured="2026-10-12"), "chart")
    (proof,) = check(root).proofs.proofs
    assert proof.verified and proof.locator == "read as an image"


def test_second_check_reads_normalized_texts_from_the_cache(held) -> None:
    root = held({"sources/story.md": source("“forms a substantial chunk”")})
    check(root)
    assert (root / ".sourcebook-cache" / "library").is_dir()
    cache = TextCache.for_record(root)
    text = root / "library" / "S1.txt"
    cache.load(str(text), hashlib.sha256(text.read_bytes()).hexdigest())
    cache.close()
    assert (cache.hits, cache.misses) == (1, 0)


def test_each_text_is_hashed_once_while_its_stat_is_the_same(held, monkeypatch) -> None:
    """An item's text is known by its SHA-256, taken where the Library is read and kept by
    the file's stat (`Library.texts`): check proves quotes against the text it names, and
    the copy's page shows it, without reading the file again."""
    root = held({"sources/story.md": source("“forms a substantial chunk”")})
    monkeypatch.setattr("sourcebook.read.library.settled_since", lambda: time.time_ns() + 10**12)
    hashed: list[str] = []
    digest = hashlib.file_digest

    def counted(file, name):  # type: ignore[no-untyped-def]
        hashed.append(os.path.basename(file.name))
        return digest(file, name)

    monkeypatch.setattr(hashlib, "file_digest", counted)
    assert codes(check(root)) == []
    assert hashed == ["S1.txt"]
    assert codes(check(root)) == []
    assert hashed == ["S1.txt"]
    text = root / "library" / "S1.txt"
    text.write_text(STORY.replace("substantial", "large"), encoding="utf-8")
    assert "Q001" in codes(check(root))
    assert hashed == ["S1.txt", "S1.txt"]
    library = read_record(root, Diagnostics()).library  # type: ignore[union-attr]
    assert library.text_digest("S1") == hashlib.sha256(text.read_bytes()).hexdigest()
    assert library.text_digest("S9") is None


def test_a_kept_entry_that_is_not_what_the_library_keeps_is_ignored(held, monkeypatch) -> None:
    """The Library's parsed cache keeps each file's stat and what was made of it; an entry
    cut short, or of another shape, is read again from its file, not trusted."""
    root = held({"sources/story.md": source("“forms a substantial chunk”")})
    monkeypatch.setattr("sourcebook.read.library.settled_since", lambda: time.time_ns() + 10**12)
    assert codes(check(root)) == []
    folder = Store.of(root).folder("library")
    assert folder is not None
    kept = folder / "items-v3.json"
    data = json.loads(kept.read_text())
    assert {"S1.yaml", "S1.txt"} <= set(data)
    shapes = iter([lambda e: e[:4], lambda e: {"stat": e[:4]}, lambda e: "S1", lambda e: e[:3]])
    kept.write_text(json.dumps({name: next(shapes)(entry) for name, entry in data.items()}))
    assert codes(check(root)) == []
    (proof,) = check(root).proofs.proofs  # type: ignore[union-attr]
    assert proof.verified


def test_a_second_check_proves_from_the_cache(held, monkeypatch) -> None:
    root = held({"sources/story.md": source("“forms a substantial chunk”")})
    check(root)
    monkeypatch.setattr("sourcebook.library.verify.locate", lambda *_: None)
    assert codes(check(root)) == []


def test_a_changed_text_is_normalized_again(held) -> None:
    root = held({"sources/story.md": source("“forms a substantial chunk”")})
    check(root)
    text = root / "library" / "S1.txt"
    text.write_text(STORY.replace("substantial", "large"), encoding="utf-8")
    assert "Q001" in codes(check(root))


def restored_times(path: Path, before: os.stat_result) -> None:
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_a_text_rewritten_in_the_same_tick_is_proved_again(held) -> None:
    """A file's size, time and inode may stay the same through a second write in one tick
    of the file system's clock: one changed just before a check is not known by them."""
    root = held({"sources/story.md": source("“forms a substantial chunk”")})
    text = root / "library" / "S1.txt"
    before = text.stat()
    assert not codes(check(root))
    text.write_text(STORY.replace("substantial", "significant"), encoding="utf-8")  # same size
    restored_times(text, before)
    assert text.stat().st_size == before.st_size and text.stat().st_ino == before.st_ino
    assert "Q001" in codes(check(root))


def test_an_item_rewritten_in_the_same_tick_is_read_again(held) -> None:
    root = held({"sources/story.md": source("Words.", extra="date: 2026-10-11\n")})
    item = root / "library" / "S1.yaml"
    before = item.stat()
    assert not codes(check(root))
    item.write_text(item.read_text().replace("2026-10-12", "2026-10-10"), encoding="utf-8")
    restored_times(item, before)
    assert codes(check(root)) == ["D002"]  # the copy now taken before the source's date


def test_check_quotes_prints_a_table(held) -> None:
    root = held(
        {
            "sources/story.md": source("“forms a substantial chunk”; “not in it”"),
            "sources/none.md": source("“nothing held” and a [“title”]{.title}"),
        }
    )
    result = CliRunner().invoke(main, ["check", str(root), "--quotes"], terminal_width=120)
    assert result.exit_code == 1
    assert "Quotes against the Library" in result.output
    rows = {line.split("│")[1].strip(): line for line in result.output.splitlines() if "│" in line}
    assert [c.strip() for c in rows["story"].split("│")[2:7]] == ["2", "1", "1", "0", "0"]
    assert [c.strip() for c in rows["none"].split("│")[2:7]] == ["1", "0", "0", "1", "1"]
    assert [c.strip() for c in rows["total"].split("│")[2:7]] == ["3", "1", "1", "1", "1"]
    assert "marked as not quotes: 1 title" in result.output


def test_check_quotes_json(held) -> None:
    root = held({"sources/story.md": source("“forms a substantial chunk”")})
    result = CliRunner().invoke(main, ["check", str(root), "--quotes", "--format", "json"])
    data = json.loads(result.output)
    assert data["quotes"][-1] == {
        "source": "total",
        "quotes": 1,
        "verified": 1,
        "not found": 0,
        "unverifiable": 0,
        "marked": 0,
    }


def test_a_record_without_a_library_writes_no_library(make_record) -> None:
    root = make_record({"sources/story.md": source("“anything at all”")})
    check(root)
    assert not (root / ".sourcebook-cache" / "library").exists()
    assert not (root / "library").exists()


def test_a_cache_that_arrives_with_the_record_is_not_trusted(held, tmp_path) -> None:
    """A state folder committed with a record could hold a normalized text that carries a
    quote its copy does not: a clone or copy of the record starts from an empty cache."""
    import shutil
    import sqlite3

    root = held({"sources/story.md": source("It says “an invented sentence”.")})
    assert "Q001" in codes(check(root))
    kept = root / ".sourcebook-cache" / "library"
    with sqlite3.connect(next(kept.glob("texts-*.sqlite"))) as db:
        db.execute("UPDATE texts SET text = text || ' an invented sentence'")
    db.close()
    with sqlite3.connect(next(kept.glob("index-*.sqlite"))) as db:
        db.execute("DELETE FROM proofs")
    db.close()
    clone = tmp_path / "clone"
    shutil.copytree(root, clone)
    assert "Q001" in codes(check(clone))
    with sqlite3.connect(
        next((clone / ".sourcebook-cache" / "library").glob("texts-*.sqlite"))
    ) as db:
        assert not db.execute("SELECT 1 FROM texts WHERE text LIKE '%invented%'").fetchall()
    db.close()


def test_a_state_folder_that_is_a_link_keeps_nothing(held, tmp_path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = held({"sources/story.md": source("It says “forms a substantial chunk”.")})
    import shutil

    shutil.rmtree(root / ".sourcebook-cache")
    (root / ".sourcebook-cache").symlink_to(outside)
    assert codes(check(root)) == []
    assert list(outside.iterdir()) == []


def _verified(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The claims of each proof made from now on (not given again)."""
    from sourcebook.library import verify

    made: list[int] = []
    prove = verify._verified

    def counted(record, graph, claims, cache):  # type: ignore[no-untyped-def]
        made.append(len(claims))
        return prove(record, graph, claims, cache)

    monkeypatch.setattr(verify, "_verified", counted)
    return made


def test_serve_proves_the_quotes_again_only_where_what_they_rest_on_changed(
    held, monkeypatch
) -> None:
    """A save that leaves every claim, the Library and each source's copies as they were is
    given the last report, and what it reported; a quote edited, a text changed or a copy
    named by another source is proved again. Each time, what check says is what a check
    that keeps nothing says."""
    from sourcebook.incremental import Memos

    root = held(
        {"sources/story.md": source("“forms a substantial chunk”"), "terms/capacity.md": TERM}
    )
    monkeypatch.setattr("sourcebook.read.library.settled_since", lambda: time.time_ns() + 10**12)
    kept = Memos.in_memory(serving=True)
    first = check(root, kept=kept)
    made = _verified(monkeypatch)

    def again() -> list[str]:
        checked = check(root, kept=kept)
        fresh = check(root)
        assert checked.diagnostics.items == fresh.diagnostics.items
        assert checked.proofs is not None and fresh.proofs is not None
        assert checked.proofs.proofs == fresh.proofs.proofs
        return [code for code in codes(checked) if code.startswith("Q")]

    term = root / "terms" / "capacity.md"
    term.write_text(TERM + "Capacity is what a campus can run.\n", encoding="utf-8")
    assert again() == [] and made == [1]  # the fresh check's own: serve's was given again
    assert check(root, kept=kept).proofs is first.proofs
    story = root / "sources" / "story.md"
    said = story.read_text(encoding="utf-8")
    story.write_text(said.replace("substantial", "large"), encoding="utf-8")
    assert "Q001" in again() and made == [1, 1, 1]
    story.write_text(said, encoding="utf-8")
    (root / "library" / "S1.txt").write_text(STORY.replace("substantial", "big"), "utf-8")
    assert "Q001" in again() and len(made) == 5
    (root / "library" / "S1.txt").write_text(STORY, "utf-8")
    assert again() == [] and len(made) == 7
    assert again() == [] and len(made) == 8  # nothing changed: the fresh check's alone
    assert "library: [S1]" in said
    story.write_text(said.replace("library: [S1]", "library: [S1, S1]"), encoding="utf-8")
    again()
    assert len(made) == 10  # the source's copies named anew: proved again
