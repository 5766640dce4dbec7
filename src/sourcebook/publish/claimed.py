"""Folders a run writes into before renaming them into place, the folders it works in
for a while (`scratch`), and the sweep of those a killed run left behind.

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
import stat
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


SCRATCH_KINDS = ("paper-", "serve-")
"""What runs keep in the scratch place: the paper as Typst reads it, and `serve`'s site."""


@contextmanager
def scratch(prefix: str) -> Iterator[Path]:
    """A new folder for work that outlives no run (`prefix` one of SCRATCH_KINDS), claimed
    while the block runs and removed after. It is made in this user's one scratch place,
    whose folders left by runs that were killed are swept first."""
    place = scratch_place()
    if place is None:  # no place of this user's own: a folder of its own, not swept
        folder = Path(tempfile.mkdtemp(prefix=f"sourcebook-{prefix}"))
        try:
            yield folder
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    for kind in SCRATCH_KINDS:
        sweep(place, f"{kind}*")
    with claimed(place, prefix) as folder:
        try:
            yield folder
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def scratch_place() -> Path | None:
    """`sourcebook-UID` in the system's temporary folder, made for this user alone; None
    where that name is taken by anything else (another user's folder, a link)."""
    place = Path(tempfile.gettempdir()) / f"sourcebook-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        place.mkdir(mode=0o700)
    try:
        found = place.lstat()
    except OSError:
        return None
    own = stat.S_ISDIR(found.st_mode) and found.st_uid == os.getuid()
    return place if own and not found.st_mode & 0o077 else None
