"""A read told what changed (`FilesSeen.told`, as `serve`'s watcher tells each rebuild)
takes no stat of a file the watcher did not name, and lists again only the folders where
something was added or deleted; whatever the watcher could not describe, it meets as a read
not told, with every stat. Each read here is held to the record read afresh.

No test waits for a clock: the margin rule is set aside (every stat trusted) or made total
(none trusted) by the engine's own setting, never raced."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from test_kept_reads import FILES, read_as, seeded

from sourcebook.incremental import ADDED, DELETED, MODIFIED, TOLD_MAX, FilesSeen, Memos
from sourcebook.read import entities

TRUSTED = -(10**18)
"""A margin that trusts every stat: what the watcher names is all that is read again."""
NONE_TRUSTED = 10**18
"""A margin that trusts none: every file was changed just before it was read."""
GPU = "---\ntitle: GPU\ndefinition: A chip.\n---\nBeside the Cluster.\n"
FARM = "---\ntitle: GPU farm\ndefinition: Chips as one.\n---\nA GPU farm [@index].\n"


def serving(margin_ns: int = TRUSTED) -> tuple[Memos, FilesSeen]:
    kept = Memos.in_memory(serving=True)
    assert kept.files is not None
    kept.files.margin_ns = margin_ns
    return kept, kept.files


class Touched:
    """The entity files whose stat the read took, and the folders it listed."""

    def __init__(self) -> None:
        self.stats: list[str] = []
        self.listed: list[str] = []


@contextmanager
def touched(monkeypatch: pytest.MonkeyPatch) -> Iterator[Touched]:
    seen = Touched()
    stat_of, scandir = entities.stat_of, os.scandir

    def counted_stat(path: str) -> Any:
        seen.stats.append(Path(path).name)
        return stat_of(path)

    def counted_scandir(path: Any = ".") -> Any:
        seen.listed.append(Path(path).name)
        return scandir(path)

    with monkeypatch.context() as patched:
        patched.setattr(entities, "stat_of", counted_stat)
        patched.setattr(os, "scandir", counted_scandir)
        yield seen


def told(seen: FilesSeen, root: Path, *changes: tuple[str, str]) -> None:
    seen.told(root, [(kind, str((root / path).resolve())) for kind, path in changes])


@pytest.fixture
def record(tmp_path: Path) -> Path:
    root = tmp_path / "record"
    seeded(root)
    return root


def test_a_file_not_named_is_given_again_without_a_stat(
    record: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept, seen = serving()
    read_as(record, kept)  # not told: every stat
    (record / "terms" / "gpu.md").write_text(GPU, encoding="utf-8")
    told(seen, record, (MODIFIED, "terms/gpu.md"))
    with touched(monkeypatch) as saw:
        edited = read_as(record, kept)
    assert saw.stats == ["gpu.md"]  # the file named, and no other
    assert seen.told_hits == FILES - 1
    assert not {"terms", "chapters", "sources"} & set(saw.listed)  # a file modified: no listing
    assert edited == read_as(record, Memos.in_memory())


def test_a_modified_an_added_and_a_deleted_file_are_each_seen(
    record: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept, seen = serving()
    read_as(record, kept)
    (record / "terms" / "gpu.md").write_text(GPU, encoding="utf-8")
    (record / "terms" / "gpu-farm.md").write_text(FARM, encoding="utf-8")
    (record / "sources" / "other.md").unlink()
    told(
        seen,
        record,
        (MODIFIED, "terms/gpu.md"),
        (ADDED, "terms/gpu-farm.md"),
        (DELETED, "sources/other.md"),
    )
    with touched(monkeypatch) as saw:
        edited = read_as(record, kept)
    assert sorted(saw.stats) == ["gpu-farm.md", "gpu.md"]
    assert seen.told_hits == FILES - 2  # all but the one modified and the one deleted
    assert "terms" in saw.listed and "sources" in saw.listed  # where files came and went
    assert "chapters" not in saw.listed
    afresh = read_as(record, Memos.in_memory())
    assert edited == afresh
    files = {Path(origin.file).name for _, origin in edited[0]}
    assert "gpu-farm.md" in files and "other.md" not in files


def test_a_read_not_told_takes_every_stat(record: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As `build`, `check` and a rebuild asked for without paths read."""
    kept, seen = serving()
    read_as(record, kept)
    told(seen, record, (MODIFIED, "terms/gpu.md"))
    read_as(record, kept)
    (record / "terms" / "gpu.md").write_text(GPU, encoding="utf-8")
    seen.told(record, None)  # something changed; what, nobody said
    with touched(monkeypatch) as saw:
        edited = read_as(record, kept)
    assert len(saw.stats) == FILES
    assert edited == read_as(record, Memos.in_memory())
    told_hits = seen.told_hits
    with touched(monkeypatch) as saw:
        read_as(record, kept)  # nothing told since the last read began: not told
    assert len(saw.stats) == FILES and seen.told_hits == told_hits


