"""A stage's memo: what it made of each entity, kept from one run to the next.

A stage that makes the same result from the same input (front matter parsed from a file's
text, the names found in a field's prose) records each result under its key, the hash of
everything it depends on: the input, how it is shown in diagnostics, whatever else the
stage reads, and sourcebook's own code (`key_of`). The next run looks a result up by that
key, so an unchanged file is not parsed again; a changed one has another key and is made
anew. Nothing is trusted beyond that: results are `marshal` data (plain values, read back
without running anything) in the record's sealed state folder (`Store`); a kept file that
cannot be read is ignored, and each result is read back into fresh objects, so that no run
can change what another is given.

`serve` keeps one `Memo` of each stage in memory from save to save, and may hold the
objects made of a result too (`hold`); `build` and `check` open it from the state folder
and commit only what the run used, so the file holds one record's worth of results, not
those of every past edit.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import marshal
from collections.abc import Callable, Hashable, Iterable, Mapping
from functools import partial
from typing import Any, Protocol, TypeVar

from sourcebook.incremental._fingerprint import code
from sourcebook.incremental._store import Store

_FILE = "kept.marshal"

T = TypeVar("T")


class _Keyed(Protocol):
    @property
    def key(self) -> Hashable: ...


E = TypeVar("E", bound=_Keyed)


def key_of(*inputs: str | bytes) -> bytes:
    """The key of a value: the hash of all it depends on, with sourcebook's own code."""
    digest = _begun(code()).copy()
    for part in inputs:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little") + data)
    return digest.digest()


@functools.lru_cache(maxsize=4)
def _begun(code: str) -> hashlib._Hash:
    """The hash begun with sourcebook's own code, `code`, copied for each key (a key is
    made for every entity at every stage)."""
    return hashlib.sha256(code.encode())


