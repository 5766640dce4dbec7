"""The reference graph: who refers to whom, how, and from where."""

from __future__ import annotations

import bisect
import re
from array import array
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from sourcebook.diagnostics import Pos
from sourcebook.incremental import LINKED, Memo, key_of
from sourcebook.link import markdown, mentions, prose
from sourcebook.link.mentions import Read
from sourcebook.link.names import NameMatcher, may_find
from sourcebook.link.plurals import plural
from sourcebook.model.base import Entity
from sourcebook.model.kinds import KINDS
from sourcebook.model.record import Record
from sourcebook.model.refs import Key, QuoteClaim, Ref
from sourcebook.runtime.collector import collector_paused
from sourcebook.runtime.workers import Forked, forked_job, worker_count

_NEWLINE = re.compile("\n")
_SPACE = re.compile(r"\s")  # exactly str.isspace
_SPACES = re.compile(r"\s+")
PARALLEL_FROM = 2000
"""Entities below which a record is linked in this process: starting workers costs more."""
CHUNK = 250
"""Entities a worker links per task."""


@dataclass
class Graph:
    refs: list[Ref] = field(default_factory=list)
    quotes: list[QuoteClaim] = field(default_factory=list)
    marked: list[tuple[Key, str, Pos]] = field(default_factory=list)
    """Curly-quoted spans marked as not the source's words: (owner, mark, pos)."""
    unbalanced: list[tuple[Key, Pos]] = field(default_factory=list)
    straight: list[tuple[Key, Pos]] = field(default_factory=list)
    """Words in straight quotes right before a citation: where each opens."""
    """Curly quotation marks that no other balances: (owner, pos)."""
    _incoming: dict[Key, list[Ref]] = field(default_factory=lambda: defaultdict(list))
    _outgoing: dict[Key, list[Ref]] = field(default_factory=lambda: defaultdict(list))
    matcher: NameMatcher | None = None
    """The names of the record that linking looked for; None for a graph not linked."""
    reads: dict[tuple[Key, str], Read] = field(default_factory=dict)
    """Per prose field (owner, field) that holds Markdown or a name: how it reads and the
    names the page links in it (see `mentions`)."""
    wiki: dict[tuple[str | None, str], Key | None] = field(default_factory=dict)
    """The entity each wiki link names, by (kind or None, id) as written; None for none."""

    def add(self, ref: Ref) -> None:
        self.add_all((ref,))

    def add_all(self, refs: Sequence[Ref]) -> None:
        """Add each of `refs`, in order (a record's hundred thousand in one loop)."""
        outgoing, incoming = self._outgoing, self._incoming
        for ref in refs:
            outgoing[ref.source].append(ref)
            if ref.resolved:
                incoming[ref.target].append(ref)
        self.refs += refs

    def incoming(self, key: Key) -> list[Ref]:
        return self._incoming.get(key, [])

    def outgoing(self, key: Key) -> list[Ref]:
        return self._outgoing.get(key, [])

    def unresolved(self) -> list[Ref]:
        return [r for r in self.refs if not r.resolved]

    def read_of(self, key: Key, field: str) -> Read | None:
        """How linking read a prose field, and the names the page links in it; None for
        a field that is not prose or a title (which the site shows as written, no names
        linked), or from a graph not linked."""
        if self.matcher is None or field == "title" or field not in _PROSE_FIELDS.get(key[0], ()):
            return None
        return self.reads.get((key, field), mentions.NOTHING)


_PROSE_FIELDS = {kind.name: kind.model.PROSE_FIELDS for kind in KINDS}


def build_matcher(record: Record, kept: Memo | None = None) -> NameMatcher:
    """The matcher of the record's names; `serve`'s last one where they are the same."""
    mentionable = {k.name for k in KINDS if k.mentionable}
    names = [
        (name, entity.key)
        for entity in record
        if entity.KIND in mentionable
        for name in entity.names()
    ]
    if kept is None:
        return NameMatcher(names)
    key = key_of(LINKED, "names", repr(names))
    matcher = kept.held(key)
    kept.carry(key_of(LINKED, "plurals"))  # for the next names, where these are kept
    if matcher is None:
        matcher = NameMatcher(names, _plurals({name.strip() for name, _ in names}, kept))
        kept.hold(key, matcher)
    return matcher  # type: ignore[no-any-return]


