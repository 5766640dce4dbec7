"""What each page of a build read: the entities, the backlinks, the derived values.

`serve` re-renders after an edit only the pages that read something the edit changed
(see `kept_site.py`). For that, while a page renders, everything it reads of the record
is noted as a token:

- `("e", kind, id)`: an entity, every field of it but its body;
- `("body", kind, id)`: its body (a page that shows it renders it, and notes that);
- `("url", kind, id)`: where its page is, as a link to it in prose shows it;
- `("out", kind, id)`: what it refers to;
- `("k", kind)`: which entities of a kind there are, and each of them;
- `("in", kind, id)`: what refers to an entity (its backlinks);
- `("d", part, …)`: a part of what derive computed (`Computed` notes which);
- `("read", kind, id, field)`: the names link found in a prose field; `("names",)`: all
  the record's names, for a text link did not read; `("wiki", kind, target)`: what a wiki
  link leads to;
- `("first", chapter)`: the terms a chapter is the first of; `("roles", party)`: the
  campuses that name a party;
- `("p", id)`: what check proved of a source's quotes; `("lib", shelf)`: a Library item.

What is made once and shared by many pages (a prose field rendered, a citation, a list
item) carries the tokens read while making it to every page that uses it (`cached`).
Notes are taken only while a page is open (`page`): any other build pays a test or two.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from sourcebook.model.base import Entity
from sourcebook.model.record import Record

Token = tuple[Any, ...]
T = TypeVar("T")
_MISSING = object()


class Shared(dict):  # type: ignore[type-arg]
    """A cache of what many pages share, with what making each value read (`Reads.cached`)."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: dict[Any, frozenset[Token]] = {}

    def clear(self) -> None:
        super().clear()
        self.reads.clear()

    def subset(self, keys: Iterable[Any]) -> Shared:
        """The values under `keys` that this holds, with what each read."""
        found = Shared()
        for key in keys:
            if key in self:
                found[key] = self[key]
                if key in self.reads:
                    found.reads[key] = self.reads[key]
        return found

    def take(self, other: Shared) -> None:
        """Take in `other`'s values, with what each read (made in another process)."""
        self.update(other)
        self.reads.update(other.reads)

    def carry(self, last: Shared, changed: set[Token]) -> None:
        """Take from the last build's cache each value that read nothing `changed`."""
        for key, read in last.reads.items():
            if read.isdisjoint(changed):
                self[key] = last[key]
                self.reads[key] = read


class Reads:
    """The tokens read by the page being rendered, and by what it shares with others."""

    def __init__(self) -> None:
        self._open: list[set[Token]] = []

    def note(self, token: Token) -> None:
        if self._open:
            self._open[-1].add(token)

    def note_all(self, tokens: Iterator[Token] | list[Token] | frozenset[Token]) -> None:
        if self._open:
            self._open[-1].update(tokens)

    def entity(self, entity: Entity | None) -> None:
        if self._open and entity is not None:
            self._open[-1].add(("e", *entity.key))

    @contextlib.contextmanager
    def page(self) -> Iterator[set[Token]]:
        """Note what is read inside the block, into the set it yields."""
        found: set[Token] = set()
        self._open.append(found)
        try:
            yield found
        finally:
            self._open.pop()

    def cached(self, cache: Shared, key: Any, make: Callable[..., T], *args: Any) -> T:
        """`cache[key]`, made by `make(*args)` where missing; what making it read is noted
        for every page that uses it, not only the first. A value made while no page was
        open is made again the first time a page uses it, to learn what it reads."""
        if not self._open:
            found = cache.get(key, _MISSING)
            if found is _MISSING:
                found = cache[key] = make(*args)
            return found  # type: ignore[no-any-return]
        read = cache.reads.get(key)
        if read is not None:
            self._open[-1].update(read)
            return cache[key]  # type: ignore[no-any-return]
        with self.page() as tokens:
            value = cache[key] = make(*args)
        cache.reads[key] = frozenset(tokens)
        self._open[-1].update(tokens)
        return value


READS = Reads()
"""The notes of this process's build (builds in one process run one after another)."""


class TracedRecord(Record):
    """The record as the site's pages read it: each entity they ask for is noted."""

    @classmethod
    def of_record(cls, record: Record) -> TracedRecord:
        traced = cls.__new__(cls)
        traced.__dict__.update(record.__dict__)
        return traced

    def get(self, kind: str, entity_id: str) -> Entity | None:
        READS.note(("e", kind, entity_id))
        return super().get(kind, entity_id)

    def of(self, kind: str) -> list[Entity]:
        READS.note(("k", kind))
        return super().of(kind)

    def entities_keys(self) -> list[tuple[str, str]]:
        READS.note_all([("k", kind) for kind in self.entities])
        return super().entities_keys()


def context_reads(
    context: dict[str, Any], seen: dict[int, tuple[Any, set[Token]]] | None = None
) -> tuple[str, frozenset[Token]]:
    """A page's context as it can be compared from build to build (each entity by its
    key), and the entities it holds, as tokens. `seen`: what other pages' contexts of the
    same build found of each page they hold (a JSON twin holds its page), to be reused."""
    tokens: set[Token] = set()
    return repr(_shown(context, tokens, set(), seen)), frozenset(tokens)


def _shown(
    value: Any,
    tokens: set[Token],
    inside: set[int],
    seen: dict[int, tuple[Any, set[Token]]] | None = None,
) -> Any:
    if isinstance(value, Entity):
        tokens.add(("e", *value.key))
        return ("entity", *value.key)
    if isinstance(value, str | int | float | bool | type(None)):
        return value
    if isinstance(value, dict):
        return [
            (_shown(k, tokens, inside, seen), _shown(v, tokens, inside, seen))
            for k, v in value.items()
        ]
    if isinstance(value, list | tuple):
        return [_shown(v, tokens, inside, seen) for v in value]
    fields = getattr(value, "__dataclass_fields__", None)  # a Page, a Release
    if fields is None:
        return type(value).__name__  # an object that reads the view when asked (the machine's)
    if id(value) in inside:  # the sitemap, among the pages it lists
        return type(value).__name__
    if seen is not None and not inside and id(value) in seen:  # as it was found before
        shown, held = seen[id(value)]
        tokens |= held
        return shown
    inside.add(id(value))
    own: set[Token] = set()
    shown = (type(value).__name__, [_shown(getattr(value, f), own, inside, seen) for f in fields])
    inside.discard(id(value))
    tokens |= own
    if seen is not None and not inside:
        seen[id(value)] = (shown, own)
    return shown
