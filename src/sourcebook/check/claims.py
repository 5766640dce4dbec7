"""Claims the counts deny: prose that says every quote (or figure) is proved, when not all are.

A sentence of the record's prose (outside curly quotes) that says `every`, `all` or `each`
of its quotes, or of its figures or numbers, is `proved`, `proven`, `verified` or `checked`
makes a claim the Library's proof can count. Where the count denies it — some quote is not
proved against an archived copy, some figure's quote is not — check warns (C004) with the
count, at the quantifier. "Not every", "nearly all", "almost all" and "most" make no such
claim.
"""

from __future__ import annotations

import re

from sourcebook.diagnostics import Diagnostics
from sourcebook.incremental import CHECKED, Memo, key_of
from sourcebook.library.report import QuoteReport
from sourcebook.link import prose as marks
from sourcebook.link.graph import positions
from sourcebook.model.base import Entity
from sourcebook.model.figures import placed_figures
from sourcebook.model.record import Record
from sourcebook.model.spans import within

_CLAIM = re.compile(
    r"\b(?P<all>every|all|each)\b(?P<between>[^.!?;,\n]{0,40}?)"
    r"\b(?:(?P<quotes>quot(?:e|es|ation|ations))|(?P<figures>figures?|numbers?))\b"
    r"(?:\s+[\w’']+){0,5}?\s+(?:(?:is|are|was|were|stands?|stood|been|now)\s+"
    r"(?:[\w’']+\s+){0,2}?)?(?:prove[dn]|verified|checked)\b",
    re.I,
)
"""Every, all or each; within a few words, quotes or figures; then within five words
(a clause: `that it makes`), proved, verified or checked, after a copula where it is
not the next word. Each part bounded, so a search stops within a few hundred characters."""
_DENIED_BEFORE = re.compile(r"\b(?:not|never|nearly|almost|most|hardly)\W*$", re.I)


def check_claims(
    record: Record, proofs: QuoteReport, diagnostics: Diagnostics, kept: Memo | None = None
) -> None:
    """C004 over every prose field of the record. Where each entity's prose makes a claim
    is kept in `kept` by what the entity was read from: an edit looks again in its own."""
    quotes = proofs.total()
    figures = len(placed_figures(record))
    figures_proved = sum(
        1 for p in proofs.proofs if p.verified and p.claim.field.startswith("figures.")
    )
    counts = {
        "quotes": (quotes.verified, quotes.quotes, "quotes"),
        "figures": (figures_proved, figures, "figures"),
    }
    if all(proved >= made for proved, made, _ in counts.values()):
        return
    memo = kept if kept is not None else Memo(CHECKED)
    under = key_of(CHECKED, "claims of proof")
    entities = list(record)
    found = memo.each(under, entities, record.read_as, _made, _made_by)
    for entity, claims in zip(entities, found, strict=True):
        for field, at, word, said in claims:
            proved, made, what = counts[said]
            if proved >= made:
                continue
            text = dict(entity.prose())[field]
            claim = f"all {what} are" if word == "all" else f"{word} {what[:-1]} is"
            where = positions(entity.prose_pos(field), text, entity.prose_span(field))
            diagnostics.warning(
                where.at(at),
                "C004",
                f"says {claim} proved, but the Library proves {proved:,} of the "
                f"record's {made:,} {what}",
                "say how many, or what is so of those with a copy held; the record at "
                "a glance shows the count",
            )


Made = tuple[str, int, str, str]
"""A claim as kept: its field, where it starts, its quantifier, and what it is of."""


def _made_by(entity: Entity) -> list[Made]:
    """Every claim the entity's prose makes, field by field."""
    found: list[Made] = []
    for field, text in entity.prose():
        lowered = text.lower()
        if any(word in lowered for word in ("prove", "verified", "checked")):
            found += [(field, at, word, said) for at, word, said in _claims(text)]
    return found


def _made(plain: object) -> list[Made] | None:
    """The claims kept, or None where what is kept is not them."""
    if not isinstance(plain, list) or not all(
        type(c) is tuple
        and len(c) == 4
        and type(c[0]) is str
        and type(c[1]) is int
        and type(c[2]) is str
        and c[3] in ("quotes", "figures")
        for c in plain
    ):
        return None
    return plain


def _claims(text: str) -> list[tuple[int, str, str]]:
    """Where each claim of `text` starts, its quantifier, and whether it is of quotes or
    figures."""
    quoted = marks.quote_spans(text).spans if "“" in text else []
    found = []
    for match in _CLAIM.finditer(text):
        start = match.start()
        if within(quoted, start):
            continue
        if _DENIED_BEFORE.search(text, max(0, start - 12), start) is not None:
            continue
        found.append((start, match["all"].lower(), "quotes" if match["quotes"] else "figures"))
    return found
