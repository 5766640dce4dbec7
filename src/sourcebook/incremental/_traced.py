"""Traced inputs: what the pages read, noted by the reading itself.

A page of the site records what it reads because every read goes through one of these:

- the record (`TracedRecord`): an entity asked for by kind and id is noted as
  `("entity", kind, id)`, a list of a kind as `("kind", kind)`;
- an entity's fields (`read_field`, and a template's `a.b`, which the site's template
  environments note by `note_attribute`): its body as `("body", kind, id)`, its title as
  `("title", kind, id)`, any other field as `("entity", kind, id)`;
- a `Table`: one input of the pages by key (what derive computed of each row, what check
  proved of each source's quotes, a Library item, what refers to an entity, …): a read of
  the entry under `key` is noted as the table's name followed by the key.

A part of the site never names a token: it reads, and the engine notes what it read. The
next build finds what an edit changed by comparing the same inputs entry by entry
(`compared_digests`, and the site's `Snapshot` for the record's entities), so that what a
page may read and what a build can find changed are named in one place, the table.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Iterator, Mapping
from typing import Any, Generic, NamedTuple, TypeVar

from sourcebook.incremental._digests import Digester
from sourcebook.incremental._reads import READS, Token
from sourcebook.model.base import Entity
from sourcebook.model.library import Library
from sourcebook.model.record import Record

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

BODY = "body"


ALONE = {BODY: BODY, "title": "title"}
"""The fields noted apart from the rest, each as a token of its own name: a page that lists
entities by title is not written again for an edit of a body, or of any field but the title."""


def read_field(entity: Entity, name: str) -> Any:
    """The field `name` of `entity`, noted as read (its body and its title each apart from
    the rest: `ALONE`)."""
    READS.note((ALONE.get(name, "entity"), *entity.key))
    return getattr(entity, name)


def read_fields(entity: Entity, **dump: Any) -> dict[str, Any]:
    """Every field of `entity` but its body, as data (`model_dump(**dump)`), noted as read."""
    READS.note(("entity", *entity.key))
    return entity.model_dump(**dump)


_OPEN = READS.open_pages()


def note_attribute(obj: Any, name: str) -> None:
    """Note a template's `obj.name` as read, where `obj` is an entity (the site's template
    environments call this for every attribute a template reads: it costs a test where no
    page is open)."""
    if _OPEN and isinstance(obj, Entity):
        _OPEN[-1].add((ALONE.get(name, "entity"), obj.KIND, obj.id))


UNCOMPARED: Token = ("uncompared",)
"""Noted by a read of what no build compares part by part: the Library as a whole (its
copies, their texts), which a build reads through its own table (`("library", shelf)`).
What read it is made again at each build."""


class TracedRecord(Record):
    """The record as the site's pages read it: each entity they ask for is noted."""

    @property
    def library(self) -> Library:
        READS.note(UNCOMPARED)
        return self.__dict__["library"]  # type: ignore[no-any-return]

    @library.setter
    def library(self, library: Library) -> None:
        self.__dict__["library"] = library

    @classmethod
    def of_record(cls, record: Record) -> TracedRecord:
        traced = cls.__new__(cls)
        traced.__dict__.update(record.__dict__)
        return traced

    def untraced(self) -> Record:
        """The same record, read without noting (for a part that notes what it reads by
        finer reads of its own)."""
        plain = Record.__new__(Record)
        plain.__dict__.update(self.__dict__)
        return plain

    def get(self, kind: str, entity_id: str) -> Entity | None:
        READS.note(("entity", kind, entity_id))
        return super().get(kind, entity_id)

    def of(self, kind: str) -> list[Entity]:
        READS.note(("kind", kind))
        return super().of(kind)

    def entities_keys(self) -> list[tuple[str, str]]:
        READS.note_all([("kind", kind) for kind in self.entities])
        return super().entities_keys()


def _as_key(key: Any) -> tuple[Any, ...]:
    return key if isinstance(key, tuple) else (key,)