def _plurals(names: set[str], kept: Memo) -> dict[str, str | None]:
    """Each name's plural (`names.plural_forms`), kept from run to run: English plurals
    are inflect's to make, about 40 µs a name, the most of making a record's matcher. One
    table of the record's names, kept whole: a plural depends on the name alone."""
    key = key_of(LINKED, "plurals")
    known = kept.lookup(key)
    known = known if isinstance(known, dict) else {}
    found = {name: known[name] if name in known else plural(name) for name in names}
    if found != known:
        kept.record(key, found)
    return found


@collector_paused()
def link_record(record: Record, kept: Memo | None = None) -> Graph:
    """The record's references. `kept`: what linking each entity found in earlier runs (see
    `incremental.Memo`), by what the entity was read from, the record's names and its entities'
    ids (all that linking one entity reads); none if not given."""
    kept = kept if kept is not None else Memo(LINKED)
    matcher = build_matcher(record, kept)
    graph = Graph(matcher=matcher)
    entities = list(record)
    among = _linked_among(record, matcher)
    renamed = _Renamed.since(kept, among)
    for found in _linked(entities, record, matcher, kept, among.key, renamed):
        graph.add_all(found.refs)
        graph.quotes += found.quotes
        graph.marked += found.marked
        graph.unbalanced += found.unbalanced
        graph.straight += found.straight
        graph.reads.update(found.reads)
        graph.wiki.update(found.wiki)
    return graph


@dataclass(frozen=True)
class _Among:
    """What linking an entity reads besides the entity: the names it looks for, and which
    entities there are (a reference resolves or not); `key` the hash of both."""

    key: bytes
    entities: bytes
    table: dict[str, frozenset[Key]]


def _linked_among(record: Record, matcher: NameMatcher) -> _Among:
    keys = sorted((*record.entities_keys(), *((*k, "broken") for k in record.broken)))
    entities = key_of(LINKED, repr(keys), repr(sorted(record.citation_keys().items())))
    return _Among(key_of(LINKED, matcher.fingerprint, entities), entities, matcher.table)


_LAST = key_of(LINKED, "the last link's names")
"""Where `serve`'s kept objects hold what the last link looked for."""


@dataclass(frozen=True)
class _Renamed:
    """Where only the record's names changed since the last link in this process (`serve`
    keeps it): an entity's prose that holds none of the names added or changed, and
    mentions none of the entities whose names were taken away or changed, reads as it did,
    so what linking it found is taken from the last run."""

    before: bytes
    """The last run's `_Among.key`."""
    added: frozenset[str]
    gone: frozenset[Key]

    @classmethod
    def since(cls, kept: Memo, among: _Among) -> _Renamed | None:
        last: _Among | None = kept.held(_LAST)
        kept.hold(_LAST, among)
        if last is None or last.entities != among.entities or last.key == among.key:
            return None
        now, was = among.table, last.table
        added = frozenset(key for key, targets in now.items() if was.get(key) != targets)
        gone = frozenset(t for key, ts in was.items() if now.get(key) != ts for t in ts)
        return cls(last.key, added, gone)

    def unchanged(self, entity: Entity, read_as: bytes, kept: Memo) -> _Found | None:
        """What the last run found of `entity`, read as `read_as`, where it stands."""
        last: _Found | None = kept.held(key_of(self.before, read_as), carry=False)
        if last is None:
            return None
        if any(r.via == "mention" and r.target in self.gone for r in last.refs):
            return None
        for name, text in entity.prose():
            if may_find(text, self.added):
                return None
            if mentions.reading_of(entity, name) == mentions.PAPER:
                return None  # a paper's body is rearranged before it is read
        return last


