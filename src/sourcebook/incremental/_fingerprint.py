"""What a record is made of, as one hash: every file under its folder, by its content.

Whatever a stage reads of the record is among these files, so two records with the same
fingerprint give the same results. A file that is not the record's (a site built into it,
its git folder, the state sourcebook keeps) is left out; one that is left in without need
only makes a fingerprint change more often, never the other way round. A symbolic link
counts by where it points (the stages refuse links that leave the record), a file that
cannot be read by the reason why, a pipe or a device by its kind alone.

Reading every file takes a quarter of a second at 10,000 entities, so each file's hash
may be kept with its size, times and inode, as git's index keeps them (`FileDigests`): a
file whose metadata has not changed is not read again. Its change time cannot be set by a
program (writing the file sets it), and a hash is kept only for a file that had not
changed for two seconds when its metadata was taken, as a coarse clock could hide a change
in that time. The read stage keeps its own (`FileDigests` of the entity files): an entity
file whose hash it keeps is not read at all where what was parsed from it is kept too.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import stat
import time
from functools import cache
from pathlib import Path

from sourcebook.incremental._store import STATE_FOLDER, Store

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


def fingerprint(root: Path, digests: FileDigests | None = None) -> str:
    """The SHA-256 of every file under `root` (its path and its content), in path order;
    each file's hash given by `digests` where it keeps it, and noted there where it does
    not (the caller saves them)."""
    digests = digests if digests is not None else FileDigests()
    now = time.time_ns()
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
            whole.update(path[len(top) :] + b"\0" + _content(path, digests, now) + b"\n")
    return whole.hexdigest()


def _skipped(name: str) -> bool:
    return name in NOT_RECORD or name.startswith(SITE_BESIDE)


def not_record(relative: str) -> bool:
    """Whether a path relative to a record's root lies in a folder under it that is not the
    record (`NOT_RECORD`, and what a build keeps beside its site)."""
    return _skipped(relative.split(os.sep, 1)[0])


def _content(path: bytes, digests: FileDigests, now: int) -> bytes:
    try:
        found = os.lstat(path)
        if stat.S_ISLNK(found.st_mode):
            return b"link:" + os.readlink(path)
        if not stat.S_ISREG(found.st_mode):  # a pipe would never end; no stage reads one
            return f"special:{stat.S_IFMT(found.st_mode)}".encode()
        if found.st_size > WHOLE_BYTES:
            return f"large:{found.st_size}:{found.st_mtime_ns}:{found.st_ino}".encode()
        key = os.fsdecode(path)
        digest = digests.known(key, found)
        if digest is None:
            with open(path, "rb") as file:
                digest = hashlib.file_digest(file, "sha256").digest()
            digests.note(key, found, digest, now)
        return digest
    except OSError as exc:
        return f"unreadable:{exc.errno}".encode()


Signature = tuple[int, int, int, int, int]
"""What a file's hash is kept by: its size, modification and change times, inode and
device."""


def signature(found: os.stat_result) -> Signature:
    return (found.st_size, found.st_mtime_ns, found.st_ctime_ns, found.st_ino, found.st_dev)


class FileDigests:
    """Each file's SHA-256, kept by its `signature` in `store` (as `part/name`) from one
    run to the next, as git's index keeps them: a file whose signature is the one its hash
    was kept with is not read again. A hash is kept only where the file had not changed
    for `RACY_NS` before its stat was taken (`note`): a file written again in the same tick
    of a coarse clock keeps its modification time, but its change time moves, and no
    program can set that. Without a store (or where nothing can be read) every file is
    read, and its hash is kept in memory alone.

    What `save` writes is the hashes this run looked up or noted: a file the run did not
    visit (one removed) is let go."""

    FORMAT = 1

    def __init__(self, store: Store | None = None, part: str = "files", name: str = "") -> None:
        self.store, self.part, self.name = store, part, name or "digests.marshal"
        self._kept: dict[str, tuple] | None = None
        self._now: dict[str, tuple[Signature, bytes]] = {}
        self._changed = False
        self.racy_ns = RACY_NS
        """How long before its stat a file must have last changed for its hash to be kept."""
        self.read = 0
        """Files whose hash was not kept, and were read (for tests and the bench)."""

    def _known_map(self) -> dict[str, tuple]:
        if self._kept is None:
            self._kept = {}
            data = self.store.read(self.part, self.name) if self.store is not None else None
            with contextlib.suppress(ValueError, EOFError, TypeError):
                kept = marshal.loads(data) if data is not None else None
                if isinstance(kept, tuple) and len(kept) == 2 and kept[0] == self.FORMAT:
                    self._kept = kept[1] if isinstance(kept[1], dict) else {}
        return self._kept

    def known(self, path: str, found: os.stat_result) -> bytes | None:
        """The hash kept of the file at `path`, whose stat is `found`; None where none is
        kept with its signature."""
        now = self._now.get(path)
        was: object = now if now is not None else self._known_map().get(path)
        if not (isinstance(was, tuple) and len(was) == 2 and was[0] == signature(found)):
            return None
        digest = was[1]
        if not (isinstance(digest, bytes) and len(digest) == 32):
            return None
        self._now[path] = (was[0], digest)
        return digest

    def note(self, path: str, found: os.stat_result, digest: bytes, before_ns: int) -> None:
        """The hash of the file at `path`, read after its stat `found` was taken, which was
        after `before_ns`: kept where the file had settled by then."""
        self.read += 1
        if max(found.st_mtime_ns, found.st_ctime_ns) < before_ns - self.racy_ns:
            self._now[path] = (signature(found), digest)
            self._changed = True

    def noted(self) -> dict[str, tuple[Signature, bytes]]:
        """What this run looked up and noted (a worker's, for the process that keeps them)."""
        return dict(self._now)

    def adopt(self, noted: dict[str, tuple[Signature, bytes]]) -> None:
        """What a worker looked up and noted, as this run's own."""
        self._now.update(noted)
        self._changed = self._changed or bool(noted)

    def save(self) -> None:
        """Keep what this run looked up and noted for the next, where it differs from what
        was kept."""
        if self.store is None or not self.store.on_disk:
            return
        if not self._changed and self._now.keys() == self._known_map().keys():
            return
        self.store.write(self.part, self.name, marshal.dumps((self.FORMAT, self._now)))
        self._kept, self._now, self._changed = dict(self._now), {}, False


@cache
def code() -> str:
    """sourcebook's own files, by content: another version makes every kept value anew."""
    return fingerprint(Path(__file__).resolve().parent.parent)
