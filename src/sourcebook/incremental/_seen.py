"""The last read of each entity file, given again while the file is the same, in memory
from save to save (`serve`).

A file is taken to be the same while its device, inode, size and modification and change
times are; as in git's index, that is trusted only for a stat taken well after the file
last changed. A file written in the same tick of the file system's clock as it was read
could change again without its times moving, so a file changed within `margin_ns` before
the read that recorded it is read again next time (see `FilesSeen.record`). Nothing is kept
on disk: another process reads every file (the parsed memo then spares it the parsing).
"""

from __future__ import annotations

import os
import time
from typing import Any, NamedTuple

MARGIN_NS = 2_000_000_000
"""How long before a read a file must have last changed for its stat to be trusted: more
than the coarsest clock of a common file system (FAT's two seconds)."""


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


def stat_of(path: str) -> Stat | None:
    """The file's stat as compared from read to read; None where it cannot be taken."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return Stat(found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


class FilesSeen:
    """Each file's last read, by what it was read as (path, kind, id, limits)."""

    def __init__(self, margin_ns: int = MARGIN_NS) -> None:
        self.margin_ns = margin_ns
        self._reads: dict[Any, tuple[Stat, Any]] = {}
        self._now: dict[Any, tuple[Stat, Any]] = {}
        self.settled_ns = 0
        self.hits = 0
        """Reads given again, not made (for tests and the bench)."""

    def begin(self) -> None:
        """A read of the record starts: files changed from now on are not trusted."""
        self.settled_ns = settled_since(self.margin_ns)
        self._now = {}

    def lookup(self, key: Any, stat: Stat | None) -> Any | None:
        """The last read of the file, where its stat is that read's, and trusted."""
        last = self._reads.get(key)
        if last is None or stat is None or last[0] != stat:
            return None
        self._now[key] = last
        self.hits += 1
        return last[1]

    def record(self, key: Any, stat: Stat | None, read: Any) -> None:
        """`read`, made from the file whose stat, taken after `begin`, was `stat`: given
        again only where the file had not changed for `margin_ns` before `begin`."""
        if stat is not None and max(stat.modified_ns, stat.changed_ns) < self.settled_ns:
            self._now[key] = (stat, read)

    def commit(self) -> None:
        """The files of this read are those the next may find; the rest are let go."""
        self._reads, self._now = self._now, {}
