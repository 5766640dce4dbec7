"""A record's fingerprint: every file by its content, whether or not its hash was kept."""

from __future__ import annotations

import marshal
import os
from pathlib import Path

import pytest

from sourcebook.incremental import FileDigests, Store, fingerprint
from sourcebook.incremental import _fingerprint as module

PART, NAME = "check", "hashes"


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


def kept_in(record: Path) -> tuple[FileDigests, Path]:
    """The hashes kept in the record's state folder, and the file that keeps them."""
    store = Store.of(record)
    folder = store.folder(PART)
    assert folder is not None
    return FileDigests(store, PART, NAME), folder / NAME


def kept_fingerprint(record: Path) -> str:
    """The fingerprint as `check` takes it: with the hashes kept, and kept again."""
    digests, _ = kept_in(record)
    found = fingerprint(record, digests)
    digests.save()
    return found


def test_the_same_files_give_the_same_fingerprint_and_any_change_another(record: Path) -> None:
    first = fingerprint(record)
    assert fingerprint(record) == first
    (record / "_site" / "index.html").write_text("built again")  # not the record's
    assert fingerprint(record) == first
    (record / "terms" / "b.md").write_text("---\ntitle: B\n---\nTwo!\n")
    assert fingerprint(record) != first


def test_a_kept_hash_is_used_only_while_the_files_metadata_is_the_same(
    record: Path, monkeypatch
) -> None:
    settle(monkeypatch)
    first = kept_fingerprint(record)
    _, kept = kept_in(record)
    assert len(marshal.loads(kept.read_bytes())[1]) == 2
    written = kept.stat().st_mtime_ns
    digests, _ = kept_in(record)
    assert fingerprint(record, digests) == first and digests.read == 0  # no file read
    digests.save()
    assert kept.stat().st_mtime_ns == written  # nothing changed, nothing written again
    # The same size and the old modification time, new words: the change time still moves.
    path = record / "terms" / "a.md"
    before = path.stat()
    path.write_text("---\ntitle: A\n---\nOnf.\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    digests, _ = kept_in(record)
    changed = fingerprint(record, digests)
    assert changed != first and changed == fingerprint(record) and digests.read == 1


def test_kept_hashes_that_cannot_be_read_are_not_believed(record: Path, monkeypatch) -> None:
    settle(monkeypatch)
    truth = kept_fingerprint(record)
    _, kept = kept_in(record)
    form, files = marshal.loads(kept.read_bytes())
    forged = {name: (signature, b"\0" * 32) for name, (signature, _) in files.items()}
    short = {name: (signature, b"\0" * 31) for name, (signature, _) in files.items()}
    for data in (
        b"",
        b"\x00\xff" * 40,
        marshal.dumps([]),
        marshal.dumps((form, [])),
        marshal.dumps((form + 1, forged)),
        marshal.dumps((form, short)),
        marshal.dumps((form, {name: "x" for name in files})),
    ):
        kept.write_bytes(data)
        assert kept_fingerprint(record) == truth
    # A hash kept with the file's own metadata is believed: the folder it lives in is the
    # sealed state folder, which a record cannot bring (see incremental/_store.py).
    kept.write_bytes(marshal.dumps((form, forged)))
    digests, _ = kept_in(record)
    assert fingerprint(record, digests) != truth


def test_a_file_written_just_before_is_read_again(record: Path) -> None:
    kept_fingerprint(record)
    _, kept = kept_in(record)
    assert not kept.exists()  # every file is too new to keep, so nothing is