def _folder_added(root: Path) -> list[tuple[str, str]]:
    """A folder moved in whole: its files are not named (the watcher watches it only once
    it is there)."""
    staged = root.parent / "staged"
    staged.mkdir()
    (staged / "gpu-farm.md").write_text(FARM, encoding="utf-8")
    shutil.move(staged, root / "terms" / "added")
    return [(ADDED, "terms/added")]


def _folder_swapped(root: Path) -> list[tuple[str, str]]:
    """A folder of the record replaced by another of the same name: only the folder is
    named, its files (the same names, other texts) are not."""
    (root / "terms" / "more").mkdir()
    farm = FARM.replace("Chips as one.", "Racks as one.")  # the same size, another text
    (root / "terms" / "more" / "farm.md").write_text(farm, encoding="utf-8")
    return [(ADDED, "terms/more")]


def _folder_deleted(root: Path) -> list[tuple[str, str]]:
    shutil.rmtree(root / "sources")
    return [(DELETED, "sources")]


def _outside(root: Path) -> list[tuple[str, str]]:
    """A file no folder the read recorded holds."""
    (root / "notes.txt").write_text("to do\n", encoding="utf-8")
    (root / "terms" / "gpu.md").write_text(GPU, encoding="utf-8")
    return [(ADDED, "notes.txt"), (MODIFIED, "terms/gpu.md")]


def _settings(root: Path) -> list[tuple[str, str]]:
    settings = root / "sourcebook.toml"
    settings.write_text(settings.read_text(encoding="utf-8").replace("Small", "Tiny"), "utf-8")
    return [(MODIFIED, "sourcebook.toml")]


def _too_many(root: Path) -> list[tuple[str, str]]:
    """More than a watcher could have kept whole: an overflow looks like this."""
    (root / "terms" / "gpu.md").write_text(GPU, encoding="utf-8")
    return [(MODIFIED, f"terms/scratch-{n}.txt") for n in range(TOLD_MAX)] + [
        (MODIFIED, "terms/gpu.md")
    ]


def _beyond_the_root(root: Path) -> list[tuple[str, str]]:
    (root / "terms" / "gpu.md").write_text(GPU, encoding="utf-8")
    return [(MODIFIED, "../elsewhere.md")]


def _unknown_kind(root: Path) -> list[tuple[str, str]]:
    (root / "terms" / "gpu.md").write_text(GPU, encoding="utf-8")
    return [("renamed", "terms/gpu.md")]


@pytest.mark.parametrize(
    "change",
    [
        _folder_added,
        _folder_swapped,
        _folder_deleted,
        _outside,
        _settings,
        _too_many,
        _beyond_the_root,
        _unknown_kind,
    ],
)
def test_a_change_the_watcher_could_not_describe_is_met_with_every_stat(
    record: Path, monkeypatch: pytest.MonkeyPatch, change: Any
) -> None:
    (record / "terms" / "more").mkdir()
    (record / "terms" / "more" / "farm.md").write_text(FARM, encoding="utf-8")
    kept, seen = serving()
    read_as(record, kept)
    read_as(record, kept)
    if change is _folder_swapped:
        shutil.rmtree(record / "terms" / "more")
    told(seen, record, *change(record))
    hits = seen.told_hits
    with touched(monkeypatch) as saw:
        edited = read_as(record, kept)
    assert edited == read_as(record, Memos.in_memory())
    assert seen.told_hits == hits  # nothing given again without its stat
    assert len(saw.stats) == sum(1 for _ in record.rglob("*.md"))


