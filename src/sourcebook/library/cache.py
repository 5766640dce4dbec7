"""Normalized texts, cached by the SHA-256 of the text they come from, and the quotes
found in them.

An item's text is normalized once; later checks read the result back. The cache is one
SQLite file named for the normalization's version, in the record's git-ignored
.sourcebook-cache/library/: one file rather than one per text, because creating many
small files costs more than normalizing them on some file systems, and SQLite's locking
lets two checks share it. Its tables: `texts` (normalized text and page offsets by the
SHA-256 of the text), `files` (each text file's SHA-256 while its size, time and inode
are unchanged) and `proofs` (for each source's set of texts, by their SHA-256, the quotes
found in them and where).
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from sourcebook.incremental import Store, settled_since
from sourcebook.library.extract import PAGE_BREAK
from sourcebook.library.normalize import NORMALIZATION_VERSION, normalize


@dataclass(frozen=True, slots=True)
class Normalized:
    """An item's text, normalized, with the offset at which each page starts."""

    text: str
    page_starts: tuple[int, ...] = (0,)

    def page_at(self, offset: int) -> int:
        """The page (from 1) that holds the character at `offset`."""
        return bisect.bisect_right(self.page_starts, offset)


def normalize_pages(raw: str) -> Normalized:
    """Normalize each page alone and join them with a space, keeping where each starts."""
    if PAGE_BREAK not in raw:
        return Normalized(normalize(raw))
    starts: list[int] = []
    pages: list[str] = []
    offset = 0
    for page in raw.split(PAGE_BREAK):
        starts.append(offset)
        text = normalize(page)
        pages.append(text)
        offset += len(text) + 1
    return Normalized(" ".join(pages), tuple(starts))


