"""What a stage made of each file, kept from one run to the next.

A stage that makes the same result from the same input (front matter parsed from a file's
text, the names found in a field's prose) keeps each result under the hash of everything
it depends on: the input, how it is shown in diagnostics, whatever else the stage reads,
and sourcebook's own code. The next run looks a result up by that hash, so an unchanged
file is not parsed again; a changed one has another hash and is made anew. Nothing is
trusted beyond that: results are `marshal` data (plain values, read back without running
anything) in the record's sealed state folder (`read.state`); a kept file that cannot be
read is ignored, and each result is read back into fresh objects, so that no run can
change what another is given.

`serve` keeps one `Kept` of each part in memory from save to save; `build` and `check`
read it from the state folder and write back only what the run used, so the file holds
one record's worth of results, not those of every past edit.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from sourcebook.files import write_atomic
from sourcebook.read.fingerprint import fingerprint
from sourcebook.read.state import state_folder

_FILE = "kept.marshal"

T = TypeVar("T")


class Kept:
    """Results by the hash of what they depend on (see `key`)."""

    def __init__(
        self,
        part: str,
        entries: dict[bytes, bytes] | None = None,
        made: bool = False,
        objects: bool = False,
    ):
        self.part = part
        self._entries = entries or {}
        self._used: dict[bytes, bytes] = {}
        self.made: list[tuple[bytes, Any]] | None = [] if made else None
        """Where asked for (in a worker, whose process ends with it): each result put, for
        the process that keeps them."""
        self._objects: dict[bytes, Any] | None = {} if objects else None
        self._objects_used: dict[bytes, Any] = {}
        """Where asked for (`serve`, from save to save in one process): each result as the
        objects made of it, for a stage whose results no run changes (`shared`)."""
        self.hits = 0
        self.misses = 0
        """Results found, and not found, since this was made (for the bench and tests)."""

    @staticmethod
    def key(*parts: str | bytes) -> bytes:
        """The hash of a result's inputs, with sourcebook's own code."""
        digest = hashlib.sha256(code().encode())
        for part in parts:
            data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
            digest.update(len(data).to_bytes(8, "little") + data)
        return digest.digest()

    def get(self, key: bytes) -> Any | None:
        """The result kept under `key`, as fresh objects; None where there is none."""
        blob = self._used.get(key) or self._entries.get(key)
        if blob is None:
            self.misses += 1
            return None
        try:
            value = marshal.loads(blob)
        except (ValueError, EOFError, TypeError):
            self.misses += 1
            return None
        self._used[key] = blob
        self.hits += 1
        return value

    def fetch(self, key: bytes, read: Callable[[Any], T | None]) -> T | None:
        """The result under `key` as objects: those shared where this keeps them, else made
        by `read` of the plain values kept (and shared for the next run); None where there
        is none, or `read` finds the values are not what it reads."""
        found: T | None = self.shared(key)
        if found is None:
            plain = self.get(key)
            found = read(plain) if plain is not None else None
            if found is not None:
                self.share(key, found)
        return found

    def put(self, key: bytes, value: Any) -> None:
        """Keep `value` (plain values only: one that `marshal` cannot hold is not kept)."""
        with contextlib.suppress(ValueError):
            self._used[key] = marshal.dumps(value)
            if self.made is not None:
                self.made.append((key, value))

    def shared(self, key: bytes, retain: bool = True) -> Any | None:
        """The objects last made of the result under `key`, where this keeps them (see
        `share`); None where it does not, or has none. Kept for the next run where `retain`
        (else only where shared again)."""
        if self._objects is None:
            return None
        value = self._objects_used.get(key) or self._objects.get(key)
        if value is not None and retain:
            self._objects_used[key] = value
            self.retain(key)
        return value

    def share(self, key: bytes, value: Any) -> None:
        """Keep `value`, objects made of the result under `key` that no one changes, to be
        given as they are to the next run in this process (where this keeps objects)."""
        if self._objects is not None:
            self._objects_used[key] = value

    def retain(self, key: bytes) -> None:
        """Keep the result under `key` for the next run, though this one did not ask for it
        (it had the result in hand)."""
        blob = self._entries.get(key)
        if blob is not None:
            self._used[key] = blob

    def settle(self) -> None:
        """What this run used becomes what the next run finds; the rest is let go."""
        self._entries, self._used = self._used, {}
        if self._objects is not None:
            self._objects, self._objects_used = self._objects_used, {}

    def __len__(self) -> int:
        return len(self._entries)

    @classmethod
    def load(cls, root: Path, part: str) -> Kept:
        """The results kept in the record's state folder; none where they cannot be read."""
        folder = state_folder(root, part)
        if folder is None:
            return cls(part)
        try:
            entries = marshal.loads((folder / _FILE).read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            return cls(part)
        if not isinstance(entries, dict) or not all(
            isinstance(k, bytes) and isinstance(v, bytes) for k, v in entries.items()
        ):
            return cls(part)
        return cls(part, entries)

    def save(self, root: Path) -> None:
        """Write what this run used into the state folder, whole or not at all, and settle.
        A run that used exactly what it found writes nothing: a key names its value."""
        same = self._used.keys() == self._entries.keys()
        self.settle()
        folder = state_folder(root, self.part) if not same else None
        if folder is not None:
            with contextlib.suppress(OSError):
                write_atomic(folder / _FILE, marshal.dumps(self._entries))


@cache
def code() -> str:
    """sourcebook's own files, by content: another version makes every result anew."""
    return fingerprint(Path(__file__).resolve().parent.parent)
