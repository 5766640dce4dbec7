"""Build a folder beside its target, then swap it in whole.

A build that fails, or is interrupted, leaves the last good site in place byte for
byte. On Linux the two folders are exchanged in one step (renameat2 with
RENAME_EXCHANGE), so a reader never finds the site missing; elsewhere the old folder is
renamed aside and the new one renamed in, two steps a few microseconds apart. The old
site is then removed by a process of its own: thousands of unlinks on a busy disk take
seconds, and nothing needs to wait for them.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

MARK = ".sourcebook-site"
"""Written into every built site: a folder without it is never replaced."""

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


class SwapError(Exception):
    """The target cannot be replaced; the message says why, for a person."""


@contextmanager
def staged(target: Path) -> Iterator[Path]:
    """A fresh folder beside `target` to build into; swapped in if the block succeeds."""
    target = Path(os.path.abspath(target))
    _check_replaceable(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    sweep(target)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.building-", dir=target.parent))
    try:
        (staging / MARK).write_text("built by sourcebook; replaced whole by each build\n")
        yield staging
        old = swap_in(staging, target)
        if old is not None:
            discard(old)
    finally:
        remove_tree(staging)


def _check_replaceable(target: Path) -> None:
    if target.exists() and not target.is_dir():
        raise SwapError(f"{target} is not a folder")
    if target.is_dir() and any(target.iterdir()) and not (target / MARK).exists():
        raise SwapError(
            f"{target} holds files that sourcebook did not build; "
            "choose an empty or new folder for the site"
        )


def swap_in(new: Path, target: Path) -> Path | None:
    """Put `new` where `target` is; the folder that now holds the old site, if any."""
    if not target.exists():
        os.replace(new, target)
        return None
    aside = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    if _exchange(new, target):
        os.replace(new, aside)
    else:
        os.replace(target, aside)
        os.replace(new, target)
    return aside


def discard(folder: Path) -> None:
    """Remove an old site in a process of its own, so that the build need not wait.

    The new site is already in place; should the remover not run, the old one stays as
    a hidden folder beside it, which the next build removes (see `sweep`).
    """
    shell = shutil.which("sh")
    started = None
    if shell is not None:
        # The shell starts rm in the background and exits at once: rm outlives the build.
        started = subprocess.run(
            [shell, "-c", 'rm -rf -- "$1" </dev/null >/dev/null 2>&1 &', "sh", str(folder)],
            check=False,
            start_new_session=True,
        )
    if started is None or started.returncode != 0:
        remove_tree(folder)


def sweep(target: Path) -> None:
    """Remove old sites left beside `target` by removers that did not finish."""
    for leftover in target.parent.glob(f".{target.name}.old-*"):
        if leftover.is_dir():
            remove_tree(leftover)


def _exchange(first: Path, second: Path) -> bool:
    """Swap two paths atomically where the system can; False where it cannot."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]
    renameat2.restype = ctypes.c_int
    result = renameat2(
        _AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE
    )
    return result == 0


def remove_tree(folder: Path, threads: int = 8) -> None:
    """Delete a folder and all in it; files are unlinked by several threads at once.

    Unlinking waits on the disk, not the interpreter: on a busy disk a few threads
    remove a site's thousands of files several times faster than one.
    """
    if not folder.exists():
        return
    files: list[str] = []
    folders: list[str] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        folders.append(dirpath)
        files += [os.path.join(dirpath, name) for name in filenames]
        files += [
            os.path.join(dirpath, d) for d in dirnames if os.path.islink(os.path.join(dirpath, d))
        ]
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(_unlink, files, chunksize=128))
    for dirpath in sorted(folders, key=len, reverse=True):
        with contextlib.suppress(OSError):
            os.rmdir(dirpath)
    shutil.rmtree(folder, ignore_errors=True)


def _unlink(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
