"""What a build wrote and what each of its pages read, so that the next writes only what
an edit changed (`serve`, from save to save).

A build's `Snapshot` holds what its pages can read: the entities (each by the hash of the
file it was read from), the links between them and the names link found in each prose
field, what derive computed (by parts), what check proved of each source's quotes, the
Library's items; and, as one hash, everything every page reads alike — the settings, the
record's own templates and static files, the navigation, the releases, which entities
there are. The next build
compares its snapshot with the last: where that one hash differs every page is written
again; otherwise the differences become tokens (see `reads.py`), and a page is written
again only where its URL is new, its context is not the same, or it read a token the
edit changed. The property test `tests/test_serve_equivalence.py` holds the result to a
clean build, byte for byte.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sourcebook.derive import Derived
from sourcebook.library.report import QuoteReport
from sourcebook.link.graph import Graph
from sourcebook.model.base import Entity
from sourcebook.model.kinds import Campus, Source, Term
from sourcebook.model.record import Record
from sourcebook.model.refs import Key
from sourcebook.publish.site.citations import ProvenQuotes, proven_quotes
from sourcebook.publish.site.reads import Token
from sourcebook.publish.site.urls import ENTITY_PATHS
from sourcebook.read.paths import Confined

OWN_FOLDERS = ("templates", "static")
"""The record's folders every page may read from."""


@dataclass(frozen=True)
class PageMade:
    template: str
    context: str
    """The page's context as `reads.context_reads` shows it."""
    reads: frozenset[Token]


@dataclass
class Snapshot:
    """What the pages of one build could read (see the module's docstring)."""

    shared: bytes
    names: str
    """The hash of the record's names: where it differs, what link found in each prose
    field is compared, and the pages that render a field where it differs are written."""
    entities: dict[Key, Entity]
    read_as: dict[Key, bytes]
    graph: Graph
    derived: dict[Token, Any]
    proven: dict[str, ProvenQuotes]
    library: dict[str, Any]

    @classmethod
    def of(
        cls,
        record: Record,
        graph: Graph,
        derived: Derived,
        proofs: QuoteReport | None,
        shared: list[Any],
    ) -> Snapshot:
        """`shared`: what every page reads alike, besides what the record holds of it."""
        keys = sorted(record.entities_keys())
        names = graph.matcher.fingerprint if graph.matcher is not None else ""
        everything = [
            repr(record.settings),
            *_own_files(record.root),
            repr(keys),
            repr(sorted(record.broken)),
            *map(repr, shared),
        ]
        digest = hashlib.sha256()
        for part in everything:
            digest.update(hashlib.sha256(str(part).encode("utf-8", "surrogatepass")).digest())
        entities = {key: record.entities[key[0]][key[1]] for key in keys}
        sources = [e for e in entities.values() if isinstance(e, Source)]
        return cls(
            shared=digest.digest(),
            names=names,
            entities=entities,
            read_as={key: record.read_as.get(key, b"") for key in keys},
            graph=graph,
            derived=dict(derived_parts(derived)),
            proven={s.id: proven_quotes(proofs, s) for s in sources} if proofs else {},
            library=dict(record.library.items),
        )

    def changes(self, before: Snapshot) -> set[Token] | None:
        """The tokens whose value differs from `before`; None where every page may have
        changed (what all pages read alike did)."""
        if self.shared != before.shared:
            return None
        changed: set[Token] = set()
        relinked = self.names != before.names  # every entity linked again, so compared
        if relinked:
            changed.add(("names",))
            reads = _differ(before.graph.reads, self.graph.reads)
            changed |= {("read", *key, field) for key, field in reads}
            changed |= {("wiki", *link) for link in _differ(before.graph.wiki, self.graph.wiki)}
        for key, entity in self.entities.items():
            same = before.read_as.get(key) == self.read_as[key] and self.read_as[key]
            if same and not relinked:
                continue
            old = before.entities[key]  # the same keys, or `shared` would differ
            if not same:
                changed |= _entity_changes(old, entity)
            was, now = (_refs(graph, key) for graph in (before.graph, self.graph))
            changed |= {("in", *target) for target, _ in was ^ now}
            if {target for target, _ in was} != {target for target, _ in now}:
                changed.add(("out", *key))
        whole = ("d", "*")
        if before.derived[whole] != self.derived[whole]:  # else no part of it differs
            changed |= _differ(before.derived, self.derived)
        changed |= {("p", i) for i in _differ(before.proven, self.proven)}
        changed |= {("lib", shelf) for shelf in _differ(before.library, self.library)}
        return changed


