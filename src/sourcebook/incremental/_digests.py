"""Digests of what pages read, equal wherever the values are equal, in any process.

The site's memo (`SiteMemo`) is kept on disk from one `build` to the next, so
what its pages read is kept as digests, not objects. A digest is made of a value's
canonical text: a dict's or a set's entries sorted, a model's or dataclass's fields in
order, each composite value digested once (a tree of digests, as git's). `pickle` would be
faster, but its bytes depend on how objects are shared and on the order of sets, which
changes from process to process.

Only the direction that matters is guaranteed: values that differ never have the same
digest. A value whose text cannot be trusted to tell it (an object shown by its address)
gets a digest of its own that matches nothing, so the page that read it is written again.
"""

from __future__ import annotations

import enum
import hashlib
import os
from array import array
from dataclasses import fields as fields_of
from dataclasses import is_dataclass
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

from pydantic import BaseModel

_PLAIN = frozenset({str, int, float, bool, type(None), bytes, date, datetime, time, Decimal})


class Digester:
    """Digests of the values of one snapshot; each composite object is digested once, by
    its identity, so the objects are held until this is let go."""

    def __init__(self) -> None:
        self._memo: dict[int, str] = {}
        self._held: list[Any] = []

    def digest(self, value: Any) -> bytes:
        """The value's digest: 16 bytes of SHA-256, as values no one chose to collide."""
        return hashlib.sha256(self._text(value).encode("utf-8", "surrogatepass")).digest()[:16]

    def _text(self, value: Any) -> str:
        kind = type(value)
        if kind in _PLAIN:
            return repr(value)
        known = self._memo.get(id(value))
        if known is not None:
            return known
        name = f"{kind.__module__}.{kind.__qualname__}"
        if isinstance(value, enum.Enum):
            text = f"{name}.{value.name}"
        elif isinstance(value, list | tuple):
            text = f"{name}[{','.join(map(self._text, value))}]"
        elif isinstance(value, dict):
            entries = sorted(f"{self._text(k)}:{self._text(v)}" for k, v in value.items())
            text = f"{name}{{{','.join(entries)}}}"
        elif isinstance(value, set | frozenset):
            text = f"{name}{{{','.join(sorted(map(self._text, value)))}}}"
        elif isinstance(value, BaseModel):
            fields = [*value.__dict__.items(), *(value.__pydantic_extra__ or {}).items()]
            text = f"{name}({','.join(f'{k}={self._text(v)}' for k, v in fields)})"
        elif is_dataclass(value):
            # a field that equality leaves out (a cache, a version) makes no other value
            shown = [
                f"{f.name}={self._text(getattr(value, f.name))}"
                for f in fields_of(value)
                if f.compare
            ]
            text = f"{name}({','.join(shown)})"
        elif isinstance(value, array):
            text = f"{name}({value.typecode}:{value.tobytes().hex()})"
        else:
            text = repr(value)
            if " at 0x" in text:  # shown by its address: equal to nothing
                text = os.urandom(16).hex()
            text = f"{name}:{text}"
        digest = "#" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        self._memo[id(value)] = digest
        self._held.append(value)
        return digest
