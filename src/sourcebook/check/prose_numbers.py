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
from dataclasses import dataclass, field

from sourcebook.diagnostics import Diagnostics
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


def check_prose_numbers(record: Record, graph: Graph, diagnostics: Diagnostics) -> None:
    """C001 and C002 over every prose field of the record."""
    if not record.of("campus"):
        return
    figures = _Figures(record)
    matcher = graph.matcher or build_matcher(record)
    for entity in record:
        for name, text in entity.prose():
            if _unchecked(entity, name) or _MAY_SAY.search(text) is None:
                continue
            regions = _regions(text)
            said = [q for q in quantities(text) if not within(regions, q.start)]
            if said:
                _Field(entity, name, text, record, diagnostics).check(said, figures, matcher)


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


@dataclass
class _Sentence:
    """What one sentence of a field holds: its numbers, the campuses it names and the
    corrections it links."""

    start: int
    end: int
    said: list[Quantity] = field(default_factory=list)
    campuses: set[str] = field(default_factory=set)
    corrections: set[str] = field(default_factory=set)


@dataclass
class _Field:
    """One prose field whose numbers are being held to the figures."""

    entity: Entity
    name: str
    text: str
    record: Record
    diagnostics: Diagnostics

    def check(self, said: list[Quantity], figures: _Figures, matcher: NameMatcher) -> None:
        for sentence in self._sentences(said, matcher):
            campuses = sentence.campuses
            if not campuses and self.entity.KIND == "campus":
                campuses = {self.entity.id}
            if not sentence.said or len(campuses) != 1:
                continue
            (campus,) = campuses
            plan = self._plan(sentence.start, sentence.end)
            if self.entity.KIND == "correction":
                sentence.corrections.add(self.entity.id)
            for quantity in sentence.said:
                counted, retired_by = figures.bearing(campus, quantity, plan)
                if not counted:
                    self._report(quantity, campus, retired_by, plan, sentence.corrections)

    def _sentences(self, said: list[Quantity], matcher: NameMatcher) -> list[_Sentence]:
        """The field's sentences, each with what it holds: one pass over each, every
        place put in its sentence by a bisection."""
        found = [_Sentence(start, end) for start, end in marks.sentences(self.text)]
        starts = [sentence.start for sentence in found]

        def of(at: int) -> _Sentence:
            return found[bisect.bisect_right(starts, at) - 1]

        for quantity in said:
            of(quantity.start).said.append(quantity)
        text = self.text
        masked = marks.masked_regions(text) if marks.may_mask(text) else []
        for mention in matcher.find(text, masked):
            for target in mention.targets:
                if target[0] == "campus":
                    of(mention.start).campuses.add(target[1])
        for link in marks.wiki_links(text) if "[[" in text else ():
            key = resolve_wiki(self.record, link.kind, link.target)
            if key is not None and key[0] == "campus":
                of(link.start).campuses.add(key[1])
            elif key is not None and key[0] == "correction":
                of(link.start).corrections.add(key[1])
        return found

    def _plan(self, start: int, end: int) -> bool:
        """Whether the sentence speaks of what is to come: a word of plans, or a year
        after the record closes."""
        if PLAN_WORDS.search(self.text, start, end) is not None:
            return True
        closes = self.record.settings.book.stands_at().year
        return any(int(y[0]) > closes for y in _YEAR.finditer(self.text, start, end))

    def _report(
        self,
        quantity: Quantity,
        campus: str,
        retired_by: Retired | None,
        plan: bool,
        linked: set[str],
    ) -> None:
        words = self.text[quantity.start : quantity.end]
        title = getattr(self.record.get("campus", campus), "title", campus)
        if retired_by is None:
            what = "" if plan else " as what is or was"
            self._warn(
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
                quantity,
                "C002",
                f"'{words}' said of {title} rests only on figure '{retired_by.figure}', "
                f"which {why} retired",
                "say what the record holds now; to tell of the wrong figure, quote the "
                "source's words and link the correction",
            )

    def _warn(self, quantity: Quantity, code: str, message: str, hint: str) -> None:
        entity, name = self.entity, self.name
        where = positions(entity.prose_pos(name), self.text, entity.prose_span(name))
        self.diagnostics.warning(where.at(quantity.start), code, message, hint)