@dataclass
class _Found:
    """What linking some entities found, in their order."""

    refs: list[Ref] = field(default_factory=list)
    quotes: list[QuoteClaim] = field(default_factory=list)
    marked: list[tuple[Key, str, Pos]] = field(default_factory=list)
    unbalanced: list[tuple[Key, Pos]] = field(default_factory=list)
    straight: list[tuple[Key, Pos]] = field(default_factory=list)
    """Words in straight quotes right before a citation: where each opens."""
    reads: dict[tuple[Key, str], Read] = field(default_factory=dict)
    wiki: dict[tuple[str | None, str], Key | None] = field(default_factory=dict)
    made: list[tuple[bytes, Any]] = field(default_factory=list)
    """What a worker found of each entity (key and plain value), for the process that keeps
    it."""

    def add(self, ref: Ref) -> None:
        self.refs.append(ref)

    def extend(self, other: _Found) -> None:
        self.refs += other.refs
        self.quotes += other.quotes
        self.marked += other.marked
        self.unbalanced += other.unbalanced
        self.straight += other.straight
        self.reads.update(other.reads)
        self.wiki.update(other.wiki)

    def plain(self) -> tuple:
        """As plain values, to be kept (see `incremental.Memo`)."""
        return (
            tuple(r.flat() for r in self.refs),
            tuple(q.flat() for q in self.quotes),
            tuple((owner, mark, *_pos(pos)) for owner, mark, pos in self.marked),
            tuple((owner, *_pos(pos)) for owner, pos in self.unbalanced),
            tuple((owner, *_pos(pos)) for owner, pos in self.straight),
            tuple((k, r.reading, r.spans.tobytes(), r.keys) for k, r in self.reads.items()),
            tuple(self.wiki.items()),
        )

    def adopt(self, plain: tuple) -> None:
        """Add what `plain` holds: what linking an entity found before."""
        refs, quotes, marked, unbalanced, straight, reads, wiki = plain
        self.refs += map(Ref.from_flat, refs)
        self.quotes += map(QuoteClaim.from_flat, quotes)
        self.marked += [(owner, mark, Pos(*at)) for owner, mark, *at in marked]
        self.unbalanced += [(owner, Pos(*at)) for owner, *at in unbalanced]
        self.straight += [(owner, Pos(*at)) for owner, *at in straight]
        for key, reading, spans, keys in reads:
            self.reads[key] = Read(reading, array("i", spans), keys)
        self.wiki.update(wiki)


def _link(
    entities: Sequence[Entity],
    record: Record,
    matcher: NameMatcher,
    kept: Memo,
    among: bytes,
    renamed: _Renamed | None = None,
) -> _Found:
    found = _Found()
    for entity in entities:
        read_as = record.read_as.get(entity.key)
        if read_as is None:  # not read from a file: nothing to keep it by
            _link_entity(entity, record, matcher, found)
            continue
        key = key_of(among, read_as)
        one = kept.held(key)  # `serve`'s: the objects themselves, made once
        if one is None and renamed is not None:
            one = renamed.unchanged(entity, read_as, kept)
            if one is not None:
                kept.hold(key, one)
        if one is None:
            one = _Found()
            plain = kept.lookup(key)
            if plain is not None:
                one.adopt(plain)
            else:
                _link_entity(entity, record, matcher, one)
                kept.record(key, one.plain())
            kept.hold(key, one)
        found.extend(one)
    return found


def _link_entity(entity: Entity, record: Record, matcher: NameMatcher, into: _Found) -> None:
    _link_fields(entity, record, into)
    for name, text in entity.prose():
        _link_prose(entity, name, text, record, matcher, into)


def _linked(
    entities: Sequence[Entity],
    record: Record,
    matcher: NameMatcher,
    kept: Memo,
    among: bytes,
    renamed: _Renamed | None = None,
) -> Iterator[_Found]:
    """What linking each chunk of `entities` found, chunk by chunk in order: in this
    process, or for a large record in forked workers, which find exactly the same. A
    record with some kept from before is linked in this process (as `read.reading`)."""
    jobs = _jobs(len(entities)) if not len(kept) else 1
    if jobs <= 1:
        yield _link(entities, record, matcher, kept, among, renamed)
        return
    bounds = [(i, min(i + CHUNK, len(entities))) for i in range(0, len(entities), CHUNK)]
    numbers = {entity.key: i for i, entity in enumerate(entities)}
    keys = [entity.key for entity in entities]
    markdown.parsers()  # made once, here, for every worker
    with Forked(jobs, (entities, record, matcher, numbers, among)) as pool:
        for flat in pool.imap(_link_chunk, bounds):
            found = _unflattened(flat, keys)
            for made in found.made:
                kept.record(*made)
            yield found


def _jobs(entities: int) -> int:
    """Worker processes: one per core for a large record, none for a small one."""
    return worker_count(entities, PARALLEL_FROM)


_Flat = tuple[
    list[tuple],
    list[tuple],
    list[tuple],
    list[tuple],
    list[tuple],
    list[tuple],
    list[tuple],
    list[tuple],
]


def _link_chunk(bounds: tuple[int, int]) -> _Flat:
    # The entities, the record, the name matcher, each entity's number in `entities`, and
    # what linking an entity reads besides it.
    entities, record, matcher, numbers, among = forked_job()
    kept = Memo(LINKED, recording=True)
    found = _link(entities[bounds[0] : bounds[1]], record, matcher, kept, among)
    found.made = kept.recorded or []
    return _flattened(found, numbers)


