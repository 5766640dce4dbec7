"""What a build wrote and what each of its pages read, so that the next writes only what
an edit changed: the site's memo (`incremental.SiteMemo`) keeps it, in memory from save to
save for `serve`, in the record's state folder from run to run for `build`.

A build's `Snapshot` holds what its pages can read, as digests (`incremental.Digester`): the
entities (each known by the hash of the file it was read from), the links between them
and the names link found in each prose field, what derive computed (by parts), what check
proved of each source's quotes, the Library's items; and, as one hash, everything every
page reads alike — the settings, the record's own templates and static files, the
navigation, the releases, which entities there are. The next build compares its snapshot
with the last: where that one hash differs every page is written again; otherwise the
differences become tokens (see `incremental.Reads`), and a page is written again only where its
URL is new, its context is not the same, or it read a token the edit changed. The
property tests `tests/test_serve_equivalence.py` and `tests/test_build_kept.py` hold the
result to a clean build, byte for byte.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from sourcebook import incremental
from sourcebook.incremental import Digester, Table, Token
from sourcebook.link.graph import Graph
from sourcebook.model.base import Entity
from sourcebook.model.kinds import Campus, Term
from sourcebook.model.record import Record
from sourcebook.model.refs import Key
from sourcebook.publish.site.pages.sections import paths
from sourcebook.publish.site.pages.urls import entity_path
from sourcebook.publish.site.serving.swap import MARK
from sourcebook.read.paths import Confined

OWN_FOLDERS = ("templates", "static", "watch")
"""The record's folders every page may read from: a watch's log changes the sources'
addresses, the Library's pages and the Data page, and is written once a watch."""


PROSE_TOKENS = frozenset({"body", "read", "in", "out"})
"""The tokens of what an entity's prose says and what it refers to: an entity's body,
what link found in a prose field, what refers to an entity and what it refers to
(`Snapshot.changes`). No page's context holds any of them (a context holds entities, and
the lists the pages' list makes of their fields), so an edit that changed only these left
every context as it was: the build takes each as the last build's
(`tests/test_site_kept_contexts.py` holds every page's context to that)."""


class TokenTable:
    """Every token the pages of a kept site read, each at its place: a page read back from
    the state folder holds what it read as places in this table (`PageMade`), turned into
    tokens only where asked.

    The next build keeps the table as it is and adds what is new at its end, so that each
    page it did not write is kept by its places, as they were read; the table is made
    afresh, of what the pages read alone, once it has grown by half since it last was
    (`site_plain`)."""

    def __init__(self, tokens: list[Token], made_with: int) -> None:
        self.tokens = tokens
        self.made_with = made_with
        """How many tokens it held when it was last made afresh."""
        self._places: dict[Token, int] | None = None
        self._asked: tuple[AbstractSet[Token], frozenset[int]] | None = None

    def places(self) -> dict[Token, int]:
        """Each token's place."""
        if self._places is None:
            self._places = {token: place for place, token in enumerate(self.tokens)}
        return self._places

    def places_of(self, tokens: AbstractSet[Token]) -> frozenset[int]:
        """The places of those of `tokens` the table holds (the last set asked of, by
        identity, is answered again without looking: a build asks of the same change for
        each of its pages)."""
        if self._asked is None or self._asked[0] is not tokens:
            places = self.places()
            found = frozenset(places[t] for t in tokens if t in places)
            self._asked = (tokens, found)
        return self._asked[1]


class PageMade:
    """A page as a build wrote it: its template, the digest of its context as
    `reads.context_reads` shows it, and what it read."""

    __slots__ = ("template", "context", "_reads", "_places", "_table")

    def __init__(
        self,
        template: str,
        context: bytes,
        reads: frozenset[Token] | None = None,
        *,
        places: bytes = b"",
        table: TokenTable | None = None,
    ) -> None:
        assert reads is not None or table is not None
        self.template = template
        self.context = context
        self._reads = reads
        self._places = places
        """What it read, as places in `_table` (an `array("I")`'s bytes), where read back."""
        self._table = table

    @property
    def reads(self) -> frozenset[Token]:
        if self._reads is None:
            assert self._table is not None
            tokens = self._table.tokens
            self._reads = frozenset(tokens[i] for i in array("I", self._places))
        return self._reads

    def read_any(self, tokens: AbstractSet[Token]) -> bool:
        """Whether it read any of `tokens`."""
        if self._reads is None:
            assert self._table is not None
            places = self._table.places_of(tokens)
            return bool(places) and not places.isdisjoint(array("I", self._places))
        return not self._reads.isdisjoint(tokens)

    def places_in(self, table: TokenTable) -> bytes | None:
        """What it read as places in `table`, where it holds them so."""
        return self._places if self._table is table else None


