"""The site's memo: the last site a build wrote and what each of its pages read.

`serve` holds it in memory from save to save (it writes into the site it serves, in
place); `build` keeps it in the record's state folder from run to run (it writes a copy and
swaps it in whole). What a site made is, and how it is compared with the next build's, is
the site's own (`publish.site.kept_site`): this keeps it, as plain values the site gives
and reads back, under a header of its format and sourcebook's own code, so that a site
kept by another version is not read.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from sourcebook.incremental._fingerprint import code
from sourcebook.incremental._store import Store

T = TypeVar("T")

_PART = "site"
_FILE = "site.marshal"
_FORMAT = 2
UNREADABLE = (AssertionError, OSError, ValueError, EOFError, TypeError, IndexError, KeyError)
"""What reading a kept site that is not whole, or not of this version, raises: it is not
used, and the next build writes the site whole."""


@runtime_checkable
class Ready(Protocol):
    """What makes now, while `serve` waits for an edit, what the next run would make first."""

    def ready(self) -> None: ...


class SiteMemo(Generic[T]):
    """The last site written (a `T`, the site's own description of it), kept in `store`;
    `in_place`: the next build writes into that site rather than a copy of it."""

    def __init__(self, store: Store | None = None, in_place: bool = True) -> None:
        self.store = store or Store.memory()
        self.in_place = in_place
        self._last: T | None = None
        self._plain: Any = None
        """What the store held, until it is looked up and read."""
        self._to_plain: Callable[[T], Any] | None = None

    @classmethod
    def open(cls, store: Store) -> SiteMemo[T]:
        """The site the last `build` kept in `store`; none where it cannot be read, or was
        kept by another version."""
        memo: SiteMemo[T] = cls(store, in_place=False)
        data = store.read(_PART, _FILE)
        try:
            assert data is not None
            header, plain = marshal.loads(data)
            assert header == (_FORMAT, code())
            memo._plain = plain
        except UNREADABLE:
            pass
        return memo

    @property
    def found(self) -> bool:
        """Whether a last site is kept."""
        return self._last is not None or self._plain is not None

    def lookup(self, read: Callable[[Any], T]) -> T | None:
        """The last site written: as it was made, or read by `read` of its plain values;
        None where none is kept, or `read` cannot read it."""
        if self._last is None and self._plain is not None:
            plain, self._plain = self._plain, None
            try:
                self._last = read(plain)
            except UNREADABLE:
                self._last = None
        return self._last

    def ready(self) -> None:
        """Have the last site written make now what the next build would first make of it
        (where it says how: `Ready`)."""
        if isinstance(self._last, Ready):
            self._last.ready()

    def forget(self) -> None:
        """Keep nothing (the site is being written, and is not whole until it is done)."""
        self._last = self._plain = None

    def record(self, made: T, plain: Callable[[T], Any]) -> None:
        """`made` is the last site written; `plain` makes plain values of it to keep."""
        self._last, self._plain, self._to_plain = made, None, plain

    def commit(self) -> None:
        """Write the last site into the store, whole or not at all, where it is on disk."""
        if not self.store.on_disk or self._last is None or self._to_plain is None:
            return
        try:
            data = marshal.dumps(((_FORMAT, code()), self._to_plain(self._last)))
        except ValueError:
            return
        self.store.write(_PART, _FILE, data)
