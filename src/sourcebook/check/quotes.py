"""Every quote stands in a Library copy of its source; every shelf a source names exists.

The proof is returned, for the stages after check (see `check/result.py`).
"""

from __future__ import annotations

from sourcebook.diagnostics import Diagnostic, Diagnostics, Pos, did_you_mean
from sourcebook.incremental import CHECKED, Memo, key_of
from sourcebook.library.report import Proof, QuoteReport, Status
from sourcebook.library.verify import verify_quotes
from sourcebook.link.graph import Graph
from sourcebook.model.record import Record

QUOTE_SHOWN = 90
"""The most characters of a quote a message repeats."""


def check_quotes(
    record: Record, graph: Graph, diagnostics: Diagnostics, kept: Memo | None = None
) -> QuoteReport:
    """`kept`: what each entity's lists quote, from earlier runs (`verify.quote_claims`)."""
    _check_shelves(record, diagnostics)
    report = verify_quotes(record, graph, kept=kept)
    diagnostics.extend(_reported(report, kept))
    for _owner, pos in graph.unbalanced:
        diagnostics.warning(
            pos,
            "Q009",
            "a curly quotation mark that no other balances: the quotes around it are "
            "taken as the innermost pairs",
            "close the quote, or write a quote inside a quote with its own pair: "
            "“the first of many “Fairwater” sites”",
        )
    for _owner, pos in graph.straight:
        diagnostics.warning(
            pos,
            "Q011",
            "words in straight quotes before a citation are not checked as a quote",
            "write them in curly quotes, “…”, to have them proved against the source's copy "
            "('sourcebook check --fix-quotes' does it in place)",
        )
    return report


def _check_shelves(record: Record, diagnostics: Diagnostics) -> None:
    library = record.library
    named: set[str] = set()
    for source in record.of("source"):
        for index, shelf in enumerate(getattr(source, "library", [])):
            named.add(shelf)
            if library.get(shelf) is None:
                diagnostics.error(
                    source.pos("library", index),
                    "Q004",
                    f"source '{source.id}' names {shelf}, which is not in the Library",
                    did_you_mean(shelf, library.items) or "add the copy: sourcebook library add",
                )
    for item in library:
        if item.shelf not in named:
            diagnostics.warning(
                _item_pos(record, item.shelf),
                "Q007",
                f"{item.shelf} is held for no source",
                "name it in the 'library:' list of the source it is a copy of",
            )


def _reported(report: QuoteReport, kept: Memo | None) -> list[Diagnostic]:
    """What the proofs report; the last run's where `kept` holds the same report (`serve`,
    where nothing the proofs rest on changed: `verify_quotes`)."""
    last = kept.held(_REPORTED) if kept is not None else None
    if last is not None and last[0] is report:
        return last[1]  # type: ignore[no-any-return]
    found = Diagnostics()
    for proof in report.proofs:
        _report(proof, found)
    if kept is not None:
        kept.hold(_REPORTED, (report, found.items))
    return found.items


_REPORTED = key_of(CHECKED, "what the quotes' proofs report, held")


def _report(proof: Proof, diagnostics: Diagnostics) -> None:
    claim = proof.claim
    quoted = _shown(claim.text)
    if proof.status is Status.UNVERIFIABLE:
        diagnostics.warning(
            claim.pos,
            "Q003",
            f"quote cannot be verified: '{claim.source}' has no copy in the Library: {quoted}",
            f"add one: sourcebook library add FILE --source {claim.source}",
        )
    elif proof.status is Status.ELSEWHERE:
        where = "; ".join(
            f"{shelf} (held for {', '.join(holders) or 'no source'})"
            for shelf, holders in proof.elsewhere
        )
        diagnostics.error(
            claim.pos,
            "Q002",
            f"quote not found in {_searched(proof)} of '{claim.source}' but in {where}: {quoted}",
            "cite the source whose copy holds it, or add the right copy to this source",
        )
    elif proof.status is Status.NOT_FOUND:
        diagnostics.error(
            claim.pos,
            "Q001",
            f"quote not found in {_searched(proof)} of '{claim.source}': {quoted}",
            _nearest_hint(proof),
        )
    else:
        _check_locator(proof, diagnostics)


def _searched(proof: Proof) -> str:
    return ("copy " if len(proof.searched) == 1 else "copies ") + ", ".join(proof.searched)


def _nearest_hint(proof: Proof) -> str:
    if proof.nearest is None:
        return "no passage of the copy shares a word with it"
    shelf, near = proof.nearest
    differences = "; ".join(near.differences) or "a difference in punctuation only"
    return f"nearest, in {shelf}: “{near.marked}” ({differences})"


def _check_locator(proof: Proof, diagnostics: Diagnostics) -> None:
    """A citation's page must agree with the page the quote was found on."""
    cited = _cited_page(proof.claim.locator)
    found = proof.found
    if cited is None or found is None or found.first_page is None:
        return
    last = found.last_page or found.first_page
    if not found.first_page <= cited <= last:
        diagnostics.warning(
            proof.claim.pos,
            "Q008",
            f"quote cited at p. {cited} stands on {found.locator} of {found.shelf}",
            f"write {found.locator} in the citation",
        )


def _cited_page(locator: str | None) -> int | None:
    if not locator:
        return None
    words = locator.replace(".", " ").split()
    if len(words) >= 2 and words[0] in ("p", "pp", "page", "pages") and words[1].isdigit():
        return int(words[1])
    return None


def _shown(text: str) -> str:
    text = " ".join(text.split())
    return f"“{text if len(text) <= QUOTE_SHOWN else text[: QUOTE_SHOWN - 1] + '…'}”"


def _item_pos(record: Record, shelf: str) -> Pos:
    return Pos(record.library.shown_path(f"{shelf}.yaml"))


def summary(report: QuoteReport) -> str:
    total = report.total()
    return (
        f"{total.quotes} quotes: {total.verified} verified, {total.not_found} not found, "
        f"{total.unverifiable} unverifiable; {total.marked} marked as not quotes"
    )
