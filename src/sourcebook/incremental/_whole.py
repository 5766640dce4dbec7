"""A whole-record memo: one value for a record unchanged since it was recorded.

`sourcebook check` keeps what it found under one key of all it can depend on: every file
of the record by its content (its fingerprint), the inputs the caller adds (the path the
record was given by, the day it is checked as of, today) and sourcebook's own code. The
same key gives the same value, so the second check of an unchanged record looks it up.
Nothing else is trusted: a kept value that cannot be read is ignored; a value is recorded
only where the record's key is still the one it was looked up by (a record that changed
while it was checked keeps nothing); only the latest value is kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from sourcebook.incremental._fingerprint import FileDigests, code, fingerprint
from sourcebook.incremental._store import Store

_HASHES = "files.marshal.hashes"


class RecordMemo:
    """The value last recorded for the record at `root`, under `part` of its store, keyed
    by the record's fingerprint and `inputs`."""

    def __init__(self, root: Path, part: str, *inputs: str) -> None:
        self.root = root
        self.part = part
        self.inputs = inputs
        self.store = Store.of(root)
        self._digests = FileDigests(self.store, part, _HASHES)
        self._key = self._key_now()
        self._digests.save()

    def _key_now(self) -> str:
        said = "\n".join([code(), *self.inputs, repr(os.fsencode(self.root))])
        said += f"\n{fingerprint(self.root, self._digests)}"
        return hashlib.sha256(said.encode()).hexdigest()

    def lookup(self) -> Any | None:
        """The JSON value recorded under the record's key; None where there is none, or it
        cannot be read."""
        data = self.store.read(self.part, f"{self._key}.json")
        if data is None:
            return None
        try:
            return json.loads(data)
        except ValueError:
            return None

    def record(self, value: Any) -> None:
        """Record `value` (JSON) for the record, where it is as it was when looked up; the
        values of earlier keys are let go."""
        if self._key_now() != self._key:
            return
        name = f"{self._key}.json"
        self.store.write(self.part, name, json.dumps(value).encode("ascii"))
        folder = self.store.folder(self.part)
        if folder is None:
            return
        for older in folder.glob("*.json"):
            if older.name != name:
                with contextlib.suppress(OSError):
                    older.unlink(missing_ok=True)
