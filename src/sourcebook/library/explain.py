"""Each quote's verdict, explained: exact, proved after which rules, or why not proved.

For `sourcebook check --quotes --list`. Check proves a quote once, under all the rules;
here a proved quote is looked for again in the copy that holds it, first as written (an
exact quote), then with each rule left out in turn: the rules it cannot be found without
are the ones it needed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum

from sourcebook.library.match import locate
from sourcebook.library.nearest import Nearest
from sourcebook.library.normalize import compile_quote
from sourcebook.library.report import Proof, QuoteReport, Status
from sourcebook.library.rules import RULES, normalizer, unchanged
from sourcebook.model.library import Library


class Verdict(StrEnum):
    EXACT = "exact"
    NORMALIZED = "proved after normalization"
    NOT_FOUND = "not found"
    ELSEWHERE = "found only in another source"
    NO_COPY = "no copy"


_VERDICTS = {
    Status.NOT_FOUND: Verdict.NOT_FOUND,
    Status.ELSEWHERE: Verdict.ELSEWHERE,
    Status.UNVERIFIABLE: Verdict.NO_COPY,
}


@dataclass(frozen=True)
class Explained:
    """A quote's proof with its verdict and, for a proved one, the rules it needed."""

    proof: Proof
    verdict: Verdict
    rules: tuple[int, ...] = ()
    gaps: bool = False
    """The quote leaves words out (an ellipsis) or puts them otherwise ([like this])."""

    @property
    def nearest(self) -> tuple[str, Nearest] | None:
        return self.proof.nearest

    def as_json(self) -> dict[str, object]:
        claim, found = self.proof.claim, self.proof.found
        near = self.nearest
        return {
            "file": claim.pos.file,
            "line": claim.pos.line,
            "col": claim.pos.col,
            "source": claim.source,
            "in": f"{claim.owner[0]}:{claim.owner[1]}",
            "field": claim.field,
            "quote": claim.text,
            "verdict": self.verdict.value,
            "rules": [{"rule": n, "what": RULES[n]} for n in self.rules],
            "gaps": self.gaps,
            "shelf": found.shelf if found else None,
            "locator": found.locator if found else None,
            "searched": list(self.proof.searched),
            "nearest": None
            if near is None
            else {
                "shelf": near[0],
                "passage": near[1].marked,
                "differences": list(near[1].differences),
            },
            "elsewhere": [
                {"shelf": shelf, "held_for": list(holders)}
                for shelf, holders in self.proof.elsewhere
            ],
        }


def explain(report: QuoteReport, library: Library) -> Iterator[Explained]:
    """Every proof of the report, in its order, explained."""
    copies = _Copies(library)
    for proof in report.proofs:
        if proof.status is not Status.VERIFIED or proof.found is None:
            yield Explained(proof, _VERDICTS[proof.status])
            continue
        yield _proved(proof, copies.text(proof.found.shelf), copies)


def _proved(proof: Proof, raw: str, copies: _Copies) -> Explained:
    text = proof.claim.text
    gaps = len(compile_quote(text).parts) > 1 or "[" in text
    if locate(compile_quote(text, unchanged), raw) is not None:
        return Explained(proof, Verdict.EXACT, gaps=gaps)
    assert proof.found is not None
    needed = tuple(
        rule
        for rule in RULES
        if locate(compile_quote(text, normalizer(rule)), copies.without(proof.found.shelf, rule))
        is None
    )
    return Explained(proof, Verdict.NORMALIZED, needed, gaps)


class _Copies:
    """Each copy's text as it is, and with each rule left out, made once."""

    def __init__(self, library: Library):
        self.library = library
        self._texts: dict[tuple[str, int | None], str] = {}

    def text(self, shelf: str) -> str:
        key = (shelf, None)
        if key not in self._texts:
            path = self.library.text_path(shelf)
            try:
                self._texts[key] = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                self._texts[key] = ""
        return self._texts[key]

    def without(self, shelf: str, rule: int) -> str:
        key = (shelf, rule)
        if key not in self._texts:
            self._texts[key] = normalizer(rule)(self.text(shelf))
        return self._texts[key]
