"""`LiveSite.watch` tells each rebuild what the watcher saw change (`FilesSeen.told`): the
first rebuild takes every stat where a build began before the watch was on, a change to
hidden files alone starts none but is told with the next, and the site each rebuild shows
is the one a clean build writes.

The watcher here is a stand-in for watchfiles that makes each change and gives its batch as
watchfiles would (its filter applied); no test waits for a file system's events."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import watchfiles
from site_fixtures import write_record
from test_serve_equivalence import files

from sourcebook.incremental import Memos
from sourcebook.live import LiveSite
from sourcebook.pipeline import build

TRUSTED = -(10**18)
"""Every stat trusted: what the watcher names is all that is read again."""
PARTIAL = "library/.S9.yaml.4f2a.partial"
"""What a killed `library add` leaves: a hidden file, which check warns of (Q010)."""

Step = Callable[[Path], set[tuple[watchfiles.Change, str]]]


def changed(kind: watchfiles.Change, relative: str, text: str | None = None) -> Step:
    def step(root: Path) -> set[tuple[watchfiles.Change, str]]:
        path = root / relative
        if kind is watchfiles.Change.deleted:
            path.unlink()
        elif text is not None:
            path.write_text(text, encoding="utf-8")
        else:
            old = path.read_text(encoding="utf-8")
            path.write_text(old.replace("one machine", "one computer"), encoding="utf-8")
        return {(kind, str(path.resolve()))}

    return step


def watcher(root: Path, steps: list[Step]) -> Callable[..., Iterator[set[Any]]]:
    """watchfiles.watch, as `LiveSite.watch` calls it: the stop event polled once the watch
    is on, then each step's change made and its batch given, what the filter keeps of it."""

    def watch(
        path: Path,
        watch_filter: Callable[[Any, str], bool],
        stop_event: Any,
        debounce: int,
        rust_timeout: int,
        yield_on_timeout: bool,
    ) -> Iterator[set[Any]]:
        assert Path(path) == root.resolve() and yield_on_timeout
        if stop_event.is_set():
            return
        for step in steps:
            kept = {(c, p) for c, p in step(root) if watch_filter(c, p)}
            yield kept  # an empty batch: the watcher waited, and nothing changed

    return watch


def clean(root: Path, out: Path) -> tuple[list[str], list[str], dict[str, str]]:
    """A clean build's errors, warnings and site."""
    done = build(root, out, drafts=True, search=False, jobs=1, kept=Memos.in_memory())
    found = done.checked.diagnostics
    return [d.format() for d in found.errors], [d.format() for d in found.warnings], files(out)


def test_each_rebuild_is_told_what_the_watcher_saw(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_record(tmp_path / "record")
    (root / "library").mkdir()
    live = LiveSite(root, out=tmp_path / "live")
    assert live.kept.files is not None
    seen = live.kept.files
    seen.margin_ns = TRUSTED
    asked: list[Any] = []
    rebuild = live.rebuild

    def rebuilt(changes: Any = None) -> None:
        asked.append(None if changes is None else sorted(changes))
        rebuild(changes)
        asked.append((seen.told_hits, seen.named))

    steps = [
        changed(watchfiles.Change.modified, "terms/cluster.md"),
        changed(watchfiles.Change.modified, "chapters/chapter-1.md"),
        changed(watchfiles.Change.added, PARTIAL, "half an item"),  # hidden: no rebuild
        changed(watchfiles.Change.modified, "terms/one-machine.md"),
    ]
    try:
        live.rebuild()
        monkeypatch.setattr(watchfiles, "watch", watcher(root, steps))
        monkeypatch.setattr(live, "rebuild", rebuilt)
        live.watch(threading.Event())
        chapter = str((root / "chapters" / "chapter-1.md").resolve())
        machine = str((root / "terms" / "one-machine.md").resolve())
        first, (hits, named), second, (more, named_then), third, (_, named_last) = asked
        assert first is None and hits == 0 and named is None  # the first: every stat
        assert second == [("modified", chapter)]
        assert more > 0 and named_then == {"chapters/chapter-1.md": {"modified"}}
        assert third == [("modified", machine)]
        assert named_last == {"terms/one-machine.md": {"modified"}, PARTIAL: {"added"}}
        assert not live.broken
        assert any(PARTIAL in d.format() for d in live.warnings)  # the hidden file, told
        errors, warnings, site = clean(root, tmp_path / "clean")
        assert [d.format() for d in live.errors] == errors == []
        assert [d.format() for d in live.warnings] == warnings
        assert files(live.site) == site
    finally:
        live.close()


def test_a_watch_on_before_the_first_build_tells_its_first_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`serve` starts the watch, waits for it to be on, then builds: a save made at once
    after the first build is seen, and its rebuild is told what it changed."""
    root = write_record(tmp_path / "record")
    live = LiveSite(root, out=tmp_path / "live")
    assert live.kept.files is not None
    seen = live.kept.files
    seen.margin_ns = TRUSTED
    started = threading.Event()
    rebuild = live.rebuild
    asked: list[Any] = []

    def first_build(root: Path) -> set[tuple[watchfiles.Change, str]]:
        assert started.is_set()  # the watch is on: the first build may begin
        rebuild()
        return set()

    def rebuilt(changes: Any = None) -> None:
        asked.append(None if changes is None else sorted(changes))
        rebuild(changes)
        asked.append(seen.named)

    steps = [first_build, changed(watchfiles.Change.modified, "terms/cluster.md")]
    try:
        monkeypatch.setattr(watchfiles, "watch", watcher(root, steps))
        monkeypatch.setattr(live, "rebuild", rebuilt)
        live.watch(threading.Event(), started=started)
        cluster = str((root / "terms" / "cluster.md").resolve())
        assert asked == [[("modified", cluster)], {"terms/cluster.md": {"modified"}}]
        errors, warnings, site = clean(root, tmp_path / "clean")
        assert [d.format() for d in live.errors] == errors == []
        assert files(live.site) == site
    finally:
        live.close()


def test_a_watch_that_cannot_start_says_so_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the watch fails (the system's limit of watches reached), `started` is set, so
    that `serve` does not wait for it, and the failure is raised."""
    live = LiveSite(write_record(tmp_path / "record"), out=tmp_path / "live")

    def failing(*args: Any, **kwargs: Any) -> Iterator[set[Any]]:
        raise OSError(28, "inotify watch limit reached")
        yield set()

    started = threading.Event()
    monkeypatch.setattr(watchfiles, "watch", failing)
    try:
        with pytest.raises(OSError, match="limit"):
            live.watch(threading.Event(), started=started)
        assert started.is_set()
    finally:
        live.close()
