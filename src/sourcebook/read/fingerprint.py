"""What a record is made of, as one hash: every file under its folder, by its content.

Whatever a stage reads of the record is among these files, so two records with the same
fingerprint give the same results. A file that is not the record's (a site built into it,
its git folder, the state sourcebook keeps) is left out; one that is left in without need
only makes a fingerprint change more often, never the other way round. A symbolic link
counts by where it points (the stages refuse links that leave the record), a file that
cannot be read by the reason why, a pipe or a device by its kind alone.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from sourcebook.read.state import STATE_FOLDER

WHOLE_BYTES = 1 << 30
"""Files up to this size count by their content; a larger one (no text file of a record,
and no original `library add` takes) by its size, time and inode, as the Library's cache
of texts knows its originals."""
SKIPPED = frozenset({".git", STATE_FOLDER, "_site", "__pycache__"})
"""Folders under a record's root that are not the record."""


def fingerprint(root: Path) -> str:
    """The SHA-256 of every file under `root` (its path and its content), in path order."""
    whole = hashlib.sha256()
    top = os.fsencode(root)
    for folder, folders, files in os.walk(top):
        if folder == top:
            folders[:] = [f for f in folders if os.fsdecode(f) not in SKIPPED]
        links = [f for f in folders if os.path.islink(os.path.join(folder, f))]
        folders[:] = sorted(f for f in folders if f not in links)
        for name in sorted([*files, *links]):
            path = os.path.join(folder, name)
            whole.update(path[len(top) :] + b"\0" + _content(path) + b"\n")
    return whole.hexdigest()


def _content(path: bytes) -> bytes:
    try:
        found = os.lstat(path)
        if stat.S_ISLNK(found.st_mode):
            return b"link:" + os.readlink(path)
        if not stat.S_ISREG(found.st_mode):  # a pipe would never end; no stage reads one
            return f"special:{stat.S_IFMT(found.st_mode)}".encode()
        if found.st_size > WHOLE_BYTES:
            return f"large:{found.st_size}:{found.st_mtime_ns}:{found.st_ino}".encode()
        with open(path, "rb") as file:
            return hashlib.file_digest(file, "sha256").digest()
    except OSError as exc:
        return f"unreadable:{exc.errno}".encode()
