"""The spare: each build writes into the site before the last, and nothing of it lingers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from site_fixtures import build, write_record
from test_site_build import snapshot

from sourcebook.publish.site.serving.swap import (
    MARK,
    files_of,
    prune,
    read_ahead,
    spare_of,
    write_file,
)


def test_a_build_keeps_the_site_it_replaced_as_its_spare(tmp_path: Path) -> None:
    root = write_record(tmp_path / "r")
    site = build(root)
    assert not spare_of(site).exists()
    first = snapshot(site)
    build(root)
    assert snapshot(spare_of(site)) == first
    hidden = sorted(p.name for p in site.parent.iterdir() if p.name.startswith("._site"))
    assert hidden == ["._site.spare"]  # nothing else left beside the site


def test_a_build_through_the_spare_is_the_site_a_fresh_build_makes(tmp_path: Path) -> None:
    """Pages gone from the record, files dropped into the spare, a folder where a page
    goes: none of it reaches the new site."""
    root = write_record(tmp_path / "r")
    site = build(root)
    build(root)
    spare = spare_of(site)
    (spare / "vol1" / "stale.html").write_text("from long ago")
    (spare / "vol1" / "old-section" / "deep").mkdir(parents=True)
    (spare / "vol1" / "old-section" / "deep" / "page.html").write_text("gone")
    (spare / "vol1" / "consent" / "index.html").unlink()
    (spare / "vol1" / "consent" / "index.html").mkdir()
    (spare / "vol1" / "consent" / "index.html" / "inside").write_text("in the way")
    (spare / "vol1" / "glossary" / "cluster" / "index.html").write_text("x" * 100_000)  # longer
    (root / "campuses" / "stargate-uae.md").unlink()
    build(root)
    fresh = build(root, tmp_path / "fresh")
    assert snapshot(site) == snapshot(fresh)
    assert not (site / "vol1" / "ledger" / "stargate-uae" / "index.html").exists()
    assert (site / MARK).is_file()


def test_a_build_never_writes_through_a_link_in_the_spare(tmp_path: Path) -> None:
    root = write_record(tmp_path / "r")
    site = build(root)
    build(root)
    spare = spare_of(site)
    outside = tmp_path / "outside.html"
    outside.write_text("mine")
    (spare / "vol1" / "consent" / "index.html").unlink()
    (spare / "vol1" / "consent" / "index.html").symlink_to(outside)
    linked = tmp_path / "deployed.html"
    os.link(spare / "vol1" / "notes" / "index.html", linked)
    before = linked.read_bytes()
    build(root)
    assert outside.read_text() == "mine"
    assert linked.read_bytes() == before
    assert not (site / "vol1" / "consent.html").is_symlink()
    assert snapshot(site) == snapshot(build(root, tmp_path / "fresh"))


def test_prune_keeps_only_what_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    for name in ["keep.html", "a/drop.html", "a/b/keep.json", "a/b/drop.json"]:
        (tmp_path / name).write_text(name)
    (tmp_path / "a" / "empty").mkdir()
    (tmp_path / "c" / "d").mkdir(parents=True)
    (tmp_path / "c" / "d" / "drop.html").write_text("gone")
    removed: list[str] = []
    rmdir = os.rmdir

    def counted(path: str) -> None:
        removed.append(Path(path).relative_to(tmp_path).as_posix())
        rmdir(path)

    monkeypatch.setattr(os, "rmdir", counted)
    held = prune(tmp_path, {"keep.html", "a/b/keep.json", "not/there.html"})
    left = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    assert left == ["a", "a/b", "a/b/keep.json", "keep.html"]
    # what is left, as a walk of it finds it; no folder that holds a kept file is asked
    # to go, so a spare of thousands of folders is not asked thousands of times
    assert held == files_of(tmp_path)
    assert sorted(held[0]) == ["a/b/keep.json", "keep.html"]
    assert held[0]["keep.html"] == (tmp_path / "keep.html").stat().st_ino
    assert sorted(removed) == ["a/empty", "c", "c/d"]


def test_write_file_writes_over_a_longer_or_shorter_file_exactly(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    write_file(path, b"a" * 10_000)
    write_file(path, "é short".encode())
    assert path.read_bytes() == "é short".encode()
    write_file(path, b"b" * 20_000)
    assert path.read_bytes() == b"b" * 20_000


def test_write_file_leaves_a_file_that_holds_the_bytes_already(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    write_file(path, b"<p>same</p>")
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    write_file(path, b"<p>same</p>")
    assert path.stat().st_mtime_ns == 1_000_000_000  # not written again
    write_file(path, b"<p>sane</p>")  # as long, but not the same
    assert path.read_bytes() == b"<p>sane</p>"
    assert path.stat().st_mtime_ns != 1_000_000_000


def test_read_ahead_asks_for_each_file_and_passes_over_missing_files_and_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "page.html").write_bytes(b"<p>page</p>")
    (tmp_path / "other.html").write_bytes(b"<p>other</p>")
    (tmp_path / "link.html").symlink_to(tmp_path / "page.html")
    asked: list[tuple[int, int]] = []

    def advise(fd: int, offset: int, length: int, advice: int) -> None:
        asked.append((os.fstat(fd).st_ino, advice))

    monkeypatch.setattr(os, "posix_fadvise", advise, raising=False)
    paths = ["page.html", "link.html", "none.html", "other.html"]
    read_ahead([tmp_path / name for name in paths])
    inodes = [(tmp_path / name).stat().st_ino for name in ("page.html", "other.html")]
    assert asked == [(inode, os.POSIX_FADV_WILLNEED) for inode in inodes]
    assert not (tmp_path / "none.html").exists()