class Facts(NamedTuple):
    """What pages can read of one entity, as digests (see `incremental.Digester`)."""

    fields: bytes
    """Every field of it but its body."""
    title: bytes
    """Its title alone (a line that names it among many reads no more of it)."""
    body: bytes
    has_body: bool
    path: str | None
    """Where its page is."""
    grouped: tuple[Token, ...]
    """The lists it stands in that pages read whole (see `_grouped_by`)."""
    refs: frozenset[tuple[Key, str]]
    """What it refers to, each with the field that does."""
    reads: dict[str, bytes]
    """What link found in each of its prose fields."""


@dataclass
class Snapshot:
    """What the pages of one build could read, as digests (see the module's docstring)."""

    shared: bytes
    names: str
    """The hash of the record's names: where it differs, what link found in each prose
    field is compared, and the pages that render a field where it differs are written."""
    read_as: dict[Key, bytes]
    entities: dict[Key, Facts]
    wiki: dict[tuple[str | None, str], bytes]
    compared: dict[Token, bytes]
    """Each entry of the tables the view compares by entry (what derive computed, what
    check proved, the Library's items, the watch's addresses: `incremental.Table`), by
    the token a page that reads it notes."""
    values: dict[Token, Any] = field(default_factory=dict)
    """Those entries' values, where this build's snapshot is kept in memory (`serve`):
    the next compares each value with its own, and takes the digests of those that are
    equal as they are rather than digesting them again. Not kept on disk: a snapshot read
    back digests every entry of a table not of the version it was (`versions`)."""
    versions: dict[tuple[str, ...], incremental.Versioned] = field(default_factory=dict)
    """The version of each of those tables that has one (`incremental.Table`), with its
    entries' tokens, by name: the next takes a table of the same version as it was, its
    entries' digests these. Kept on disk too: derive's value has the same version in
    every process that computes it (the digest of it pickled)."""

    @classmethod
    def of(
        cls,
        record: Record,
        graph: Graph,
        tables: list[Table[Any, Any]],
        shared: list[Any],
        last: Snapshot | None = None,
    ) -> Snapshot:
        """`tables`: the view's tables that are compared by entry. `shared`: what every
        page reads alike, besides what the record holds of it. `last`: the snapshot of the
        last build, whose digests of an entity read from the same file (and linked with the
        same names), and of an entry of equal value, are taken as they are."""
        keys = sorted(record.entities_keys())
        names = graph.matcher.fingerprint if graph.matcher is not None else ""
        everything = [
            repr(record.settings),
            *_own_files(record.root),
            repr(keys),
            repr(sorted(record.broken)),
            *map(repr, shared),
        ]
        digester = Digester()
        read_as = {key: record.read_as.get(key, b"") for key in keys}
        relinked = last is None or last.names != names
        reads = _reads_by_entity(graph)
        entities = {}
        places = paths()
        for key in keys:
            same_file = last is not None and read_as[key] and last.read_as.get(key) == read_as[key]
            known = last.entities.get(key) if same_file and last is not None else None
            if known is not None:  # the same entity: only its links may differ
                if relinked:
                    found = _digested(reads.get(key), digester)
                    known = known._replace(refs=_refs(graph, key), reads=found)
                entities[key] = known
                continue
            entity = record.entities[key[0]][key[1]]
            entities[key] = _facts(entity, graph, reads.get(key), digester, places)
        return cls(
            shared=incremental.key_of(*map(str, everything)),
            names=names,
            read_as=read_as,
            entities=entities,
            wiki=last.wiki
            if last is not None and not relinked
            else {link: digester.digest(target) for link, target in graph.wiki.items()},
            **_compared(tables, last, digester),
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
            changed |= {("wiki", *link) for link in _differ(before.wiki, self.wiki)}
        for key, now in self.entities.items():
            old = before.entities[key]  # the same keys, or `shared` would differ
            if old == now:
                continue
            changed |= _entity_changes(key, old, now)
            changed |= {("read", *key, field) for field in _differ(old.reads, now.reads)}
            changed |= {("in", *target) for target, _ in old.refs ^ now.refs}
            if {target for target, _ in old.refs} != {target for target, _ in now.refs}:
                changed.add(("out", *key))
        changed |= _differ(before.compared, self.compared)
        return changed

    def plain(self) -> tuple[Any, ...]:
        """This as plain values, for `marshal` (see `site_plain`)."""
        entities = {key: tuple(facts) for key, facts in self.entities.items()}
        versions = {name: tuple(kept) for name, kept in self.versions.items()}
        return (
            self.shared,
            self.names,
            self.read_as,
            entities,
            self.wiki,
            self.compared,
            versions,
        )

    @classmethod
    def from_plain(cls, plain: tuple[Any, ...]) -> Snapshot:
        shared, names, read_as, entities, wiki, compared, versions = plain
        facts = {key: Facts(*values) for key, values in entities.items()}
        kept = {name: incremental.Versioned(*value) for name, value in versions.items()}
        return cls(shared, names, read_as, facts, wiki, compared, versions=kept)


def _facts(
    entity: Entity,
    graph: Graph,
    reads: dict[str, Any] | None,
    digester: Digester,
    places: dict[str, str],
) -> Facts:
    """`places`: where each named page of the site lives (`sections.paths`)."""
    fields = [(name, getattr(entity, name)) for name in type(entity).model_fields]
    return Facts(
        digester.digest([field for field in fields if field[0] != "body"]),
        digester.digest(getattr(entity, "title", None)),
        digester.digest(getattr(entity, "body", None)),
        bool(getattr(entity, "body", "")),
        entity_path(entity, places),
        tuple(_grouped_by(entity)),
        _refs(graph, entity.key),
        _digested(reads, digester),
    )


def _compared(
    tables: list[Table[Any, Any]], last: Snapshot | None, digester: Digester
) -> dict[str, Any]:
    """The digest of each entry of `tables` (the last snapshot's where its value was equal),
    and the values, by token."""
    values: dict[Token, Any] = {}
    was, digests = (last.values, last.compared) if last is not None else (None, None)
    last_versions = last.versions if last is not None else None
    versions: dict[tuple[str, ...], incremental.Versioned] = {}
    compared = incremental.compared_digests(
        tables, digester, was, digests, values, last_versions, versions
    )
    return {"compared": compared, "values": values, "versions": versions}


def _reads_by_entity(graph: Graph) -> dict[Key, dict[str, Any]]:
    found: dict[Key, dict[str, Any]] = {}
    for (key, field_name), read in graph.reads.items():
        found.setdefault(key, {})[field_name] = read
    return found


def _digested(reads: dict[str, Any] | None, digester: Digester) -> dict[str, bytes]:
    return {name: digester.digest(read) for name, read in (reads or {}).items()}


def _entity_changes(key: Key, old: Facts, new: Facts) -> set[Token]:
    """The tokens an edit of one entity changed, besides its links: its body alone where
    only the text of its body did (a page that shows its body renders it, and notes that;
    one that only asks whether it has one reads the same)."""
    changed: set[Token] = {("body", *key)} if old.body != new.body else set()
    if old.fields != new.fields or old.has_body != new.has_body:
        changed |= {("entity", *key), ("kind", key[0]), *old.grouped, *new.grouped}
    if old.path != new.path:
        changed.add(("url", *key))
    if old.title != new.title:
        changed.add(("title", *key))
    return changed


def _refs(graph: Graph, key: Key) -> frozenset[tuple[Key, str]]:
    """What an entity refers to, each with the field that does: all that backlinks read
    of it besides the entity itself."""
    return frozenset((ref.target, ref.field) for ref in graph.outgoing(key))


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


def _own_files(root: Path) -> Iterator[str]:
    """Each file of the record's own templates and static files: where and what it is."""
    confined = Confined(root)
    for folder in OWN_FOLDERS:
        for path, shown in confined.files(root / folder, "", hidden=True):
            yield f"{folder}{shown}:{incremental.key_of(Path(path).read_bytes()).hex()}"


@dataclass
class SiteMade:
    """What one build wrote into `out`: each page, what it read, and every file."""

    out: Path
    snapshot: Snapshot
    view: Any
    """The build's `SiteView`: what its pages shared, and what each of those read (None
    where this was read from the state folder)."""
    pages: dict[str, PageMade] = field(default_factory=dict)
    files: set[str] = field(default_factory=set)
    folder: tuple[int, ...] = ()
    """`out` as the build left it (see `folder_of`)."""
    index: frozenset[str] = frozenset()
    """The folders of the buckets of its search index (see `search.buckets`): the next
    build keeps those it would make again, linked from the site at `out`."""
    tokens: TokenTable | None = None
    """The table its pages' reads are places in, where it was read back."""
    searched: dict[str, str] = field(default_factory=dict)
    """What its search index read of each page (`search.Kept.pages`)."""
    groups: dict[str, frozenset[Token]] = field(default_factory=dict)
    """What making each group of its pages read (`site_pages.Group`)."""

    def ready(self) -> None:
        """Have its view index what its pages shared read (`SiteView.ready`), where it has
        its view: the next build carries from it."""
        if self.view is not None:
            self.view.ready()

    def holds(self, out: Path) -> bool:
        """Whether the site at `out` is still the one this describes."""
        return self.out == out and folder_of(out) == self.folder and (out / MARK).is_file()


def folder_of(path: Path) -> tuple[int, ...]:
    """The folder at `path` as no other is: its device and inode, and the last time an
    entry was made, removed or renamed in it, or it was renamed, which every build that
    swaps in a site of its own does (the folder of an older site, reused, is the same
    inode)."""
    try:
        found = os.stat(path)
    except OSError:
        return ()
    return (found.st_dev, found.st_ino, found.st_ctime_ns)


GROWTH = 1.5
"""How much the token table of a kept site may grow (see `TokenTable`) before the next
build makes it afresh, of what its pages read."""


def site_plain(made: SiteMade) -> tuple[Any, ...]:
    """`made` as plain values for the site's memo: each page's tokens by their place in one
    table. The table the last build's pages were read back with is kept, and each of those
    pages by its places as they were, while it has not grown by half (`TokenTable`)."""
    last = made.tokens
    if last is not None and len(last.tokens) <= GROWTH * max(last.made_with, 1):
        tokens, table, made_with = list(last.tokens), dict(last.places()), last.made_with
    else:
        last, tokens, table, made_with = None, [], {}, 0
    pages = {}
    for url, page in made.pages.items():
        places = page.places_in(last) if last is not None else None
        if places is None:
            places = array(
                "I", [table.setdefault(token, len(table)) for token in page.reads]
            ).tobytes()
        pages[url] = (page.template, page.context, places)
    groups = {
        name: array("I", [table.setdefault(token, len(table)) for token in read]).tobytes()
        for name, read in made.groups.items()
    }
    tokens.extend(list(table)[len(tokens) :])
    header = (str(made.out), made.folder, sorted(made.index), made_with or len(tokens))
    plain = (header, made.snapshot.plain(), tokens, pages, sorted(made.files))
    return (*plain, made.searched, groups)


def site_made(data: Any) -> SiteMade:
    """What `site_plain` made plain, read back (raises where it is not whole): each page's
    reads as places in the table of tokens, turned into tokens only where asked."""
    header, snapshot, tokens, pages, files, searched, groups = data
    out, folder, index = Path(header[0]), tuple(header[1]), frozenset(header[2])
    assert isinstance(searched, dict)
    table = TokenTable(tokens, int(header[3]))
    snapshot_made = Snapshot.from_plain(snapshot)
    made = SiteMade(out, snapshot_made, None, files=set(files), folder=folder, index=index)
    made.tokens, made.searched = table, searched
    made.groups = {
        name: frozenset(tokens[i] for i in array("I", read)) for name, read in groups.items()
    }
    limit = len(tokens)
    for url, (template, context, places) in pages.items():
        assert isinstance(places, bytes) and len(places) % 4 == 0
        assert not places or max(array("I", places)) < limit
        made.pages[url] = PageMade(template, context, places=places, table=table)
    return made
