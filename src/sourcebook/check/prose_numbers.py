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

import re
from collections import defaultdict
from dataclasses import dataclass

from sourcebook.diagnostics import Diagnostics
from sourcebook.link import prose as marks
from sourcebook.link.graph import Graph, build_matcher, positions, resolve_wiki
from sourcebook.link.names import NameMatcher
from sourcebook.model.base import Entity
from sourcebook.model.figures import placed_figures
from sourcebook.model.known import PAST_STATUSES, known
from sourcebook.model.quantities import Quantity, quantities
from sourcebook.model.record import Record
from sourcebook.model.refs import Key
from sourcebook.model.retired import Retired, retired

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


@dataclass(frozen=True, slots=True)
class _Held:
    """One figure of a campus, as a prose number is held to it."""

    figure: str
    value: float
    fact: bool
    """It says what is or was (operating, under construction, cancelled, a market's)."""
    retired: Retired | None


class _Figures:
    """Every figure of every campus, by campus and dimension."""

    def __init__(self, record: Record):
        gone = retired(record, known(record))
        self.held: dict[tuple[str, str], list[_Held]] = defaultdict(list)
        for p in placed_figures(record):
            base = p.base()
            if p.owner.KIND != "campus" or base is None:
                continue
            fact = p.figure.status in PAST_STATUSES
            self.held[(p.owner.id, base[1])].append(_Held(p.id, base[0], fact, gone.get(p.id)))

    def bearing(self, campus: str, said: Quantity, plan: bool) -> list[_Held]:
        """The campus's figures that bear out `said`, counted or retired."""
        return [
            h
            for h in self.held.get((campus, said.dimension), ())
            if (plan or h.fact) and said.allows(h.value)
        ]


def check_prose_numbers(record: Record, graph: Graph, diagnostics: Diagnostics) -> None:
    """C001 and C002 over every prose field of the record."""
    if not record.of("campus"):
        return
    figures = _Figures(record)
    matcher = graph.matcher or build_matcher(record)
    for entity in record:
        for field, text in entity.prose():
            if _unchecked(entity, field) or _MAY_SAY.search(text) is None:
                continue
            regions = _regions(text)
            said = [q for q in quantities(text) if not _masked(q, regions)]
            if said:
                _Field(entity, field, text, record, diagnostics).check(said, figures, matcher)


def _unchecked(entity: Entity, field: str) -> bool:
    return (entity.KIND == "source" and field == "title") or (
        entity.KIND == "correction" and field == "wrong"
    )


def _regions(text: str) -> list[tuple[int, int]]:
    """What is not the record's own words: quotes, code, addresses, wiki links, citations."""
    regions = marks.quote_spans(text).spans
    if marks.may_mask(text):
        regions = [*regions, *marks.masked_regions(text)]
    return regions


def _masked(said: Quantity, regions: list[tuple[int, int]]) -> bool:
    return any(start <= said.start < end for start, end in regions)


@dataclass
class _Field:
    """One prose field whose numbers are being held to the figures."""

    entity: Entity
    field: str
    text: str
    record: Record
    diagnostics: Diagnostics

    def check(self, said: list[Quantity], figures: _Figures, matcher: NameMatcher) -> None:
        named, linked = self._named(matcher)
        for start, end in marks.sentences(self.text):
            inside = [q for q in said if start <= q.start < end]
            if not inside:
                continue
            campuses = {key[1] for at, key in named if start <= at < end}
            if not campuses and self.entity.KIND == "campus":
                campuses = {self.entity.id}
            if len(campuses) != 1:
                continue
            (campus,) = campuses
            plan = self._plan(start, end)
            corrections = {key[1] for at, key in linked if start <= at < end}
            if self.entity.KIND == "correction":
                corrections.add(self.entity.id)
            for quantity in inside:
                found = figures.bearing(campus, quantity, plan)
                self._report(quantity, campus, found, plan, corrections)

    def _plan(self, start: int, end: int) -> bool:
        """Whether the sentence speaks of what is to come: a word of plans, or a year
        after the record closes."""
        if PLAN_WORDS.search(self.text, start, end) is not None:
            return True
        closes = self.record.settings.book.closes.year
        return any(int(y[0]) > closes for y in _YEAR.finditer(self.text, start, end))

    def _named(self, matcher: NameMatcher) -> tuple[list[tuple[int, Key]], list[tuple[int, Key]]]:
        """Where the text names each campus (by a name or alias, or a wiki link), and
        where it links each correction."""
        text = self.text
        masked = marks.masked_regions(text) if marks.may_mask(text) else []
        campuses = [
            (mention.start, target)
            for mention in matcher.find(text, masked)
            for target in mention.targets
            if target[0] == "campus"
        ]
        corrections = []
        for link in marks.wiki_links(text) if "[[" in text else ():
            key = resolve_wiki(self.record, link.kind, link.target)
            if key is not None and key[0] == "campus":
                campuses.append((link.start, key))
            elif key is not None and key[0] == "correction":
                corrections.append((link.start, key))
        return campuses, corrections

    def _report(
        self, quantity: Quantity, campus: str, found: list[_Held], plan: bool, linked: set[str]
    ) -> None:
        words = self.text[quantity.start : quantity.end]
        title = getattr(self.record.get("campus", campus), "title", campus)
        if not found:
            what = "" if plan else " as what is or was"
            self._warn(
                quantity,
                "C001",
                f"'{words}' said of {title}: no figure of {title}'s bears it out{what}",
                "give the campus the figure, with its source, or say what its figures say; "
                "a source's own words belong in curly quotes",
            )
            return
        if any(h.retired is None for h in found):
            return
        why = found[0].retired
        assert why is not None
        if why.correction is not None and why.correction in linked:
            return
        by = f"correction '{why.correction}'" if why.correction else "the record's doubt"
        self._warn(
            quantity,
            "C002",
            f"'{words}' said of {title} rests only on figure '{why.figure}', which {by} retired",
            "say what the record holds now; to tell of the wrong figure, quote the source's "
            "words and link the correction",
        )

    def _warn(self, quantity: Quantity, code: str, message: str, hint: str) -> None:
        entity, field = self.entity, self.field
        where = positions(entity.prose_pos(field), self.text, entity.prose_span(field))
        self.diagnostics.warning(where.at(quantity.start), code, message, hint)