class Memo:
    """One stage's results by key (see `key_of`), kept in `store` under `part`."""

    def __init__(
        self,
        part: str,
        store: Store | None = None,
        entries: dict[bytes, bytes] | None = None,
        recording: bool = False,
        holding: bool = False,
    ):
        self.part = part
        self.store = store or Store.memory()
        self._entries = entries or {}
        self._used: dict[bytes, bytes] = {}
        self.recorded: list[tuple[bytes, Any]] | None = [] if recording else None
        """Where asked for (in a worker, whose process ends with it): each result recorded,
        for the process that keeps them."""
        self._held: dict[bytes, Any] | None = {} if holding else None
        self._held_used: dict[bytes, Any] = {}
        """Where asked for (`serve`, from save to save in one process): each result as the
        objects made of it, for a stage whose results no run changes (`hold`)."""
        self._each: dict[bytes, dict[Hashable, tuple[bytes, Any]]] = {}
        self._each_used: dict[bytes, dict[Hashable, tuple[bytes, Any]]] = {}
        """Where this holds objects: each result `each` gave, by what it was made under and
        the entity's key, with what the entity was read from."""
        self.hits = 0
        self.misses = 0
        """Results found, and not found, since this was made (for the bench and tests)."""

    @property
    def holding(self) -> bool:
        """Whether this holds the objects made from run to run (`serve`'s)."""
        return self._held is not None

    @classmethod
    def open(cls, store: Store, part: str) -> Memo:
        """The results `store` keeps of `part`; none where they cannot be read."""
        data = store.read(part, _FILE)
        try:
            entries = marshal.loads(data) if data is not None else {}
        except (ValueError, EOFError, TypeError):
            entries = {}
        if not isinstance(entries, dict) or not all(
            isinstance(k, bytes) and isinstance(v, bytes) for k, v in entries.items()
        ):
            entries = {}
        return cls(part, store, entries)

    def lookup(self, key: bytes) -> Any | None:
        """The result recorded under `key`, as fresh plain values; None where there is none."""
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

    def lookup_as(self, key: bytes, read: Callable[[Any], T | None]) -> T | None:
        """The result under `key` as objects: those held where this holds them, else made
        by `read` of the plain values recorded (and held for the next run); None where there
        is none, or `read` finds the values are not what it reads."""
        found: T | None = self.held(key)
        if found is None:
            plain = self.lookup(key)
            found = read(plain) if plain is not None else None
            if found is not None:
                self.hold(key, found)
        return found

    def made(
        self, key: bytes | None, read: Callable[[Any], T | None], make: Callable[[], Any]
    ) -> T:
        """The result under `key` as `read` reads it (`lookup_as`); where there is none, the
        plain values `make` makes, recorded and held under `key` (where there is one: a
        value of nothing kept is only made) and read as a kept one is."""
        found = self.lookup_as(key, read) if key is not None else None
        if found is None:
            plain = make()
            found = read(plain)
            assert found is not None, "what `make` makes is what `read` reads"
            if key is not None:
                self.record(key, plain)
                self.hold(key, found)
        return found

    def each(
        self,
        under: bytes,
        entities: Iterable[E],
        read_as: Mapping[Any, bytes],
        read: Callable[[Any], T | None],
        make: Callable[[E], Any],
    ) -> list[T]:
        """For each of `entities`, in order, its result as `made` gives it under the key of
        `under` and what the entity was read from (`read_as`, by its `key`; an entity not
        read from a file is only made, `make(entity)`). Where this holds objects (`serve`'s),
        the last run's result of an entity read from the same file under the same `under` is
        given as it is, without its key made or looked up: a save visits an unchanged
        entity's result once, by a lookup of its key."""
        if self._held is None:
            return [
                self._made_of(under, entity, read_as.get(entity.key), read, make)
                for entity in entities
            ]
        last = self._each.get(under, {})
        now: dict[Hashable, tuple[bytes, Any]] = {}
        found: list[T] = []
        for entity in entities:
            source = read_as.get(entity.key)
            was = last.get(entity.key)
            if was is not None and was[0] == source:
                now[entity.key] = was
                found.append(was[1])
                continue
            value = self._made_of(under, entity, source, read, make)
            if source is not None:
                now[entity.key] = (source, value)
            found.append(value)
        self._each_used.setdefault(under, {}).update(now)  # one `under` may be asked in parts
        return found

    def _made_of(
        self,
        under: bytes,
        entity: E,
        source: bytes | None,
        read: Callable[[Any], T | None],
        make: Callable[[E], Any],
    ) -> T:
        """`made` of `entity`, read from `source` (None: from no file, only made)."""
        key = key_of(under, source) if source is not None else None
        return self.made(key, read, partial(make, entity))

    def record(self, key: bytes, value: Any) -> None:
        """Record `value` under `key` (plain values only: one that `marshal` cannot hold is
        not kept)."""
        with contextlib.suppress(ValueError):
            self._used[key] = marshal.dumps(value)
            if self.recorded is not None:
                self.recorded.append((key, value))

    def held(self, key: bytes, carry: bool = True) -> Any | None:
        """The objects last made of the result under `key`, where this holds them (see
        `hold`); None where it does not, or has none. Carried to the next run where
        `carry` (else only where held again)."""
        if self._held is None:
            return None
        value = self._held_used.get(key) or self._held.get(key)
        if value is not None and carry:
            self._held_used[key] = value
            self.carry(key)
        return value

    def held_values(self) -> list[Any]:
        """The objects the last run held (where this holds them), for the next."""
        return list(self._held.values()) if self._held is not None else []

    def hold(self, key: bytes, value: Any) -> None:
        """Hold `value`, objects made of the result under `key` that no one changes, to be
        given as they are to the next run in this process (where this holds objects)."""
        if self._held is not None:
            self._held_used[key] = value

    def carry(self, key: bytes) -> None:
        """Carry the result under `key` to the next run, though this one did not look it up
        (it had the result in hand)."""
        blob = self._entries.get(key)
        if blob is not None:
            self._used[key] = blob

    def commit(self) -> None:
        """What this run used becomes what the next run finds, the rest is let go; written
        to the store, whole or not at all, where it is on disk. A run that used exactly
        what it found writes nothing: a key names its value."""
        same = self._used.keys() == self._entries.keys()
        self._entries, self._used = self._used, {}
        if self._held is not None:
            self._held, self._held_used = self._held_used, {}
            self._each, self._each_used = self._each_used, {}
        if self.store.on_disk and not same:
            self.store.write(self.part, _FILE, marshal.dumps(self._entries))

    def __len__(self) -> int:
        return len(self._entries)
