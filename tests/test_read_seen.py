"""`serve` gives each file's last read again while the file's stat is what it was, and
trusts that stat only for a file that had not changed for a while before it was read."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from test_kept_reads import FILES, SETTLED_NS, read_as, seeded

from sourcebook.incremental import MARGIN_NS, FilesSeen, Memos, stat_of
from sourcebook.link.names import NameMatcher, may_find

GPU = "---\ntitle: GPU\ndefinition: A chip.\n---\nBeside the Cluster.\n"


def serving() -> tuple[Memos, FilesSeen]:
    kept = Memos.in_memory(serving=True)
    assert kept.files is not None
    kept.files.margin_ns = SETTLED_NS
    return kept, kept.files


def settled() -> None:
    time.sleep(2 * SETTLED_NS / 1e9)


def test_an_unchanged_file_is_given_again_and_an_edited_one_read(tmp_path: Path) -> None:
    root = tmp_path / "record"
    seeded(root)
    settled()
    kept, seen = serving()
    first = read_as(root, kept)
    assert seen.hits == 0
    assert read_as(root, kept) == first
    assert seen.hits == FILES
    (root / "terms" / "gpu.md").write_text(GPU, encoding="utf-8")
    edited = read_as(root, kept)
    assert seen.hits == 2 * FILES - 1  # all but the edited file
    assert edited == read_as(root, Memos.in_memory())  # as read afresh


def test_what_is_given_again_keeps_its_parsed_front_matter_for_the_next_run(
    tmp_path: Path,
) -> None:
    root = tmp_path / "record"
    seeded(root)
    settled()
    kept, seen = serving()
    read_as(root, kept)
    read_as(root, kept)
    assert len(kept.parsed) == FILES  # nothing let go, though none of it was parsed again


def test_a_file_read_just_after_it_changed_is_read_again_next_time(tmp_path: Path) -> None:
    """Its stat could stay the same through another write in the same clock tick."""
    root = tmp_path / "record"
    seeded(root)
    settled()
    kept, seen = serving()
    (root / "terms" / "gpu.md").write_text(GPU, encoding="utf-8")
    read_as(root, kept)  # at once: the edited file is not trusted
    read_as(root, kept)
    assert seen.hits == FILES - 1


def test_a_file_replaced_by_another_of_the_same_size_and_time_is_read(tmp_path: Path) -> None:
    root = tmp_path / "record"
    seeded(root)
    gpu = root / "terms" / "gpu.md"
    gpu.write_text(GPU, encoding="utf-8")
    settled()
    kept, seen = serving()
    before = read_as(root, kept)
    was = gpu.stat()
    other = root / "terms" / "other.tmp"
    other.write_text(GPU.replace("chip", "Chip"), encoding="utf-8")  # the same size
    os.utime(other, ns=(was.st_atime_ns, was.st_mtime_ns))
    os.replace(other, gpu)
    assert read_as(root, kept) != before
    assert read_as(root, kept) == read_as(root, Memos.in_memory())


def test_a_stat_is_trusted_only_well_after_the_files_last_change(tmp_path: Path) -> None:
    path = tmp_path / "file.md"
    path.write_text("text", encoding="utf-8")
    seen = FilesSeen()
    assert seen.margin_ns == MARGIN_NS
    seen.begin()
    seen.record("file", stat_of(str(path)), "read")
    seen.commit()
    assert seen.lookup("file", stat_of(str(path))) is None  # written within the margin
    seen.begin()
    seen.settled_ns += MARGIN_NS + 1  # as though the read began later
    seen.record("file", stat_of(str(path)), "read")
    seen.commit()
    assert seen.lookup("file", stat_of(str(path))) == "read"
    assert seen.lookup("file", None) is None  # a file that cannot be stat'ed


def test_what_linking_an_unchanged_entity_found_is_not_made_again(tmp_path: Path) -> None:
    """`serve` keeps it as objects; the record's names, where unchanged, as one matcher."""
    root = tmp_path / "record"
    seeded(root)
    kept, _ = serving()
    read_as(root, kept)
    read_as(root, kept)
    hits = kept.linked.hits
    (root / "terms" / "gpu.md").write_text(GPU, encoding="utf-8")  # its prose alone
    edited = read_as(root, kept)
    assert kept.linked.hits == hits  # nothing unmarshalled: the objects given as they were
    assert edited == read_as(root, Memos.in_memory())


def test_a_new_alias_links_again_only_the_prose_that_may_say_it(tmp_path: Path) -> None:
    """The term given it, and the chapter whose summary says "the race"; not the terms,
    nor the sources, whose prose holds no such word."""
    root = tmp_path / "record"
    seeded(root)
    kept, _ = serving()
    read_as(root, kept)
    read_as(root, kept)
    misses = kept.linked.misses
    term = root / "terms" / "stargate.md"
    term.write_text(
        term.read_text(encoding="utf-8").replace("\ndefinition:", "\naliases: [Race]\ndefinition:"),
        encoding="utf-8",
    )
    given = read_as(root, kept)
    assert kept.linked.misses - misses == 2
    assert given == read_as(root, Memos.in_memory())


@pytest.mark.parametrize(
    "text",
    [
        "The GPU farm.",
        "The gpu\n   farm, wrapped.",
        "The **GPU** farm.",
        "The GPU-farm.",
        "GPU farms.",
        "The GPU&#32;farm.",
        "The G&#80;U farm.",
    ],
)
def test_a_text_that_may_say_a_name_is_read_again(text: str) -> None:
    assert may_find(text, [key for key in NameMatcher([("GPU farm", ("term", "x"))]).table])


@pytest.mark.parametrize("text", ["The GPU.", "A farm of GPUs.", ""])
def test_a_text_that_cannot_say_a_name_is_not(text: str) -> None:
    assert not may_find(text, [key for key in NameMatcher([("GPU farm", ("term", "x"))]).table])
