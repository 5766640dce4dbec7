"""`sourcebook check --quotes --list`: each quote's verdict, one after another."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import click

from sourcebook.diagnostics import shown
from sourcebook.library.explain import Explained, Verdict
from sourcebook.library.rules import RULES

if TYPE_CHECKING:
    from sourcebook.library.copies import CopyProofs
    from sourcebook.model.refs import QuoteClaim

QUOTE_SHOWN = 120
"""The most characters of a quote the list repeats."""


def print_quote_list(explained: Iterable[Explained], copies: Iterable[CopyProofs] = ()) -> None:
    """Each quote's verdict; where its source has several copies, which hold it."""
    held = held_by(copies)
    for item in explained:
        click.echo(_line(item))
        for detail in _details(item):
            click.echo(f"  {detail}")
        each = held.get(item.proof.claim)
        if each:
            said = "; ".join(f"{shelf} {'holds it' if h else 'does not'}" for shelf, h in each)
            click.echo(f"  copies: {said}")


def held_by(copies: Iterable[CopyProofs]) -> dict[QuoteClaim, list[tuple[str, bool]]]:
    """For each quote of a source with several copies, whether each copy holds it."""
    return {
        claim: [(item.shelf, h) for item, h in zip(found.items, held, strict=True)]
        for found in copies
        for claim, held in found.held.items()
    }


def _line(item: Explained) -> str:
    claim, found = item.proof.claim, item.proof.found
    where = ""
    if found is not None:
        where = f" in {found.shelf}" + (f", {found.locator}" if found.locator else "")
    said = _shown(claim.text)
    return f"{shown(str(claim.pos))}: {claim.source}: {item.verdict.value}{where}: “{said}”"


def _details(item: Explained) -> list[str]:
    out: list[str] = []
    if item.verdict is Verdict.NORMALIZED:
        rules = "; ".join(f"{n}. {RULES[n]}" for n in item.rules)
        out.append(f"rules needed: {rules}" if rules else "rules needed: several, together")
    if item.gaps:
        out.append("leaves words out or puts them otherwise: … or [ ]")
    near = item.nearest
    if item.verdict is Verdict.NOT_FOUND:
        searched = ", ".join(item.proof.searched)
        if near is None:
            out.append(f"searched {searched}: no passage shares a word with it")
        else:
            shelf, passage = near
            out.append(f"nearest, in {shelf}, as the copy reads: “{passage.marked}”")
            out += [f"- {difference}" for difference in passage.differences]
    if item.verdict is Verdict.ELSEWHERE:
        for shelf, holders in item.proof.elsewhere:
            out.append(f"found in {shelf}, held for {', '.join(holders) or 'no source'}")
    if item.verdict is Verdict.NO_COPY:
        out.append(f"add one: sourcebook library add FILE --source {item.proof.claim.source}")
    return out


def _shown(text: str) -> str:
    text = shown(" ".join(text.split()))
    return text if len(text) <= QUOTE_SHOWN else text[: QUOTE_SHOWN - 1] + "…"
