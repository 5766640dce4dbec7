"""A record's fingerprint: every file by its content, whether or not its hash was kept."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sourcebook.incremental import _fingerprint as module
from sourcebook.incremental import fingerprint


@pytest.fixture
def record(tmp_path: Path) -> Path:
    root = tmp_path / "r"
    (root / "terms").mkdir(parents=True)
    (root / "terms" / "a.md").write_text("---\ntitle: A\n---\nOne.\n")
    (root / "terms" / "b.md").write_text("---\ntitle: B\n---\nTwo.\n")
    (root / "_site").mkdir()
    (root / "_site" / "index.html").write_text("built")
    return root


def settle(monkeypatch) -> None:
    """As if every file had been written long before its hash was kept."""
    monkeypatch.setattr(module, "RACY_NS", -(10**12))


def test_the_same_files_give_the_same_fingerprint_and_any_change_another(record: Path) -> None:
    first = fingerprint(record)
    assert fingerprint(record) == first
    (record / "_site" / "index.html").write_text("built again")  # not the record's
    assert fingerprint(record) == first
    (record / "terms" / "b.md").write_text("---\ntitle: B\n---\nTwo!\n")
    assert fingerprint(record) != first


def test_a_kept_hash_is_used_only_while_the_files_metadata_is_the_same(
    record: Path, tmp_path: Path, monkeypatch
) -> None:
    settle(monkeypatch)
    kept = tmp_path / "hashes.json"
    first = fingerprint(record, kept)
    assert len(json.loads(kept.read_text())["files"]) == 2
    written = kept.stat().st_mtime_ns
    assert fingerprint(record, kept) == first
    assert kept.stat().st_mtime_ns == written  # nothing changed, nothing written again
    # The same size and the old modification time, new words: the change time still moves.
    path = record / "terms" / "a.md"
    before = path.stat()
    path.write_text("---\ntitle: A\n---\nOnf.\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    changed = fingerprint(record, kept)
    assert changed != first and changed == fingerprint(record)


def test_kept_hashes_that_cannot_be_read_are_not_believed(
    record: Path, tmp_path: Path, monkeypatch
) -> None:
    settle(monkeypatch)
    kept = tmp_path / "hashes.json"
    truth = fingerprint(record, kept)
    data = json.loads(kept.read_text())
    for name in data["files"]:
        data["files"][name][4] = "00" * 32  # a forged hash with the right metadata
    for text in ("", "[]", '{"files": []}', json.dumps(data).replace('"00', '"zz')):
        kept.write_text(text)
        assert fingerprint(record, kept) == truth
    # A hash kept with the file's own metadata is believed: the folder it lives in is the
    # sealed state folder, which a record cannot bring (see incremental/_store.py).
    kept.write_text(json.dumps(data))
    assert fingerprint(record, kept) != truth


def test_a_file_written_just_before_is_read_again(record: Path, tmp_path: Path) -> None:
    kept = tmp_path / "hashes.json"
    fingerprint(record, kept)
    assert not kept.exists()  # every file is too new to keep, so nothing is