def _entity_changes(old: Entity, new: Entity) -> set[Token]:
    """The tokens an edit of one entity changed, besides its links: its body alone where
    only the text of its body did (a page that shows its body renders it, and notes that;
    one that only asks whether it has one reads the same)."""
    key = new.key
    fields = {name for name in type(new).model_fields if getattr(old, name) != getattr(new, name)}
    changed: set[Token] = {("body", *key)} if "body" in fields else set()
    if fields - {"body"} or bool(getattr(old, "body", "")) != bool(getattr(new, "body", "")):
        changed |= {("e", *key), ("k", key[0])}
        for one in (old, new):
            changed.update(_grouped_by(one))
    if _path(old) != _path(new):
        changed.add(("url", *key))
    return changed


def _path(entity: Entity) -> str | None:
    where = ENTITY_PATHS.get(entity.KIND)
    return where(entity) if where is not None else None


def _refs(graph: Graph, key: Key) -> set[tuple[Key, str]]:
    """What an entity refers to, each with the field that does: all that backlinks read
    of it besides the entity itself."""
    return {(ref.target, ref.field) for ref in graph.outgoing(key)}


def _grouped_by(entity: Entity | None) -> Iterator[Token]:
    """The lists an entity stands in that pages read whole: the terms a chapter introduces
    first, the campuses a party has roles at."""
    if isinstance(entity, Term) and entity.chapters:
        yield ("first", entity.chapters[0])
    if isinstance(entity, Campus):
        yield from (("roles", entry.party) for entry in entity.parties)


def _differ(before: dict[Any, Any], now: dict[Any, Any]) -> set[Any]:
    missing = object()
    return {k for k in before.keys() | now.keys() if before.get(k, missing) != now.get(k, missing)}


def derived_parts(derived: Derived) -> Iterator[tuple[Token, Any]]:
    """What derive computed, in the parts `Computed` notes as pages read them."""
    yield ("d", "*"), derived
    yield ("d", "as_of"), derived.as_of
    yield from ((("d", "row", r.indicator), r) for r in derived.rows)
    yield from ((("d", "verdict", v.test), v) for v in derived.verdicts)
    yield from ((("d", "scenario", s.id), s) for s in derived.scenarios)
    for owner, timelines in derived.timelines.items():
        yield ("d", "timelines", *owner), timelines
        for timeline in timelines:
            yield from ((("d", "point", p.figure), p) for p in timeline.points)
    conflicts: dict[Token, list[Any]] = {}
    for conflict in derived.conflicts:
        conflicts.setdefault(("d", "conflicts", *conflict.owner), []).append(conflict)
    yield from conflicts.items()


def _own_files(root: Path) -> Iterator[str]:
    """Each file of the record's own templates and static files: where and what it is."""
    confined = Confined(root)
    for folder in OWN_FOLDERS:
        for path, shown in confined.files(root / folder, "", hidden=True):
            yield f"{folder}{shown}:{hashlib.sha256(Path(path).read_bytes()).hexdigest()}"


@dataclass
class SiteMade:
    """What one build wrote into `out`: each page, what it read, and every file."""

    out: Path
    snapshot: Snapshot
    view: Any
    """The build's `SiteView`: what its pages shared, and what each of those read."""
    pages: dict[str, PageMade] = field(default_factory=dict)
    files: set[str] = field(default_factory=set)


@dataclass
class KeptSite:
    """The last site a build wrote, kept for the next (`serve` keeps it in memory)."""

    last: SiteMade | None = None