class TextCache:
    """What a check keeps for the next, in one SQLite file: normalized texts by SHA-256,
    each text file's SHA-256 by its size, time and inode (so that an unchanged file is
    not read again), and where each quote was found in each set of texts.

    `folder` None, or a folder that cannot be written, keeps nothing.
    """

    def __init__(self, folder: Path | None):
        self.hits = 0
        self.misses = 0
        version = f"n{NORMALIZATION_VERSION}-s{_SCHEMA_VERSION}"
        self._db = _open(folder / f"index-{version}.sqlite", _INDEX) if folder else None
        self._texts_path = folder / f"texts-{version}.sqlite" if folder else None
        self._texts: sqlite3.Connection | None = None
        self._files: dict[str, tuple[int, int, int, str]] = {}
        self._proofs: dict[str, dict[str, list]] = {}
        self._stored_proofs: dict[str, str] = {}
        if self._db is not None:
            self._files = {row[0]: tuple(row[1:]) for row in self._db.execute(_ALL_FILES)}
            self._stored_proofs = dict(self._db.execute("SELECT key, found FROM proofs"))
        self._new_files: list[tuple] = []
        self._settled_ns = settled_since()
        """A file changed since is not known by its stat (see `incremental.FilesSeen`)."""
        self._new_texts: list[tuple[str, str, str]] = []
        self._new_proofs: set[str] = set()
        self._pending = 0

    @classmethod
    def for_record(cls, root: Path) -> TextCache:
        return cls(Store.of(root).folder("library"))

    def text_sha(self, path: str) -> str | None:
        """The SHA-256 of a text file's bytes; None where it cannot be read.

        Files are known by name alone: all lie in the one library folder, which may be
        reached by other paths from other working folders.
        """
        try:
            stat = os.stat(path)
        except OSError:
            return None
        key = os.path.basename(path)
        signature = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
        known = self._files.get(key)
        if known is not None and known[:3] == signature:
            return known[3]
        try:
            with open(path, "rb") as file:
                sha256 = hashlib.sha256(file.read()).hexdigest()
        except OSError:
            return None
        if max(stat.st_mtime_ns, stat.st_ctime_ns) < self._settled_ns:  # else it may change
            self._files[key] = (*signature, sha256)  # again in the same tick, its stat not
            self._new_files.append((key, *signature, sha256))
        return sha256

    def load(self, path: str, sha256: str | None) -> Normalized:
        """The normalized text of the file at `path`, whose bytes have `sha256`."""
        if sha256 is None:
            return Normalized("")
        cached = self._read(sha256)
        if cached is not None:
            return cached
        try:
            with open(path, "rb") as file:
                raw = file.read()
        except OSError:
            return Normalized("")
        return self._normalize(raw, sha256)

    def normalized(self, raw: bytes) -> Normalized:
        """The normalized form of a text given as bytes."""
        sha256 = hashlib.sha256(raw).hexdigest()
        cached = self._read(sha256)
        return cached if cached is not None else self._normalize(raw, sha256)

    def proofs(self, key: str) -> dict[str, list]:
        """Quote text → [shelf, first page, last page, read as an image] for the quotes
        found before in the texts that `key` names."""
        known = self._proofs.get(key)
        if known is None:
            stored = self._stored_proofs.get(key)
            known = json.loads(stored) if stored else {}
            self._proofs[key] = known = known if isinstance(known, dict) else {}
        return known

    def remember(self, key: str, quote: str, found: list) -> None:
        self.proofs(key)[quote] = found
        self._new_proofs.add(key)

    def save(self) -> None:
        """Write what this check learned."""
        if self._new_texts and self._texts_db() is not None:
            with contextlib.suppress(sqlite3.Error), self._texts:  # type: ignore[union-attr]
                self._texts.executemany(  # type: ignore[union-attr]
                    "INSERT OR REPLACE INTO texts VALUES (?, ?, ?)", self._new_texts
                )
        if self._db is not None and (self._new_files or self._new_proofs):
            with contextlib.suppress(sqlite3.Error), self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?)", self._new_files
                )
                self._db.executemany(
                    "INSERT OR REPLACE INTO proofs VALUES (?, ?)",
                    [(key, json.dumps(self._proofs[key])) for key in self._new_proofs],
                )
        self._new_files, self._new_texts, self._pending = [], [], 0
        self._new_proofs = set()

    def close(self) -> None:
        self.save()
        for db in (self._db, self._texts):
            if db is not None:
                db.close()
        self._db = self._texts = None
        self._texts_path = None

    def _texts_db(self) -> sqlite3.Connection | None:
        """The large table of texts, opened only when a text is needed: a warm check of
        an unchanged record never reads it."""
        if self._texts is None and self._texts_path is not None:
            self._texts = _open(self._texts_path, _TEXTS)
            if self._texts is None:
                self._texts_path = None
        return self._texts

    def _normalize(self, raw: bytes, sha256: str) -> Normalized:
        self.misses += 1
        result = normalize_pages(raw.decode("utf-8", errors="replace"))
        if self._texts_path is not None:
            pages = " ".join(map(str, result.page_starts))
            self._new_texts.append((sha256, pages, result.text))
            self._pending += len(result.text)
            if self._pending > _FLUSH_CHARACTERS:
                self.save()
        return result

    def _read(self, sha256: str) -> Normalized | None:
        texts = self._texts_db()
        if texts is None:
            return None
        try:
            row = texts.execute(
                "SELECT pages, text FROM texts WHERE sha256 = ?", (sha256,)
            ).fetchone()
        except sqlite3.Error:
            return None
        if row is None:
            return None
        self.hits += 1
        return Normalized(row[1], tuple(int(s) for s in row[0].split()))


_SCHEMA_VERSION = 2
"""Bump when the tables below change: an older cache is then left aside, not misread."""
_FLUSH_CHARACTERS = 50_000_000
"""Normalized text held back before it is written: enough to write in few transactions,
little enough to keep a cold check's memory small."""
_TEXTS = "CREATE TABLE IF NOT EXISTS texts (sha256 TEXT PRIMARY KEY, pages TEXT, text TEXT);"
_INDEX = """
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, inode INTEGER, sha256 TEXT);
CREATE TABLE IF NOT EXISTS proofs (key TEXT PRIMARY KEY, found TEXT);
"""
_ALL_FILES = "SELECT path, size, mtime_ns, inode, sha256 FROM files"


def _open(path: Path, schema: str) -> sqlite3.Connection | None:
    """A cache database; None where it cannot be made (a read-only checkout).

    Write-ahead logging lets a check read while another writes, and without a sync at
    every commit: a cache lost in a crash is only rebuilt.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path, timeout=60)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(schema)
    except (OSError, sqlite3.Error):
        return None
    return db
