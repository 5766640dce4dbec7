"""Reads: what each page of a build read, noted as tokens, and the memos pages share.

A build that keeps its site re-renders after an edit only the pages that read something
the edit changed (`SiteMemo`, and the site's `Snapshot` in publish). For that, while a
page renders, everything it reads is noted as a token by the engine it reads through (the
record, an entity's fields, a `Table`: `_traced.py`), a tuple whose first words name what
was read:

- `("entity", kind, id)`: an entity, every field of it but its body;
- `("body", kind, id)`: its body (a page that shows it renders it, and notes that);
- `("url", kind, id)`: where its page is, as a link to it in prose shows it; `("title", kind,
  id)`: its title alone, as a line that names it among many shows it;
- `("out", kind, id)`: what it refers to;
- `("kind", kind)`: which entities of a kind there are, and each of them;
- `("in", kind, id)`: what refers to an entity (its backlinks);
- `("derived", part, …)`: a part of what derive computed (the tables of `Computed`);
- `("read", kind, id, field)`: the names link found in a prose field; `("names",)`: all
  the record's names, for a text link did not read; `("wiki", kind, target)`: what a wiki
  link leads to;
- `("first", chapter)`: the terms a chapter is the first of; `("roles", party)`: the
  campuses that name a party;
- `("proven", id)`: what check proved of a source's quotes; `("library", shelf)`: a
  Library item; `("watched", kind, id)`: a source's addresses as the last watch left them.

What is made once and shared by many pages (a prose field rendered, a citation, a list
item) carries the tokens read while making it to every page that uses it (`Reads.lookup`,
in a `SharedMemo`). Notes are taken only while a page is open (`page`): any other build
pays a test or two.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from sourcebook.model.base import Entity

Token = tuple[Any, ...]
T = TypeVar("T")
_MISSING = object()


class SharedMemo(dict):  # type: ignore[type-arg]
    """A memo of what many pages share, with what making each value read (`Reads.lookup`).

    Carried from build to build (`carry`), it finds the values an edit made stale by the
    tokens the edit changed, through an index of which values read each token: a save
    visits the values that read what it changed, not every value the site shares."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: dict[Any, frozenset[Token]] = {}
        self._readers: dict[Token, set[Any]] | None = None
        """The keys of the values that read each token; made at the first carry from this
        memo, then kept as values are noted (`note`) and carried."""

    def clear(self) -> None:
        super().clear()
        self.reads.clear()
        self._readers = None

    def note(self, key: Any, value: Any, read: frozenset[Token]) -> None:
        """Hold `value` under `key`, made by reading `read`."""
        self[key] = value
        was = self.reads.get(key)
        self.reads[key] = read
        if self._readers is not None:
            if was is not None:
                self._unindex(key, was)
            for token in read:
                self._readers.setdefault(token, set()).add(key)

    def subset(self, keys: Iterable[Any]) -> SharedMemo:
        """The values under `keys` that this holds, with what each read."""
        found = SharedMemo()
        for key in keys:
            if key in self:
                found[key] = self[key]
                if key in self.reads:
                    found.reads[key] = self.reads[key]
        return found

    def take(self, other: SharedMemo) -> None:
        """Take in `other`'s values, with what each read (made in another process)."""
        self.update(other)
        for key, read in other.reads.items():
            self.note(key, other[key], read)

    def carry(self, last: SharedMemo, changed: set[Token]) -> None:
        """Take from the last build's memo each value that read nothing `changed` (`last`
        gives its index of readers up to this one)."""
        if self.reads:  # values of its own: each of the last's compared with them
            for key, read in last.reads.items():
                if read.isdisjoint(changed):
                    self.note(key, last[key], read)
            return
        readers = last._index()
        stale: set[Any] = set()
        for token in changed:
            stale.update(readers.get(token, ()))
        if 2 * len(stale) > len(last.reads):  # most of it (a new name): take the rest
            for key, read in last.reads.items():
                if key not in stale:
                    self[key] = last[key]
                    self.reads[key] = read
            last._readers = None  # made again from what this holds, at its first carry
            return
        if len(last) == len(last.reads):
            self.update(last)
        else:  # a value made with no page open read nothing noted: it is not carried
            self.update({key: last[key] for key in last.reads})
        self.reads.update(last.reads)
        for key in stale:
            del self[key], self.reads[key]
            self._unindex(key, last.reads[key], readers)
        self._readers, last._readers = readers, None

    def ready(self) -> None:
        """Make the index of which values read each token now, where it is not made: the
        next build's `carry` from this memo looks it up (`serve` makes it while it waits
        for an edit, not after one)."""
        self._index()

    def _index(self) -> dict[Token, set[Any]]:
        if self._readers is None:
            readers: dict[Token, set[Any]] = {}
            for key, read in self.reads.items():
                for token in read:
                    readers.setdefault(token, set()).add(key)
            self._readers = readers
        return self._readers

    def _unindex(
        self, key: Any, read: frozenset[Token], readers: dict[Token, set[Any]] | None = None
    ) -> None:
        index = readers if readers is not None else self._readers
        assert index is not None
        for token in read:
            keys = index.get(token)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del index[token]


class Reads:
    """The tokens read by the page being rendered, and by what it shares with others."""

    def __init__(self) -> None:
        self._open: list[set[Token]] = []

    def open_pages(self) -> list[set[Token]]:
        """What each page open now has read, innermost last (the list itself, for a reader
        that tests it on every attribute a template reads: empty while none is open)."""
        return self._open

    def note(self, token: Token) -> None:
        if self._open:
            self._open[-1].add(token)

    def note_all(self, tokens: Iterator[Token] | list[Token] | frozenset[Token]) -> None:
        if self._open:
            self._open[-1].update(tokens)

    def entity(self, entity: Entity | None) -> None:
        if self._open and entity is not None:
            self._open[-1].add(("entity", *entity.key))

    @contextlib.contextmanager
    def page(self) -> Iterator[set[Token]]:
        """Note what is read inside the block, into the set it yields."""
        found: set[Token] = set()
        self._open.append(found)
        try:
            yield found
        finally:
            self._open.pop()

    def lookup(self, memo: SharedMemo, key: Any, make: Callable[..., T], *args: Any) -> T:
        """`memo[key]`, made by `make(*args)` where missing; what making it read is noted
        for every page that uses it, not only the first. A value made while no page was
        open is made again the first time a page uses it, to learn what it reads."""
        if not self._open:
            found = memo.get(key, _MISSING)
            if found is _MISSING:
                found = memo[key] = make(*args)
            return found  # type: ignore[no-any-return]
        read = memo.reads.get(key)
        if read is not None:
            self._open[-1].update(read)
            return memo[key]  # type: ignore[no-any-return]
        with self.page() as tokens:
            value = make(*args)
        memo.note(key, value, frozenset(tokens))
        self._open[-1].update(tokens)
        return value


READS = Reads()
"""The notes of this process's build (builds in one process run one after another)."""
