"""Prove each quote of the record against the Library's copies of its source.

Quotes are taken source by source: the source's items are loaded (normalized, from the
cache where they have been seen before), each quote is looked for in them, and the items
are let go. Quotes not found are then looked for in every other item at once, through
one Aho-Corasick automaton of their longest literal parts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from functools import partial
from typing import Protocol

from sourcebook.diagnostics import Pos
from sourcebook.incremental import CHECKED, Memo, key_of
from sourcebook.library.cache import Normalized, TextCache
from sourcebook.library.match import locate
from sourcebook.library.nearest import Nearest, nearest
from sourcebook.library.normalize import QuotePattern, compile_quote
from sourcebook.library.report import Found, Proof, QuoteReport, Status
from sourcebook.model.base import Entity
from sourcebook.model.library import Item, ItemKind, Library
from sourcebook.model.record import Record
from sourcebook.model.refs import Key, QuoteClaim
from sourcebook.runtime.memo import memoized

_compiled = memoized(maxsize=65536)(compile_quote)


class Claims(Protocol):
    """What linking found that the Library proves: the quotes, and the spans marked as not."""

    quotes: list[QuoteClaim]
    marked: list[tuple[Key, str, Pos]]


def verify_quotes(
    record: Record, graph: Claims, cache: TextCache | None = None, kept: Memo | None = None
) -> QuoteReport:
    """The proof of every quote claim whose source is in the record. `kept`: the quotes
    each entity's lists hold, by what the entity was read from (`quote_claims`); where it
    holds objects from run to run (`serve`'s), the last run's report is given again where
    it proved the same claims against the same Library."""
    claims = quote_claims(record, graph, kept)
    if kept is None or not kept.holding:
        return _verified(record, graph, claims, cache)
    # `serve`: the last save's report, where it proved the same claims against the same
    # Library, each source holding the same copies
    holders = {s.id: tuple(getattr(s, "library", ())) for s in record.of("source")}
    library = record.library
    proved = (claims, list(graph.marked), dict(library.items), dict(library.texts), holders)
    last = kept.held(_PROVED)
    if last is not None and last[0] == proved:
        return last[1]  # type: ignore[no-any-return]
    report = _verified(record, graph, claims, cache)
    kept.hold(_PROVED, (proved, report))
    return report


_PROVED = key_of(CHECKED, "the quotes' proofs, held")


def _verified(
    record: Record, graph: Claims, claims: list[QuoteClaim], cache: TextCache | None
) -> QuoteReport:
    """The proof of each of `claims`, the Library's texts normalized through `cache` (the
    record's own where None)."""
    if cache is not None:
        return _proved(record, graph, claims, cache)
    # A record without a Library keeps no texts: it has none to normalize.
    cache = TextCache.for_record(record.root) if len(record.library) else TextCache(None)
    try:
        return _proved(record, graph, claims, cache)
    finally:
        cache.close()


def _proved(
    record: Record, graph: Claims, claims: list[QuoteClaim], cache: TextCache
) -> QuoteReport:
    library = record.library
    report = QuoteReport(marked=[(owner, mark) for owner, mark, _pos in graph.marked])
    by_source: dict[str, list[QuoteClaim]] = defaultdict(list)
    for claim in claims:
        by_source[claim.source or ""].append(claim)
    missing: list[Proof] = []
    for source_id in sorted(by_source):
        source = record.get("source", source_id)
        if source is None:
            continue
        items = library.holdings(getattr(source, "library", []))
        for proof in _prove_source(by_source[source_id], items, library, cache):
            if proof.status is Status.NOT_FOUND:
                missing.append(proof)
            report.add(proof)
    if missing:
        _look_elsewhere(report, missing, record, cache)
    cache.save()
    return report


QUOTED_LISTS = ("figures", "parameters", "parties")
"""Lists whose items cite a source and quote it: a campus's or party's figures, a
scenario's parameters, a campus's parties (the words that give a party its role)."""


def quote_claims(record: Record, graph: Claims, kept: Memo | None = None) -> list[QuoteClaim]:
    """The graph's quotes, and the quote of each figure or parameter that names its source.
    `kept`: what each entity's lists quote, by what the entity was read from (a record as
    it was read, not cut to a day: a cut entity holds fewer figures)."""
    claims = [c for c in graph.quotes if c.source]
    under = key_of(CHECKED, "quoted lists") if kept is not None else b""
    for entity in record:
        names = _quoted_lists(type(entity))
        if not any(getattr(entity, name) for name in names):
            continue
        read_as = record.read_as.get(entity.key) if kept is not None else None
        if kept is None or read_as is None:
            claims += _listed(entity)
            continue
        plain = partial(_listed_plain, entity)
        claims += kept.made(key_of(under, read_as), _claims_of, plain)
    return claims


@memoized(maxsize=64)
def _quoted_lists(kind: type[Entity]) -> tuple[str, ...]:
    """The lists of `QUOTED_LISTS` an entity of the kind has (asking any entity for a field
    its kind lacks costs an exception)."""
    return tuple(name for name in QUOTED_LISTS if name in kind.model_fields)


def _listed(entity: Entity) -> list[QuoteClaim]:
    """The quotes of an entity's figures, parameters and parties, each at its place."""
    claims = []
    for name in _quoted_lists(type(entity)):
        items = getattr(entity, name) or []
        # a figure at its place as written, which a record cut to a day keeps
        places = entity.origin.figure_index if name == "figures" else None
        for index, item in zip(places or range(len(items)), items, strict=True):
            if item.quote and item.source:
                pos = entity.pos(name, index, "quote")
                field = f"{name}.{index}.quote"
                claims.append(QuoteClaim(entity.key, field, item.source, item.quote, pos))
    return claims


def _listed_plain(entity: Entity) -> list[tuple]:
    return [claim.flat() for claim in _listed(entity)]


def _claims_of(plain: object) -> list[QuoteClaim] | None:
    """The claims kept as plain values; None where what is kept is not them."""
    try:
        return [QuoteClaim.from_flat(flat) for flat in plain]  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        return None


def _prove_source(
    claims: list[QuoteClaim], items: list[Item], library: Library, cache: TextCache
) -> Iterator[Proof]:
    if not items:
        for claim in claims:
            yield Proof(claim, Status.UNVERIFIABLE)
        return
    paths = [library.text_file(item.shelf) for item in items]
    shas = [library.text_digest(item.shelf) for item in items]
    key = "|".join(f"{i.shelf}:{i.kind.value}:{sha}" for i, sha in zip(items, shas, strict=True))
    known = cache.proofs(key)
    texts: list[tuple[Item, Normalized]] | None = None
    searched = tuple(item.shelf for item in items)
    for claim in claims:
        hit = known.get(claim.text)
        if hit is not None:
            yield Proof(claim, Status.VERIFIED, searched, Found(*hit))
            continue
        if texts is None:
            texts = [(i, cache.load(p, sha)) for i, p, sha in zip(items, paths, shas, strict=True)]
        pattern = _compiled(claim.text)
        found = _first(pattern, texts)
        if found is not None:
            cache.remember(key, claim.text, list(found))
            yield Proof(claim, Status.VERIFIED, searched, found)
        else:
            near = _nearest(pattern, items, library)
            yield Proof(claim, Status.NOT_FOUND, searched, nearest=near)


def load(library: Library, item: Item, cache: TextCache) -> Normalized:
    """An item's normalized text; empty where its text file cannot be read (check says so)."""
    return cache.load(library.text_file(item.shelf), library.text_digest(item.shelf))


def _first(pattern: QuotePattern, texts: list[tuple[Item, Normalized]]) -> Found | None:
    for item, normalized in texts:
        span = locate(pattern, normalized.text)
        if span is None:
            continue
        if item.kind is ItemKind.PDF:
            first, last = normalized.page_at(span[0]), normalized.page_at(max(span[0], span[1] - 1))
            return Found(item.shelf, first, last)
        return Found(item.shelf, read_as_image=item.kind is ItemKind.IMAGE)
    return None


def _nearest(
    pattern: QuotePattern, items: list[Item], library: Library
) -> tuple[str, Nearest] | None:
    """The passage nearest to a quote not found, as the copy reads (its text file)."""
    wanted = " ".join(pattern.parts)
    candidates = [(item.shelf, nearest(wanted, _raw(library, item))) for item in items]
    scored = [(shelf, near) for shelf, near in candidates if near is not None]
    return max(scored, key=lambda pair: pair[1].ratio) if scored else None


def _raw(library: Library, item: Item) -> str:
    try:
        return library.text_path(item.shelf).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _look_elsewhere(
    report: QuoteReport, missing: list[Proof], record: Record, cache: TextCache
) -> None:
    """Look for the quotes not found in their own sources' items in every other item."""
    import ahocorasick

    automaton = ahocorasick.Automaton()
    for index, proof in enumerate(missing):
        literal = _compiled(proof.claim.text).literal
        if literal:
            if literal in automaton:
                automaton.get(literal).append(index)
            else:
                automaton.add_word(literal, [index])
    if len(automaton) == 0:
        return
    automaton.make_automaton()
    holders = _holders(record)
    hits: dict[int, list[str]] = defaultdict(list)
    for item in record.library:
        text = load(record.library, item, cache).text
        for index in _candidates(automaton, text):
            proof = missing[index]
            if item.shelf not in proof.searched and locate(_compiled(proof.claim.text), text):
                hits[index].append(item.shelf)
    for index, shelves in hits.items():
        before = missing[index]
        elsewhere = tuple((s, tuple(holders.get(s, ()))) for s in shelves)
        report.replace(
            Proof(before.claim, Status.ELSEWHERE, before.searched, None, before.nearest, elsewhere)
        )


def _candidates(automaton, text: str) -> Iterable[int]:  # type: ignore[no-untyped-def]
    seen: set[int] = set()
    for _end, indexes in automaton.iter(text):
        for index in indexes:
            if index not in seen:
                seen.add(index)
                yield index


def _holders(record: Record) -> dict[str, list[str]]:
    """Shelf id → ids of the sources that name it."""
    holders: dict[str, list[str]] = defaultdict(list)
    for source in record.of("source"):
        for shelf in getattr(source, "library", []):
            holders[shelf].append(source.id)
    return holders
