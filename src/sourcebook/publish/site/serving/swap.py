"""Build a folder beside its target, then swap it in whole.

A build that fails, or is interrupted, leaves the last good site in place byte for
byte. On Linux the two folders are exchanged in one step (renameat2 with
RENAME_EXCHANGE), so a reader never finds the site missing; elsewhere the old folder is
renamed aside and the new one renamed in, two steps a few microseconds apart.

The old site is not deleted but kept beside the new one as a spare (`.NAME.spare`), and the
next build writes into it: what that build will not write is removed first, and the rest
is written over in place, not truncated first (`write_file`). A full rebuild then makes,
truncates and unlinks almost no files: on a file system that allocates files slowly
after many were deleted (ext4 skips recently freed inodes, one by one) or discards every
block it frees, that is most of the cost of writing a site. Deleting the spare is always
safe; a build makes its folder afresh where there is none.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import secrets
import shutil
import subprocess
import tempfile
from collections.abc import Collection, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from sourcebook.publish.claimed import claimed, taken
from sourcebook.publish.claimed import sweep as sweep_abandoned

MARK = ".sourcebook-site"
"""Written into every built site: a folder without it is never replaced."""
MARK_TEXT = b"built by sourcebook; replaced whole by each build\n"

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


class SwapError(Exception):
    """The target cannot be replaced; the message says why, for a person."""


@contextmanager
def staged(target: Path, files: Collection[str]) -> Iterator[Path]:
    """A folder beside `target` to build into; swapped in if the block succeeds.

    `files` are the paths, relative to the folder and with `/`, of every file the build
    will write: where the folder is the spare of an earlier build, whatever else it holds
    is removed before the block runs, so that nothing stale is swapped in.
    """
    with _swapped_in(target, {*files, MARK}) as (staging, _):
        write_file(staging / MARK, MARK_TEXT)
        yield staging


@contextmanager
def linked_copy(
    target: Path, files: Collection[str], also: str = ""
) -> Iterator[tuple[Path, set[str]]]:
    """As `staged`, a folder beside `target` to build into, swapped in if the block
    succeeds; but holding the site at `target` already: each of its files that `files`
    names, linked, not copied, for a build that writes only what changed; with the files
    it does not hold, for the build to write. A file written into it is replaced, never
    written through (`write_file`, `replace_file`), so the site at `target` stays as it
    was until the swap. `also`: a folder of the site (relative, with `/`) whose files
    are linked too, whatever they are: the search index, whose buckets the build keeps
    where their pages are as they were (see `search.buckets`).

    The folder is the spare, where there is one: after a build of this kind it is the site
    before, whose folders are all there and whose files are mostly the same as the site's
    (linked to the same inodes), so that only the files that differ are linked again."""
    target = Path(os.path.abspath(target))
    keep = {*files, MARK}
    found = files_of(target)[0]
    if also:
        keep |= {path for path in found if path.startswith(f"{also}/")}
    with _swapped_in(target, keep) as (staging, held):
        missing = _link_files(target, found, staging, held, keep)
        if MARK in missing:
            write_file(staging / MARK, MARK_TEXT)
        yield staging, missing


Held = tuple[dict[str, int], set[str]]
"""What a folder holds: each file (relative, with `/`) by its inode, and each folder."""


@contextmanager
def _swapped_in(target: Path, keep: Collection[str]) -> Iterator[tuple[Path, Held]]:
    """The folder a build writes `target` into (the spare holding only `keep`, or a new
    one) and what it holds, swapped in if the block succeeds, and the site it replaces
    kept as the spare."""
    target = Path(os.path.abspath(target))
    _check_replaceable(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    sweep(target)
    with _claim_spare(target, keep) as (staging, held):
        try:
            yield staging, held
            old = swap_in(staging, target)
            if old is not None:
                _keep_spare(old, target)
        finally:
            remove_tree(staging)


def _link_files(
    source: Path, found: dict[str, int], into: Path, held: Held, files: Collection[str]
) -> set[str]:
    """Have each file of `files` in `into` be the same file as in `source`, linked; the
    files `source` does not hold. `found`: `source`'s files by inode; `held`: what `into`
    holds (both as `files_of` gives them)."""
    linked, folders = held
    folders.add("")
    missing = set()
    for relative in sorted(files):
        inode = found.get(relative)
        if inode is None:  # a file this build adds, or one that is not a file there
            missing.add(relative)
            if relative in linked:
                _unlink(str(into / relative))
            continue
        if linked.get(relative) == inode:
            continue
        folder = relative.rpartition("/")[0]
        if folder not in folders:
            os.makedirs(into / folder, exist_ok=True)
            folders.add(folder)
        if relative in linked:
            _unlink(str(into / relative))
        os.link(source / relative, into / relative, follow_symlinks=False)
    return missing


def files_of(folder: Path) -> Held:
    """Each file below `folder` (relative, with `/`) by its inode, and each folder; no
    symbolic link is a file."""
    files: dict[str, int] = {}
    folders: set[str] = set()

    def walk(path: str, prefix: str) -> None:
        with os.scandir(path) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    folders.add(prefix + entry.name)
                    walk(entry.path, prefix + entry.name + "/")
                elif entry.is_file(follow_symlinks=False):
                    files[prefix + entry.name] = entry.inode()

    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        walk(str(folder), "")
    return files, folders


def spare_of(target: Path) -> Path:
    """Where the site before the last one of `target` is kept, for the next build."""
    return target.parent / f".{target.name}.spare"


@contextmanager
def _claim_spare(target: Path, keep: Collection[str]) -> Iterator[tuple[Path, Held]]:
    """The spare of `target` under a name of this build's own, holding only `keep`, and
    what it holds; or a new empty folder where there is no spare (or another build took
    it first). Either is locked by this build while it writes (`claimed`), so a sweep
    leaves it alone."""
    spare = spare_of(target)
    if (spare / MARK).is_file():
        name = target.parent / f".{target.name}.building-{secrets.token_hex(6)}"
        with taken(spare, name) as claimed_spare:
            if claimed_spare is not None:
                yield claimed_spare, prune(claimed_spare, keep)
                return
    with claimed(target.parent, f".{target.name}.building-") as fresh:
        yield fresh, ({}, set())


def _keep_spare(old: Path, target: Path) -> None:
    """Keep the site `target` held until now as its spare; remove it where one is kept."""
    try:
        os.rename(old, spare_of(target))  # fails where a spare is there already
    except OSError:
        discard(old)


def prune(folder: Path, keep: Collection[str]) -> Held:
    """Remove from `folder` every file whose path (relative, with `/`) is not in `keep`,
    every symbolic link (a build writes none, and must not write through one), then
    every folder left empty; what is left (as `files_of` gives it)."""
    files: dict[str, int] = {}
    folders: set[str] = set()

    def walk(path: str, prefix: str) -> bool:
        """Whether the folder at `path` holds anything once pruned."""
        held = False
        with os.scandir(path) as entries:
            for entry in entries:
                relative = prefix + entry.name
                if entry.is_dir(follow_symlinks=False):
                    if walk(entry.path, relative + "/"):
                        folders.add(relative)
                        held = True
                        continue
                    try:
                        os.rmdir(entry.path)
                    except OSError:  # something came into it, or it cannot go
                        folders.add(relative)
                        held = True
                elif entry.is_symlink() or relative not in keep or not entry.is_file():
                    _unlink(entry.path)
                else:
                    files[relative] = entry.inode()
                    held = True
        return held

    walk(str(folder), "")
    return files, folders


_OPEN = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_READ = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def read_ahead(paths: Iterable[Path]) -> None:
    """Have the kernel start reading the files at `paths` that exist, without waiting for
    it: `write_file` reads each back, and the spare of a build some minutes old may have
    left memory. Done for a batch of pages before they are rendered, the reading overlaps
    the rendering."""
    if not hasattr(os, "posix_fadvise"):
        return
    for path in paths:
        try:
            fd = os.open(path, _READ)
        except OSError:
            continue  # a new file, or none at all
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
        finally:
            os.close(fd)


def write_file(path: Path, data: bytes) -> None:
    """Write `data` over the file at `path`, in place, or into a new file.

    A build writes into the spare of an earlier one (see `staged`), over files mostly of
    the same length. Written over in place, a file keeps its blocks and cached pages;
    truncated first, it would give them up only to take them again, which on some disks
    costs more than rendering the page. A file that holds `data` already is left as it is:
    reading it costs less than writing it, and the disk is spared writing it back. A file
    that is also linked from elsewhere is replaced, never written through; a symbolic
    link is never followed.
    """
    fd = os.open(path, _OPEN, 0o644)
    try:
        info = os.fstat(fd)
        if info.st_size == len(data) and os.pread(fd, len(data), 0) == data:
            return
        if info.st_nlink > 1:
            os.close(fd)
            fd = -1
            os.unlink(path)
            fd = os.open(path, _OPEN | os.O_EXCL, 0o644)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.ftruncate(fd, len(data))
    finally:
        if fd >= 0:
            os.close(fd)


def replace_file(path: Path, data: bytes) -> None:
    """Put `data` at `path` in one step, for a site being served as it changes: a reader
    finds the old file or the new, never part of one. A file that holds `data` already
    is left as it is."""
    with contextlib.suppress(OSError):
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def remove_file(path: Path, top: Path) -> None:
    """Remove the file at `path`, and each folder it leaves empty, up to `top`."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    folder = path.parent
    while folder != top and top in folder.parents:
        try:
            folder.rmdir()
        except OSError:  # not empty
            return
        folder = folder.parent


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
    """Remove what runs that did not finish left beside `target`: old sites a remover
    did not remove, and the folders of builds that were killed."""
    for leftover in target.parent.glob(f".{target.name}.old-*"):
        if leftover.is_dir():
            remove_tree(leftover)
    sweep_abandoned(target.parent, f".{target.name}.building-*")


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
