"""The read record: every entity by kind and id, the settings, and the Library's items."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from sourcebook.model.base import Entity
from sourcebook.model.kinds import KINDS
from sourcebook.model.library import Library
from sourcebook.model.settings import Settings
from sourcebook.model.watch import WatchLog

T = TypeVar("T")
_NONE = object()


@dataclass
class Record:
    root: Path
    settings: Settings
    entities: dict[str, dict[str, Entity]] = field(
        default_factory=lambda: {k.name: {} for k in KINDS}
    )
    broken: set[tuple[str, str]] = field(default_factory=set)
    """(kind, id) of files that exist but could not be read: not reported again as unknown."""
    read_as: dict[tuple[str, str], bytes] = field(default_factory=dict)
    """The hash of what each entity was read from (its file's text and path), for the
    stages that keep what they made of it from run to run (`incremental.Memo`)."""
    withheld: dict[tuple[str, str], date] = field(default_factory=dict)
    """For a record cut to what was known on a day (`model/known.py`): each entity left out
    as not yet known, and the day it is known from. A reference to one is no error: the
    site shows its words without a link."""
    library: Library = field(init=False)
    """The archived copies of the sources in library/; empty where there is none."""
    watch: WatchLog = field(default_factory=WatchLog)
    """What `sourcebook watch` saw of the sources' addresses on the live web (watch/)."""
    _keys: dict[str, str] | None = field(default=None, init=False, repr=False, compare=False)
    _once: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.library = Library(self.root / "library", "library")

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if name not in ("_keys", "_once") and self.__dict__.get("_once"):
            self._once = {}  # a record given other parts means other things

    def once(self, meaning: str, make: Callable[[Record], T]) -> T:
        """What `make` computes of this record, computed once while the record is as it is
        (adding an entity or setting a part forgets it): a meaning every stage reads, such
        as the known-day clock (`model/known.py`), is not computed again by each. `meaning`
        names it; what is given is shared and must not be changed."""
        found = self._once.get(meaning, _NONE)
        if found is _NONE:
            found = self._once[meaning] = make(self)
        return found  # type: ignore[no-any-return]

    def has_once(self, meaning: str) -> bool:
        """Whether `once` holds `meaning` of this record as it is."""
        return meaning in self._once

    def get(self, kind: str, entity_id: str) -> Entity | None:
        return self.entities.get(kind, {}).get(entity_id)

    def cited(self, name: str) -> str:
        """The id of the source a citation `[@name]` names: the source of that id, else the
        one whose `citation_key` it is; `name` itself where none is (reported as unknown)."""
        if name in self.entities.get("source", {}):
            return name
        return self.citation_keys().get(name, name)

    def citation_keys(self) -> dict[str, str]:
        """Each source's citation key that is not its id, to that source's id; where two
        sources give one key, the first by id."""
        if self._keys is None:
            self._keys = {}
            for source in self.of("source"):
                key = getattr(source, "citation_key", None)
                if key and key != source.id:
                    self._keys.setdefault(key, source.id)
        return self._keys

    def entities_keys(self) -> list[tuple[str, str]]:
        """(kind, id) of every entity."""
        return [(kind, i) for kind, table in self.entities.items() for i in table]

    def of(self, kind: str) -> list[Entity]:
        """Entities of a kind in id order (a list of one's own: sorted once while the record
        is as it is, as every stage asks, some hundreds of times a build)."""
        return list(self.once(f"entities of {kind}", partial(_in_id_order, kind)))

    def __iter__(self) -> Iterator[Entity]:
        for kind in KINDS:
            yield from self.of(kind.name)

    def __len__(self) -> int:
        return sum(len(t) for t in self.entities.values())

    def add(self, entity: Entity) -> None:
        self.entities.setdefault(entity.KIND, {})[entity.id] = entity
        self._keys = None
        self._once = {}

    def has_drafts(self) -> bool:
        return any(entity.draft for entity in self)

    def without_drafts(self) -> Record:
        """The record as published: the same, less every entity marked `draft: true` and
        every reference to one (see `drafts.without_refs_to`)."""
        from sourcebook.model.drafts import without_refs_to

        drafts: dict[str, set[str]] = {}
        for entity in self:
            if entity.draft:
                drafts.setdefault(entity.KIND, set()).add(entity.id)
        kept = Record(self.root, self.settings, broken=set(self.broken))
        kept.library = self.library
        kept.watch = self.watch
        kept.withheld = dict(self.withheld)
        # an entity as published is its file's and the drafts' it leaves out: read as both
        left_out = repr(sorted((kind, sorted(ids)) for kind, ids in drafts.items())).encode()
        for entity in self:
            if not entity.draft:
                kept.add(without_refs_to(entity, drafts))
                read_as = self.read_as.get(entity.key)
                if read_as is not None:
                    kept.read_as[entity.key] = hashlib.sha256(read_as + left_out).digest()
        return kept


def _in_id_order(kind: str, record: Record) -> list[Entity]:
    table = record.entities.get(kind, {})
    return [table[i] for i in sorted(table)]
