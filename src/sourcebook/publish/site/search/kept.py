"""What the last search index was made of, kept for the next (see `buckets.py`): the
names of its buckets, each a digest of what it holds, and where it was. `serve` keeps it
in memory from save to save; `build` in the record's state folder, beside the last site.

Only a bucket this user's own build made is kept: a folder of the same name that arrived
with a site (copied, committed) is made again.
"""

from __future__ import annotations

import contextlib
import marshal
from dataclasses import dataclass
from pathlib import Path

from sourcebook.files import write_atomic
from sourcebook.read.kept import code
from sourcebook.read.state import state_folder

_PART = "search"
_FILE = "index.marshal"
_FORMAT = 1


@dataclass
class Kept:
    names: frozenset[str] = frozenset()
    """The buckets the last index made or kept."""
    folder: Path | None = None
    """Where that index is, for a bucket to be linked from where it is not in the folder
    being written."""

    @classmethod
    def load(cls, root: Path) -> Kept:
        """As the last `build` of the record at `root` kept it; empty where that cannot be
        read, or was kept by another version."""
        folder = state_folder(root, _PART)
        try:
            assert folder is not None
            header, names, where = marshal.loads((folder / _FILE).read_bytes())
            assert header == (_FORMAT, code())
            return cls(frozenset(names), Path(where) if where else None)
        except (AssertionError, OSError, ValueError, EOFError, TypeError):
            return cls()

    def save(self, root: Path) -> None:
        folder = state_folder(root, _PART)
        if folder is None:
            return
        where = str(self.folder) if self.folder is not None else ""
        data = ((_FORMAT, code()), sorted(self.names), where)
        with contextlib.suppress(OSError, ValueError):
            write_atomic(folder / _FILE, marshal.dumps(data))
