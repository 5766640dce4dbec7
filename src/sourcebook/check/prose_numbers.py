"""Prose numbers against the figures: what the record's own words say of a campus.

A number with a unit of power, chips or H100-equivalents (`model/quantities.py`) said in
the record's prose is held to the figures of the campus it is said of:

- **said of**: the one campus its sentence names, by title or alias (link's matcher) or by
  a wiki link; in a campus's own prose, a sentence that names no campus speaks of that
  campus. A sentence that names two campuses or more, or none (outside a campus's prose),
  is not checked: it may compare, add up or speak of neither.
- **borne out**: some figure of that campus in the same dimension lies in the range the
  number's words allow. A sentence that speaks of a plan (`will`, `plans`, `target`,
  `expected`, `announced`, `due`, … `PLAN_WORDS`; or a year after the record closes) may
  rest on any figure; one that does not says what is or was, and rests only on figures
  that say so (operating, under construction, cancelled, a market's).
- **C001**: no figure of the campus, counted or not, bears it out;
- **C002**: only figures a correction or the record's doubt has retired bear it out.

Not checked: words in curly quotes (the source's, not the record's), code, addresses,
wiki links and citations; a source's title (its publisher's words); a correction's
`wrong` (the wrong claim, stated on purpose); and, for C002, the prose of the correction
that retires the figure, or a sentence that links it.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import partial
from typing import Any

from sourcebook.diagnostics import Diagnostics
from sourcebook.incremental import CHECKED, Memo, key_of
from sourcebook.link import prose as marks
from sourcebook.link.graph import Graph, build_matcher, positions, resolve_wiki
from sourcebook.link.names import NameMatcher
from sourcebook.model.base import Entity
from sourcebook.model.figures import placed_figures
from sourcebook.model.known import PAST_STATUSES, known
from sourcebook.model.quantities import Quantity, quantities
from sourcebook.model.record import Record
from sourcebook.model.retired import Retired, retired
from sourcebook.model.spans import merged, within

PLAN_WORDS = re.compile(
    r"\b(?:will|would|shall|could|may|might|plans?|planned|planning|targets?|targeted|"
    r"aims?|expects?|expected|expectation|projects?|projected|projection|forecasts?|"
    r"announce[sd]?|announcement|intends?|intended|proposed|promised?|eventually|"
    r"ultimately|goal|ambitions?|future|towards?|due|scheduled|slated|upcoming|"
    r"(?:is|are|was|were|set|going) to|to (?:be|reach|consume|draw|scale|add|hold|grow))\b",
    re.I,
)
"""Words by which a sentence speaks of what is to come, not of what is."""
_YEAR = re.compile(r"\b(?:19|20|21)\d\d\b")
_MAY_SAY = re.compile(r"\d|[kMGT]W|(?i:watt|GPU|chip|accelerator|H100)")
"""What a text that says a quantity holds: most texts hold none, and skip the rest."""


class _Values:
    """The values of some figures, sorted: whether one lies in a range is a bisection."""

    def __init__(self) -> None:
        self.found: list[tuple[float, str]] = []
        self.values: list[float] = []

    def add(self, value: float, figure: str) -> None:
        self.found.append((value, figure))

    def sort(self) -> None:
        self.found.sort()
        self.values = [value for value, _ in self.found]

    def first_in(self, said: Quantity) -> str | None:
        """The figure of the least value in the range `said` allows; None for none."""
        index = bisect.bisect_left(self.values, said.low)
        if index < len(self.values) and self.values[index] <= said.high:
            return self.found[index][1]
        return None


class _Figures:
    """Every figure of every campus, by campus, dimension, whether it says what is or was
    (operating, under construction, cancelled, a market's) and whether it is retired."""

    def __init__(self, record: Record):
        self.retired = retired(record, known(record))
        self.held: dict[tuple[str, str, bool, bool], _Values] = defaultdict(_Values)
        for p in placed_figures(record):
            base = p.base()
            if p.owner.KIND != "campus" or base is None:
                continue
            gone = p.id in self.retired
            self.held[(p.owner.id, base[1], True, gone)].add(base[0], p.id)
            if p.figure.status in PAST_STATUSES:
                self.held[(p.owner.id, base[1], False, gone)].add(base[0], p.id)
        for values in self.held.values():
            values.sort()

    def bearing(self, campus: str, said: Quantity, plan: bool) -> tuple[bool, Retired | None]:
        """Whether a counted figure of the campus bears `said` out; if none does, the
        retirement of a retired one that does (None where none does either)."""
        if self._first(campus, said, plan, False) is not None:
            return True, None
        figure = self._first(campus, said, plan, True)
        return False, self.retired[figure] if figure is not None else None

    def _first(self, campus: str, said: Quantity, plan: bool, gone: bool) -> str | None:
        values = self.held.get((campus, said.dimension, plan, gone))
        return values.first_in(said) if values is not None else None


def check_prose_numbers(
    record: Record, graph: Graph, diagnostics: Diagnostics, kept: Memo | None = None
) -> None:
    """C001 and C002 over every prose field of the record. What each entity's prose says
    is kept in `kept` by what the entity was read from, in two parts: its numbers, sentence
    by sentence, with the links each makes and whether it speaks of a plan (under the year
    the record closes); and the campuses each of those sentences names (under the record's
    names too). A save finds again what an unchanged entity says, a new name looks again
    only for names, and what is found is held to the figures as they are now."""
    if not record.of("campus"):
        return
    matcher = graph.matcher or build_matcher(record)
    closes = record.settings.book.stands_at().year
    memo = kept if kept is not None else Memo(CHECKED)
    says_under = key_of(CHECKED, "prose numbers", str(closes))
    names_under = key_of(CHECKED, "prose numbers' campuses", matcher.fingerprint)
    entities = list(record)
    says = partial(_says, closes=closes)
    spoken = memo.each(says_under, entities, record.read_as, _said, says)
    saying = [
        (entity, sentences) for entity, sentences in zip(entities, spoken, strict=True) if sentences
    ]
    if not saying:
        return
    said_by = {entity.key: said for entity, said in saying}

    def names(entity: Entity) -> list[tuple[str, ...]]:
        return _campuses(entity, said_by[entity.key], matcher)

    speakers = [entity for entity, _ in saying]
    named = memo.each(names_under, speakers, record.read_as, _named, names)
    figures = _Figures(record)
    for (entity, said), campuses in zip(saying, named, strict=True):
        _Held(entity, record, diagnostics).check(said, campuses, figures)


def _says(entity: Entity, closes: int) -> list[Plain]:
    """What the entity's prose says, sentence by sentence, as plain values."""
    found: list[Plain] = []
    for name, text in entity.prose():
        if _unchecked(entity, name) or _MAY_SAY.search(text) is None:
            continue
        regions = _regions(text)
        said = [q for q in quantities(text) if not within(regions, q.start)]
        if said:
            found += [s.plain() for s in _sentences(name, text, said, closes)]
    return found


def _campuses(entity: Entity, said: list[_Sentence], matcher: NameMatcher) -> list[tuple[str, ...]]:
    """The campuses each of the sentences names, by title or alias (in order)."""
    texts = dict(entity.prose())
    by_field: dict[str, list[int]] = defaultdict(list)
    for index, sentence in enumerate(said):
        by_field[sentence.field].append(index)
    named: list[set[str]] = [set() for _ in said]
    for name, indexes in by_field.items():
        text = texts[name]
        starts = [said[i].start for i in indexes]
        masked = marks.masked_regions(text) if marks.may_mask(text) else []
        for mention in matcher.find(text, masked):
            campuses = [target[1] for target in mention.targets if target[0] == "campus"]
            at = bisect.bisect_right(starts, mention.start) - 1
            if campuses and at >= 0 and mention.start < said[indexes[at]].end:
                named[indexes[at]].update(campuses)
    return [tuple(sorted(campuses)) for campuses in named]


def _named(plain: object) -> list[tuple[str, ...]] | None:
    """The campuses kept as plain values; None where what is kept is not them."""
    if not isinstance(plain, list) or not all(
        isinstance(each, tuple) and all(type(c) is str for c in each) for each in plain
    ):
        return None
    return plain


def _unchecked(entity: Entity, name: str) -> bool:
    return (entity.KIND == "source" and name == "title") or (
        entity.KIND == "correction" and name == "wrong"
    )


def _regions(text: str) -> list[tuple[int, int]]:
    """What is not the record's own words: quotes, code, addresses, wiki links, citations."""
    regions = marks.quote_spans(text).spans
    if marks.may_mask(text):
        regions = [*regions, *marks.masked_regions(text)]
    return merged(regions)


Plain = tuple[Any, ...]
"""A `_Sentence` as `marshal` keeps it (`_Sentence.plain`)."""


@dataclass
class _Sentence:
    """What one sentence of a prose field holds: its numbers, the wiki links in it (`kind`,
    `target`, as written) and whether it speaks of a plan. Kept from run to run and shared
    by them: never changed once made."""

    field: str
    start: int
    end: int
    said: list[Quantity] = dataclass_field(default_factory=list)
    wiki: list[tuple[str, str]] = dataclass_field(default_factory=list)
    plan: bool = False

    def plain(self) -> Plain:
        said = tuple((q.start, q.end, q.value, q.dimension, q.low, q.high) for q in self.said)
        return (self.field, self.start, self.end, said, tuple(self.wiki), self.plan)


def _said(plain: object) -> list[_Sentence] | None:
    """The sentences kept as plain values; None where what is kept is not them."""
    try:
        return [
            _Sentence(
                field,
                start,
                end,
                [Quantity(*q) for q in said],
                [(kind, target) for kind, target in wiki],
                bool(plan),
            )  # fmt: skip
            for field, start, end, said, wiki, plan in plain  # type: ignore[attr-defined]
        ]
    except (TypeError, ValueError):
        return None


def _sentences(name: str, text: str, said: list[Quantity], closes: int) -> list[_Sentence]:
    """The field's sentences that say a quantity, each with what it holds: one pass over
    each, every place put in its sentence by a bisection."""
    found = [_Sentence(name, start, end) for start, end in marks.sentences(text)]
    starts = [sentence.start for sentence in found]

    def of(at: int) -> _Sentence:
        return found[bisect.bisect_right(starts, at) - 1]

    for quantity in said:
        of(quantity.start).said.append(quantity)
    for link in marks.wiki_links(text) if "[[" in text else ():
        of(link.start).wiki.append((link.kind or "", link.target))
    saying = [sentence for sentence in found if sentence.said]
    for sentence in saying:
        sentence.plan = _plan(text, sentence.start, sentence.end, closes)
    return saying


def _plan(text: str, start: int, end: int, closes: int) -> bool:
    """Whether a sentence speaks of what is to come: a word of plans, or a year after the
    record closes."""
    if PLAN_WORDS.search(text, start, end) is not None:
        return True
    return any(int(y[0]) > closes for y in _YEAR.finditer(text, start, end))


@dataclass
class _Held:
    """One entity's sentences being held to the figures."""

    entity: Entity
    record: Record
    diagnostics: Diagnostics

    def check(self, said: list[_Sentence], named: list[tuple[str, ...]], figures: _Figures) -> None:
        for sentence, campuses_named in zip(said, named, strict=True):
            campuses = set(campuses_named)
            corrections: set[str] = set()
            for kind, target in sentence.wiki:
                key = resolve_wiki(self.record, kind or None, target)
                if key is not None and key[0] == "campus":
                    campuses.add(key[1])
                elif key is not None and key[0] == "correction":
                    corrections.add(key[1])
            if not campuses and self.entity.KIND == "campus":
                campuses = {self.entity.id}
            if len(campuses) != 1:
                continue
            (campus,) = campuses
            if self.entity.KIND == "correction":
                corrections.add(self.entity.id)
            for quantity in sentence.said:
                counted, retired_by = figures.bearing(campus, quantity, sentence.plan)
                if not counted:
                    self._report(sentence, quantity, campus, retired_by, corrections)

    def _report(
        self,
        sentence: _Sentence,
        quantity: Quantity,
        campus: str,
        retired_by: Retired | None,
        linked: set[str],
    ) -> None:
        text = dict(self.entity.prose())[sentence.field]
        words = text[quantity.start : quantity.end]
        plan = sentence.plan
        title = getattr(self.record.get("campus", campus), "title", campus)
        if retired_by is None:
            what = "" if plan else " as what is or was"
            self._warn(
                sentence.field,
                quantity,
                "C001",
                f"'{words}' said of {title}: no figure of {title}'s bears it out{what}",
                "give the campus the figure, with its source, or say what its figures say; "
                "a source's own words belong in curly quotes",
            )
        elif retired_by.correction is None or retired_by.correction not in linked:
            by = retired_by.correction
            why = f"correction '{by}'" if by else "the record's doubt"
            self._warn(
                sentence.field,
                quantity,
                "C002",
                f"'{words}' said of {title} rests only on figure '{retired_by.figure}', "
                f"which {why} retired",
                "say what the record holds now; to tell of the wrong figure, quote the "
                "source's words and link the correction",
            )

    def _warn(self, name: str, quantity: Quantity, code: str, message: str, hint: str) -> None:
        entity = self.entity
        text = dict(entity.prose())[name]
        where = positions(entity.prose_pos(name), text, entity.prose_span(name))
        self.diagnostics.warning(where.at(quantity.start), code, message, hint)
