"""Normalized texts, cached by the SHA-256 of the text they come from, and the quotes
found in them.

An item's text is normalized once; later checks read the result back. The cache is one
SQLite file named for the normalization's version, in the record's git-ignored
.sourcebook-cache/library/: one file rather than one per text, because creating many
small files costs more than normalizing them on some file systems, and SQLite's locking
lets two checks share it. Its tables: `texts` (normalized text and page offsets by the
SHA-256 of the text) and `proofs` (for each source's set of texts, by their SHA-256, the
quotes found in them and where). Each text file's SHA-256 is read's (`Library.texts`).
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from sourcebook.incremental import Store
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
    """What a check keeps for the next, in SQLite files: normalized texts by SHA-256, and
    where each quote was found in each set of texts.

    `folder` None, or a folder that cannot be written, keeps nothing.
    """

    def __init__(self, folder: Path | None):
        self.hits = 0
        self.misses = 0
        index = f"index-n{NORMALIZATION_VERSION}-s{_INDEX_VERSION}.sqlite"
        self._db = _open(folder / index, _INDEX) if folder else None
        texts = f"texts-n{NORMALIZATION_VERSION}-s{_TEXTS_VERSION}.sqlite"
        self._texts_path = folder / texts if folder else None
        self._texts: sqlite3.Connection | None = None
        self._proofs: dict[str, dict[str, list]] = {}
        self._stored_proofs: dict[str, str] = {}
        if self._db is not None:
            self._stored_proofs = dict(self._db.execute("SELECT key, found FROM proofs"))
        self._new_texts: list[tuple[str, str, str]] = []
        self._new_proofs: set[str] = set()
        self._pending = 0

    @classmethod
    def for_record(cls, root: Path) -> TextCache:
        return cls(Store.of(root).folder("library"))

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
        if self._db is not None and self._new_proofs:
            with contextlib.suppress(sqlite3.Error), self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO proofs VALUES (?, ?)",
                    [(key, json.dumps(self._proofs[key])) for key in self._new_proofs],
                )
        self._new_texts, self._pending = [], 0
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


_TEXTS_VERSION = 2
_INDEX_VERSION = 3
"""Bump the version of a file when its table below changes: an older file is then left
aside, not misread."""
_FLUSH_CHARACTERS = 50_000_000
"""Normalized text held back before it is written: enough to write in few transactions,
little enough to keep a cold check's memory small."""
_TEXTS = "CREATE TABLE IF NOT EXISTS texts (sha256 TEXT PRIMARY KEY, pages TEXT, text TEXT);"
_INDEX = "CREATE TABLE IF NOT EXISTS proofs (key TEXT PRIMARY KEY, found TEXT);"


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