# References and positions go between processes as plain tuples: pickle handles frozen
# dataclasses with slots through Python code, ten times slower than building them anew.


def _flattened(found: _Found, numbers: dict[Key, int]) -> _Flat:
    refs = [r.flat() for r in found.refs]
    quotes = [q.flat() for q in found.quotes]
    marked = [(owner, mark, *_pos(pos)) for owner, mark, pos in found.marked]
    unbalanced = [(owner, *_pos(pos)) for owner, pos in found.unbalanced]
    straight = [(owner, *_pos(pos)) for owner, pos in found.straight]
    reads = [
        (numbers[owner], field, *read.flat(numbers)) for (owner, field), read in found.reads.items()
    ]
    return refs, quotes, marked, unbalanced, straight, reads, list(found.wiki.items()), found.made


def _pos(pos: Pos) -> tuple[str, int, int]:
    return pos.file, pos.line, pos.col


def _unflattened(flat: _Flat, keys: list[Key]) -> _Found:
    """What a worker found; the entities of what pages link by their numbers in `keys`
    (a large record's prose names tens of thousands: as numbers, they go between
    processes as a few bytes, and come back as the record's own keys, not copies)."""
    refs, quotes, marked, unbalanced, straight, reads, wiki, made = flat
    return _Found(
        refs=[Ref.from_flat(r) for r in refs],
        quotes=[QuoteClaim.from_flat(q) for q in quotes],
        marked=[(owner, mark, Pos(file, line, col)) for owner, mark, file, line, col in marked],
        unbalanced=[(owner, Pos(file, line, col)) for owner, file, line, col in unbalanced],
        straight=[(owner, Pos(file, line, col)) for owner, file, line, col in straight],
        reads={(keys[owner], f): Read.from_flat(rest, keys) for owner, f, *rest in reads},
        wiki=dict(wiki),
        made=made,
    )


def _link_fields(entity: Entity, record: Record, into: _Found) -> None:
    for ref_field in entity.REF_FIELDS:
        for value, path in _values(entity, ref_field.path.split(".")):
            if not isinstance(value, str) or not value:
                continue
            target = (ref_field.kind, value)
            resolved = record.get(*target) is not None or target in record.broken
            into.add(
                Ref(
                    entity.key,
                    target,
                    "field",
                    ref_field.path,
                    entity.pos(*path),
                    value,
                    resolved=resolved,
                )
            )
    same_as = getattr(entity, "same_as", None)
    if isinstance(same_as, str) and same_as:  # a source's same_as names other volumes
        kind, _, target_id = same_as.partition(":")
        target = (kind, target_id)
        into.add(
            Ref(
                entity.key,
                target,
                "field",
                "same_as",
                entity.pos("same_as"),
                same_as,
                resolved=record.get(*target) is not None,
            )
        )


def _values(entity: Entity, parts: list[str]) -> list[tuple[Any, tuple]]:
    """Values at a dotted path, walking into lists; each with its front-matter path."""
    found: list[tuple[Any, tuple]] = [(entity, ())]
    for part in parts:
        step: list[tuple[Any, tuple]] = []
        for obj, path in found:
            value = getattr(obj, part, None)
            if isinstance(value, list):
                step.extend((item, (*path, part, i)) for i, item in enumerate(value))
            elif value is not None:
                step.append((value, (*path, part)))
        found = step
    return found