class Table(Generic[K, V]):
    """One input of the pages, by key. `name`: the words a read of it is noted by, before
    its key. `entries`: the values (or what lists them when asked); `make`: where given,
    what makes the value of one key when a page asks for it, and then `entries` (if any)
    is only what the next build compares. A table without entries is compared by what its
    values are made from: the record's entities and links (the site's `Snapshot`).
    `version`: where given, a digest of all its entries hold (derive's parts: the version of
    what derive gave): where the last build's table of the same name had the same version,
    its entries are known equal to the last's, and are not compared."""

    def __init__(
        self,
        name: tuple[str, ...],
        entries: Mapping[K, V] | Callable[[], Mapping[K, V]] | None = None,
        make: Callable[[K], V] | None = None,
        version: bytes = b"",
    ):
        assert entries is not None or make is not None, "entries, or how to make one"
        self.name = name
        self._entries = entries
        self._make = make
        self.version = version

    @property
    def compared(self) -> bool:
        """Whether the next build compares this table by its entries."""
        return self._entries is not None

    def token(self, key: K) -> Token:
        return (*self.name, *_as_key(key))

    def get(self, key: K, default: V | None = None) -> V | None:
        """The entry under `key`, noted as read; `default` where there is none."""
        READS.note(self.token(key))
        if self._make is not None:
            return self._make(key)
        return self._mapping().get(key, default)

    def __getitem__(self, key: K) -> V:
        READS.note(self.token(key))
        if self._make is not None:
            return self._make(key)
        return self._mapping()[key]

    def _mapping(self) -> Mapping[K, V]:
        """The entries as they are now (listed anew each time where a callable lists them)."""
        entries = self._entries() if callable(self._entries) else self._entries
        assert entries is not None
        return entries

    def entries(self) -> Iterator[tuple[Token, V]]:
        """Each entry with the token a read of it is noted by."""
        return ((self.token(key), value) for key, value in self._mapping().items())


def compared_digests(
    tables: list[Table[Any, Any]],
    digester: Digester,
    last_values: Mapping[Token, Any] | None = None,
    last_digests: Mapping[Token, bytes] | None = None,
    values: dict[Token, Any] | None = None,
    last_versions: Mapping[tuple[str, ...], Versioned] | None = None,
    versions: dict[tuple[str, ...], Versioned] | None = None,
) -> dict[Token, bytes]:
    """The digest of every entry of the tables a build compares by their entries, by its
    token: the last build's (`last_digests`) where its value (`last_values`, this process's
    last build's) was equal, so that what did not change is not digested again; a value
    that differs from it is not digested either, but given a digest no other value has (it
    changed: that is all the next comparison asks, and a build in this process compares it
    by its value again). `values`, where given, is filled with each entry's value, for the
    next build to compare. `last_versions`: the last build's tables that have a version
    (see `Table`), with their tokens, by name: a table of the same version is taken as it
    was, its entries neither listed nor compared; `versions`, where given, is filled with
    this build's."""
    was = last_values or {}
    digests = last_digests or {}
    found: dict[Token, bytes] = {}
    for table in tables:
        if not table.compared:
            continue
        last = (last_versions or {}).get(table.name)
        if _same_version(table, last, digests):
            assert last is not None
            for token in last.tokens:
                found[token] = digests[token]
            if values is not None:  # its values, for the next build in this process
                if all(token in was for token in last.tokens):
                    values.update((token, was[token]) for token in last.tokens)
                else:  # the last build's read back from the state folder: listed, not digested
                    values.update(table.entries())
            if versions is not None:
                versions[table.name] = last
            continue
        listed: list[Token] = []
        for token, value in table.entries():
            listed.append(token)
            if values is not None:
                values[token] = value
            known = digests.get(token)
            if known is None or token not in was:
                found[token] = digester.digest(value)
            else:
                found[token] = known if was[token] == value else os.urandom(len(known))
        if versions is not None and table.version:
            versions[table.name] = Versioned(table.version, tuple(listed))
    return found


def _same_version(
    table: Table[Any, Any], last: Versioned | None, digests: Mapping[Token, bytes]
) -> bool:
    """Whether `table` is of the version it was last, whose every entry's digest is known."""
    if last is None or not table.version or last.version != table.version:
        return False
    return all(token in digests for token in last.tokens)


class Versioned(NamedTuple):
    """A table of a version (see `Table`), with the tokens of its entries."""

    version: bytes
    tokens: tuple[Token, ...]
