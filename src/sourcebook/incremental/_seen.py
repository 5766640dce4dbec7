"""The last read of each entity file, given again while the file is the same, in memory
from save to save (`serve`); and, where the watcher said what changed, what the read made
of each folder.

A file is taken to be the same while its device, inode, links, size and modification and
change times are; as in git's index, that is trusted only for a stat taken well after the
file last changed. A file written in the same tick of the file system's clock as it was
read could change again without its times moving, so a file changed within `margin_ns`
before the read that recorded it is read again next time (see `FilesSeen.record`).

**Told** what changed (`FilesSeen.told`: the paths `serve`'s watcher saw added, modified or
deleted since the last read began), a read need not take a stat of every file: each file
the watcher did not **name** is the same as when the last read recorded it, and is given
again without one (`unnamed`); each folder in which nothing was named gives again what
the read made of it (`lookup_folder`: its listing, its Library, its links checked). Only
what the margin rule trusted is given again so, not a read made just after its file
changed: a file named in one batch and read at once is read again with the next, named
or not. A change made while a read runs is told with the watcher's next batch, which it
gives once this read is over: the next read sees it. Where the watcher may have missed
something, the read takes every stat, as it does when not told (`begin`).

Nothing is kept on disk: another process reads every file (the parsed memo then spares it
the parsing).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from sourcebook.incremental._fingerprint import not_record

MARGIN_NS = 2_000_000_000
"""How long before a read a file must have last changed for its stat to be trusted: more
than the coarsest clock of a common file system (FAT's two seconds)."""
ADDED, MODIFIED, DELETED = "added", "modified", "deleted"
"""What the watcher says of a path (watchfiles' `Change` names)."""
TOLD_MAX = 1000
"""The most paths told between two reads that a read meets path by path; more, and it takes
every stat. Watchfiles does not pass on the kernel's overflow (its rescan event names no
path, and is dropped), so a burst of changes large enough to overflow is taken as one
that may have lost some."""


def settled_since(margin_ns: int = MARGIN_NS) -> int:
    """For a read beginning now: a file whose modification and change times are both
    before this had settled, and its stat may stand for its content from now on."""
    return time.time_ns() - margin_ns


class Stat(NamedTuple):
    device: int
    inode: int
    size: int
    modified_ns: int
    changed_ns: int
    links: int = 1
    """A file with more than one name may be written through another, which the watcher
    of this one does not see: it is given again only by its stat."""


def stat_of(path: str) -> Stat | None:
    """The file's stat as compared from read to read; None where it cannot be taken."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return Stat(
        found.st_dev,
        found.st_ino,
        found.st_size,
        found.st_mtime_ns,
        found.st_ctime_ns,
        found.st_nlink,
    )


Told = dict[str, set[str]]
"""Paths relative to the record's root (as the system writes them), each with what the
watcher said of it."""


class _Folder(NamedTuple):
    folder: str
    listing: bool
    value: Any


class FilesSeen:
    """Each file's last read, by what it was read as (path, kind, id, limits); and what the
    read made of each folder, for a read told what changed."""

    def __init__(self, margin_ns: int = MARGIN_NS) -> None:
        self.margin_ns = margin_ns
        self._reads: dict[Any, tuple[Stat, Any, str | None]] = {}
        self._now: dict[Any, tuple[Stat, Any, str | None]] = {}
        self._folders: dict[Any, _Folder] = {}
        self._folders_now: dict[Any, _Folder] = {}
        self._root: str | None = None
        """The real path of the root the last committed read read."""
        self._reading: tuple[str, str] | None = None
        """This read's root, real, and the prefix of its files' paths."""
        self._paths: set[str] = set()
        """The paths of the files the last read read, trusted or not."""
        self._paths_now: set[str] = set()
        self._lock = threading.Lock()
        self._told: Told | None = None
        """What the watcher named since the last read began; None where that is not known
        (no read yet, a rebuild not told, too much told)."""
        self._was_told = False
        """Whether anything was told since the last read began: a read nobody told of
        changes takes every stat."""
        self._told_root: str | None = None
        self._open: Told | None = {}
        """What a read that began took of `_told`, until it commits (given to the next
        where it does not)."""
        self.named: Told | None = None
        """This read's: what changed since the last, where it is told and may trust it;
        None where it takes every stat."""
        self.settled_ns = 0
        self.hits = 0
        """Reads given again, not made (for tests and the bench)."""
        self.told_hits = 0
        """Of those, the ones given again without a stat: the watcher named no change."""

    def told(self, root: Path | str, changes: Iterable[tuple[str, str]] | None) -> None:
        """What the watcher of the record at `root` saw change: (added, modified or
        deleted; the path), every change since the last read began, in one call or in
        several; None where something changed and what is not known. Paths under no part
        of the record are left out. A read not told takes every stat."""
        real = os.path.realpath(root)
        bases = (os.path.join(real, ""), os.path.join(os.path.abspath(root), ""))
        with self._lock:
            self._was_told = True
            if changes is None or real != self._told_root:
                self._told = None
            if self._told is None or changes is None:
                return
            for kind, path in changes:
                relative = _inside(bases, os.path.abspath(path))
                if relative is None or kind not in (ADDED, MODIFIED, DELETED):
                    self._told = None
                    return
                if not not_record(relative):
                    self._told.setdefault(relative, set()).add(kind)
            if len(self._told) > TOLD_MAX:
                self._told = None

    def begin(self, root: Path | str | None = None) -> None:
        """A read of the record at `root` starts: files changed from now on are not trusted.
        It takes what the watcher told since the last read began, and trusts it where the
        last read was of the same root and committed, and the watcher named nothing it
        cannot meet path by path: a path outside every folder that read recorded, a folder
        itself (its files are not named), more than `TOLD_MAX` paths. Without `root`, or
        not told, it takes every file's stat."""
        self.settled_ns = settled_since(self.margin_ns)
        self._now, self._folders_now, self._paths_now = {}, {}, set()
        real = os.path.realpath(root) if root is not None else None
        with self._lock:
            taken = _merged(self._open, self._told if self._was_told else None)
            self._open, self._told, self._told_root = taken, {}, real
            self._was_told = False
        self._reading = None
        self.named = None
        if root is None or real is None:
            return
        given = str(root)
        self._reading = (real, "" if given in ("", ".") else os.path.join(given, ""))
        if taken is None or len(taken) > TOLD_MAX or real != self._root:
            return
        if self._trusted(real, taken):
            self.named = taken

    def _trusted(self, root: str, named: Told) -> bool:
        for relative in named:
            holding = [kept for kept in self._folders.values() if _under(relative, kept.folder)]
            if not holding or any(relative == kept.folder for kept in holding):
                return False
            if any(kept.listing for kept in holding) and self._a_folder(root, relative):
                return False
        return True

    def _a_folder(self, root: str, relative: str) -> bool:
        """Whether the path is a folder, or was one when the last read listed it."""
        if os.path.isdir(os.path.join(root, relative)):
            return True
        if relative in self._paths:  # a file the last read read
            return False
        below = os.path.join(relative, "")
        return any(path.startswith(below) for path in self._paths)

    def _relative(self, path: str) -> str | None:
        if self._reading is None:
            return None
        prefix = self._reading[1]
        if prefix and not path.startswith(prefix):
            return None
        return path[len(prefix) :]

    def unnamed(self, key: Any, path: str) -> Any | None:
        """The last read of the file at `path`, without a stat: where this read is told
        what changed, the watcher named no change to the file since, and that read was
        trusted. The caller asks only for a file it reached through no symbolic link (the
        watcher names a change at the path written to, not at a link to it)."""
        if self.named is None:
            return None
        relative = self._relative(path)
        if relative is None or relative in self.named:
            return None
        last = self._reads.get(key)
        if last is None or last[2] != relative or last[0].links != 1:
            return None
        self._now[key] = last
        self._paths_now.add(relative)
        self.hits += 1
        self.told_hits += 1
        return last[1]

    def lookup(self, key: Any, stat: Stat | None) -> Any | None:
        """The last read of the file, where its stat is that read's, and trusted."""
        last = self._reads.get(key)
        if last is None or stat is None or last[0] != stat:
            return None
        self._now[key] = last
        if last[2] is not None:
            self._paths_now.add(last[2])
        self.hits += 1
        return last[1]

    def record(self, key: Any, stat: Stat | None, read: Any, path: str | None = None) -> None:
        """`read`, made from the file (at `path`) whose stat, taken after `begin`, was
        `stat`: given again only where the file had not changed for `margin_ns` before
        `begin`."""
        relative = self._relative(path) if path is not None else None
        if relative is not None:
            self._paths_now.add(relative)
        if stat is not None and max(stat.modified_ns, stat.changed_ns) < self.settled_ns:
            self._now[key] = (stat, read, relative)

    def lookup_folder(self, part: Any, folder: str, listing: bool = False) -> Any | None:
        """What the last read made of `folder` (relative to the root) as `part`, where this
        read is told what changed and the watcher named nothing under the folder since; a
        `listing` (which files there are) also where it named only changes to files that
        read recorded."""
        if self.named is None:
            return None
        kept = self._folders.get(part)
        if kept is None or kept.folder != folder or kept.listing != listing:
            return None
        for relative, kinds in self.named.items():
            if not _under(relative, folder):
                continue
            if not listing or kinds != {MODIFIED} or relative not in self._paths:
                return None
        self._folders_now[part] = kept
        return kept.value

    def record_folder(self, part: Any, folder: str, value: Any, listing: bool = False) -> None:
        """`value`, made of every file below `folder` as `part`, for the next read told what
        changed. The caller records only a folder it walked without meeting a symbolic
        link: a change through one is named at its target, not under this folder."""
        self._folders_now[part] = _Folder(folder, listing, value)

    def commit(self) -> None:
        """The files of this read are those the next may find; the rest are let go."""
        self._reads, self._now = self._now, {}
        self._folders, self._folders_now = self._folders_now, {}
        self._paths, self._paths_now = self._paths_now, set()
        self._root = self._reading[0] if self._reading is not None else None
        with self._lock:
            self._open = {}


def _inside(bases: tuple[str, ...], path: str) -> str | None:
    """`path` (absolute) relative to the root, as it is written below the first of `bases`
    (the root's real path, and as given) it is below; None where it is below neither."""
    for base in bases:
        if path.startswith(base) and len(path) > len(base):
            return path[len(base) :]
    return None


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(os.path.join(folder, ""))


def _merged(one: Told | None, other: Told | None) -> Told | None:
    if one is None or other is None:
        return None
    merged = {path: set(kinds) for path, kinds in one.items()}
    for path, kinds in other.items():
        merged.setdefault(path, set()).update(kinds)
    return merged