def _link_prose(
    entity: Entity,
    name: str,
    text: str,
    record: Record,
    matcher: NameMatcher,
    into: _Found,
) -> None:
    positions = _Positions(entity.prose_pos(name), text, entity.prose_span(name))
    found = prose.scan(text)
    key = entity.key
    for link in found.wiki_links:
        resolved = into.wiki[(link.kind, link.target)] = resolve_wiki(
            record, link.kind, link.target
        )
        target = resolved or ("?", link.target)
        into.add(
            Ref(
                key,
                target,
                "wiki",
                name,
                positions.at(link.start),
                f"{link.kind}:{link.target}" if link.kind else link.target,  # as written
                resolved=record.get(*target) is not None or target in record.broken,
            )
        )
    for cite in found.citations:
        target = ("source", record.cited(cite.source))
        into.add(
            Ref(
                key,
                target,
                "cite",
                name,
                positions.at(cite.start),
                cite.source,
                cite.locator,
                resolved=record.get(*target) is not None or target in record.broken,
            )
        )
    default_source = entity.id if entity.KIND == "source" else None
    for quote in found.quotes:
        source = record.cited(quote.cited) if quote.cited else default_source
        if source is not None:
            into.quotes.append(
                QuoteClaim(
                    key, name, source, quote.text, positions.at(quote.start + 1), quote.locator
                )
            )
    for span in found.marked_spans:
        into.marked.append((key, span.mark, positions.at(span.start)))
    for offset in found.unbalanced:
        into.unbalanced.append((key, positions.at(offset)))
    for offset in found.straight:
        into.straight.append((key, positions.at(offset)))
    shown = name != "title"  # a title is shown as it is written, no name linked
    reading = mentions.reading_of(entity, name)
    read, named = mentions.read(text, reading, matcher, key, shown)
    if read is not mentions.NOTHING and shown:
        into.reads[(key, name)] = read
    for start, said, targets in named:
        at = positions.at(start)
        for target in targets:
            if target != key:
                into.add(Ref(key, target, "mention", name, at, said))


def resolve_wiki(record: Record, kind: str | None, target: str) -> Key | None:
    """The entity a wiki link names: [[kind:id]] that one; a bare [[id]] the one entity of
    any kind with that id, terms winning a tie; None for a bare id nothing has."""
    if kind:
        return (kind, target)
    for each in KINDS:
        if record.get(each.name, target) is not None:
            return (each.name, target)
    return None


def positions(base: Pos, text: str, written: str | None = None) -> _Positions:
    """Where each offset of a front-matter value or body stands in its file: `base` where
    it starts, `written` the value as written where YAML folded it."""
    return _Positions(base, text, written)


class _Positions:
    """Turns offsets in a prose field into file positions, cheaply, in any order.

    YAML folds a multi-line scalar (its line breaks and indentation become single
    spaces), so offsets in the value are matched to the text as written by counting
    the characters that are not white space, which folding never changes.
    """

    def __init__(self, base: Pos, text: str, written: str | None = None):
        self.base = base
        self.text = text
        self.written = written if written is not None and written != text else None
        self._line_starts: list[int] | None = None
        self._folding: _Folding | None = None

    def at(self, offset: int) -> Pos:
        if self.written is not None:
            return self._at_written(offset)
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in _NEWLINE.finditer(self.text)]
        line = bisect.bisect_right(self._line_starts, offset) - 1
        col = offset - self._line_starts[line]
        if line == 0:
            return Pos(self.base.file, self.base.line, self.base.col + col)
        return Pos(self.base.file, self.base.line + line, col + 1)

    def _at_written(self, offset: int) -> Pos:
        assert self.written is not None
        if self._folding is None:
            self._folding = _Folding(self.text, self.written)
        where = self._folding.written_offset(offset)
        newlines = self._folding.newlines_before(where)
        if not newlines:
            return Pos(self.base.file, self.base.line, self.base.col + where)
        last = self._folding.newlines[newlines - 1]
        return Pos(self.base.file, self.base.line + newlines, where - last)


class _Folding:
    """Where each character of a folded value stands in the value as written.

    The characters that are not white space come in the same order in both, so the one
    at an offset of the value is found in the text as written by counting them; the
    counting is done with the runs of white space, a bisection apart.
    """

    def __init__(self, text: str, written: str):
        self.spaces = [m.start() for m in _SPACE.finditer(text)]
        self.size = len(written)
        runs = [m.span() for m in _SPACES.finditer(written)]
        self.run_space = list(accumulate((end - start for start, end in runs), initial=0))
        """White space in the text as written before each run, and after the last."""
        self.run_ink = [
            start - space for (start, _end), space in zip(runs, self.run_space, strict=False)
        ]
        """For each run of white space in the text as written: the characters before it
        that are not white space."""
        self.newlines = [m.start() for m in _NEWLINE.finditer(written)]

    def written_offset(self, offset: int) -> int:
        """Where the character at `offset` of the value stands in the text as written;
        past its end, the end of the text."""
        inked = offset - bisect.bisect_left(self.spaces, offset)
        if inked >= self.size - self.run_space[-1]:
            return self.size
        return inked + self.run_space[bisect.bisect_right(self.run_ink, inked)]

    def newlines_before(self, offset: int) -> int:
        return bisect.bisect_left(self.newlines, offset)
