"""What a record is made of, as one hash: every file under its folder, by its content.

Whatever a stage reads of the record is among these files, so two records with the same
fingerprint give the same results. A file that is not the record's (a site built into it,
its git folder, the state sourcebook keeps) is left out; one that is left in without need
only makes a fingerprint change more often, never the other way round. A symbolic link
counts by where it points (the stages refuse links that leave the record), a file that
cannot be read by the reason why, a pipe or a device by its kind alone.

Reading every file takes a quarter of a second at 10,000 entities, so each file's hash
may be kept with its size, times and inode, as git's index keeps them: a file whose
metadata has not changed is not read again. Its change time cannot be set by a program
(writing the file sets it), and a file changed within two seconds of the hashes being
kept is read again all the same, as a coarse clock could hide a change in that time.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import time
from functools import cache
from pathlib import Path

from sourcebook.files import write_atomic
from sourcebook.incremental._store import STATE_FOLDER

WHOLE_BYTES = 1 << 30
"""Files up to this size count by their content; a larger one (no text file of a record,
and no original `library add` takes) by its size, time and inode, as the Library's cache
of texts knows its originals."""
NOT_RECORD = frozenset({".git", STATE_FOLDER, "_site"})
"""Folders under a record's root that are not the record."""
SITE_BESIDE = "._site."
"""The start of the names of what a build keeps beside `_site` (the spare it writes the
next site into, a site being built): not the record either."""
RACY_NS = 2_000_000_000
"""A file changed this close to when its hash was kept is read again."""


def fingerprint(root: Path, kept: Path | None = None) -> str:
    """The SHA-256 of every file under `root` (its path and its content), in path order;
    with the files' hashes kept in `kept` from one call to the next where it is given."""
    known = _read_kept(kept) if kept is not None else {}
    now = time.time_ns()
    fresh: dict[str, list[int | str]] = {}
    whole = hashlib.sha256()
    top = os.fsencode(root)
    for folder, folders, files in os.walk(top):
        if folder == top:
            folders[:] = [f for f in folders if not _skipped(os.fsdecode(f))]
        folders[:] = [f for f in folders if f != b"__pycache__"]  # Python's, at any depth
        links = [f for f in folders if os.path.islink(os.path.join(folder, f))]
        folders[:] = sorted(f for f in folders if f not in links)
        for name in sorted([*files, *links]):
            path = os.path.join(folder, name)
            whole.update(path[len(top) :] + b"\0" + _content(path, known, fresh, now) + b"\n")
    if kept is not None and fresh != known:  # kept again only where something changed
        with contextlib.suppress(OSError):
            write_atomic(kept, json.dumps({"kept_ns": now, "files": fresh}).encode("ascii"))
    return whole.hexdigest()


def _skipped(name: str) -> bool:
    return name in NOT_RECORD or name.startswith(SITE_BESIDE)


def not_record(relative: str) -> bool:
    """Whether a path relative to a record's root lies in a folder under it that is not the
    record (`NOT_RECORD`, and what a build keeps beside its site)."""
    return _skipped(relative.split(os.sep, 1)[0])


def _content(
    path: bytes, known: dict[str, list], fresh: dict[str, list[int | str]], now: int
) -> bytes:
    try:
        found = os.lstat(path)
        if stat.S_ISLNK(found.st_mode):
            return b"link:" + os.readlink(path)
        if not stat.S_ISREG(found.st_mode):  # a pipe would never end; no stage reads one
            return f"special:{stat.S_IFMT(found.st_mode)}".encode()
        if found.st_size > WHOLE_BYTES:
            return f"large:{found.st_size}:{found.st_mtime_ns}:{found.st_ino}".encode()
        key = os.fsdecode(path)
        signature = [found.st_size, found.st_mtime_ns, found.st_ctime_ns, found.st_ino]
        settled = max(found.st_mtime_ns, found.st_ctime_ns) < now - RACY_NS
        digest = _known(known.get(key), signature) if settled else None
        if digest is None:
            with open(path, "rb") as file:
                digest = hashlib.file_digest(file, "sha256").digest()
        if settled:
            fresh[key] = [*signature, digest.hex()]
        return digest
    except OSError as exc:
        return f"unreadable:{exc.errno}".encode()


def _known(was: object, signature: list[int]) -> bytes | None:
    """The kept hash of a file whose metadata is `signature`; None where none is kept."""
    if not (isinstance(was, list) and len(was) == 5 and was[:4] == signature):
        return None
    try:
        digest = bytes.fromhex(str(was[4]))
    except ValueError:
        return None
    return digest if len(digest) == 32 else None


def _read_kept(kept: Path) -> dict[str, list]:
    try:
        files = json.loads(kept.read_text(encoding="ascii"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return files if isinstance(files, dict) else {}


@cache
def code() -> str:
    """sourcebook's own files, by content: another version makes every kept value anew."""
    return fingerprint(Path(__file__).resolve().parent.parent)