def test_a_file_named_once_and_read_as_it_changed_is_read_again_unnamed(
    record: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The watcher named it in an earlier batch, and the read then could not trust its stat
    (the file changed just before): the next read takes its stat, named or not."""
    kept, seen = serving()
    read_as(record, kept)
    (record / "terms" / "gpu.md").write_text(GPU, encoding="utf-8")
    told(seen, record, (MODIFIED, "terms/gpu.md"))
    seen.margin_ns = NONE_TRUSTED  # the read falls within the margin of the file's change
    read_as(record, kept)
    seen.margin_ns = TRUSTED
    told(seen, record, (MODIFIED, "chapters/chapter-1.md"))
    hits = seen.told_hits
    with touched(monkeypatch) as saw:
        again = read_as(record, kept)
    assert sorted(saw.stats) == ["chapter-1.md", "gpu.md"]
    assert seen.told_hits - hits == FILES - 2
    assert again == read_as(record, Memos.in_memory())


def test_a_file_written_while_a_read_runs_is_seen_by_the_next(
    record: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Written once the read has passed it: the watcher names it in its next batch, which
    it gives once this read is over, and the next read, told it, reads it."""
    kept, seen = serving()
    before = read_as(record, kept)
    gpu = record / "terms" / "gpu.md"
    read = entities._read

    def and_meanwhile(file: Any, *args: Any) -> Any:
        done = read(file, *args)
        if Path(file.path).name == "stargate.md":  # read after gpu.md, given as it was
            gpu.write_text(GPU, encoding="utf-8")
        return done

    (record / "terms" / "stargate.md").touch()  # named, so read
    told(seen, record, (MODIFIED, "terms/stargate.md"))
    with monkeypatch.context() as patched:
        patched.setattr(entities, "_read", and_meanwhile)
        assert read_as(record, kept) == before  # this read passed the change by
    told(seen, record, (MODIFIED, "terms/gpu.md"))
    after = read_as(record, kept)
    assert after == read_as(record, Memos.in_memory())
    gpu_read = next(e for e, origin in after[0] if Path(origin.file).name == "gpu.md")
    assert gpu_read["definition"] == "A chip."


def test_a_file_with_another_name_is_given_again_only_by_its_stat(
    record: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hard link: written through its other name, which no watcher of this folder sees."""
    os.link(record / "terms" / "gpu.md", record.parent / "gpu-elsewhere.md")
    kept, seen = serving()
    read_as(record, kept)
    told(seen, record, (MODIFIED, "terms/cluster.md"))
    with touched(monkeypatch) as saw:
        read_as(record, kept)
    assert sorted(saw.stats) == ["cluster.md", "gpu.md"]


def test_a_file_reached_through_a_link_is_given_again_only_by_its_stat(
    record: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The watcher names a change where it is written: at the link's target, here a file
    no folder the read keeps holds."""
    shared = record / "shared"
    shared.mkdir()
    (shared / "gpu-farm.md").write_text(FARM, encoding="utf-8")
    (record / "terms" / "gpu-farm.md").symlink_to(shared / "gpu-farm.md")
    kept, seen = serving()
    read_as(record, kept)
    told(seen, record, (MODIFIED, "chapters/chapter-1.md"))
    with touched(monkeypatch) as saw:
        read_as(record, kept)
    assert "terms" in saw.listed  # its folder walked again, each file by its stat
    assert sorted(saw.stats) == sorted(
        ["chapter-1.md", *(p.name for p in (record / "terms").iterdir())]
    )


def test_what_a_read_that_stopped_was_told_is_told_to_the_next(
    record: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read that raised commits nothing: the paths it was told are named to the next."""
    kept, seen = serving()
    read_as(record, kept)
    (record / "terms" / "gpu.md").write_text(GPU, encoding="utf-8")
    told(seen, record, (MODIFIED, "terms/gpu.md"))

    def unreadable(file: Any, *args: Any) -> Any:
        raise OSError(f"{file.path}: the disk went away")

    with monkeypatch.context() as patched:
        patched.setattr(entities, "_read", unreadable)
        with pytest.raises(OSError):
            read_as(record, kept)
    told(seen, record, (MODIFIED, "chapters/chapter-1.md"))
    with touched(monkeypatch) as saw:
        again = read_as(record, kept)
    assert sorted(saw.stats) == ["chapter-1.md", "gpu.md"]
    assert again == read_as(record, Memos.in_memory())
