"""Stage 1, read: record files in, typed entities out, each value with its file:line:col.

The package's two names are imported where first asked for: `check` of an unchanged
record uses only `read.paths` (and the `incremental` engine's fingerprint and store), and
need not load the models."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sourcebook.read.record import read_record
    from sourcebook.read.settings import RecordError

__all__ = ["RecordError", "read_record"]


def __getattr__(name: str) -> Any:
    if name == "read_record":
        from sourcebook.read.record import read_record

        return read_record
    if name == "RecordError":
        from sourcebook.read.settings import RecordError

        return RecordError
    raise AttributeError(f"module 'sourcebook.read' has no attribute {name!r}")
