"""Folders a run writes into before renaming them into place, and the sweep of those a
killed run left behind.

A run holds an exclusive `flock` on each folder it is writing, taken before the folder
gets the name a sweep looks for. The kernel drops the lock when the process ends, however
it ends, so a folder whose lock can be taken belongs to no running process and is safe to
remove, while another build's or release's folder, still being written, is left alone.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_CLAIM = ".sourcebook-claim-"
_CLAIM_SECONDS = 60
"""A claim folder is unlocked for the moment between its making and its locking: one
older than this was left by a run killed in that moment."""
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _lock(folder: Path) -> int | None:
    """An open descriptor of `folder` holding its lock; None where another process holds
    it, or `folder` is not a folder of its own (a symbolic link is never followed)."""
    try:
        fd = os.open(folder, _DIRECTORY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


@contextmanager
def claimed(parent: Path, prefix: str, suffix: str = "") -> Iterator[Path]:
    """A new empty folder `parent/PREFIX…SUFFIX`, locked by this process while the block
    runs. It is made under another name and renamed once locked, so a sweep never finds
    it unlocked."""
    fresh = Path(tempfile.mkdtemp(prefix=_CLAIM, dir=parent))
    with taken(fresh, parent / f"{prefix}{fresh.name.removeprefix(_CLAIM)}{suffix}") as folder:
        if folder is None:
            raise OSError(f"{fresh} was taken by another process")
        yield folder


@contextmanager
def taken(folder: Path, name: Path) -> Iterator[Path | None]:
    """`folder` locked by this process and renamed to `name` for the block; None where
    another process holds it or it is gone."""
    fd = _lock(folder)
    if fd is None:
        yield None
        return
    try:
        try:
            os.rename(folder, name)
        except OSError:
            yield None
        else:
            yield name
    finally:
        os.close(fd)


def sweep(parent: Path, pattern: str) -> list[Path]:
    """Remove every folder in `parent` matching `pattern` that no running process holds;
    the folders removed."""
    removed = []
    stale = time.time() - _CLAIM_SECONDS
    claims = [p for p in parent.glob(f"{_CLAIM}*") if _modified(p) < stale]
    for leftover in [*parent.glob(pattern), *claims]:
        fd = _lock(leftover)
        if fd is None:
            continue
        try:
            shutil.rmtree(leftover, ignore_errors=True)
            removed.append(leftover)
        finally:
            with contextlib.suppress(OSError):
                os.close(fd)
    return removed


def _modified(path: Path) -> float:
    try:
        return path.lstat().st_mtime
    except OSError:
        return float("inf")
