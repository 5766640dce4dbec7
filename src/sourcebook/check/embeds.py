"""Embeds: `![[kind:id|what]]` must name something the site computes.

An embed says a computed value in prose (`link.prose.EMBEDDED`): a scorecard row's value or
the campus it is at, a campus's evidenced power, chips or stage, a test's verdict. One that
names an entity of another kind, or a `what` its kind does not compute, would print as a
plain link, so it is an error (L008). The entity it names is checked as any wiki link's is
(L001, L002, L005). A paper's line that is only `![[chart:ID]]` or `![[chart:ID|table]]` is
a figure, not an embed.
"""

from __future__ import annotations

from sourcebook.diagnostics import Diagnostics, did_you_mean
from sourcebook.link.graph import Graph, positions, resolve_wiki
from sourcebook.link.markdown import EMBED_LINE
from sourcebook.link.prose import EMBEDDED, Embed, embeds
from sourcebook.model.record import Record


def check_embeds(record: Record, graph: Graph, diagnostics: Diagnostics) -> None:
    for entity in record:
        for field, text in entity.prose():
            if "![[" not in text:
                continue
            figures = _figure_lines(text) if entity.KIND == "paper" and field == "body" else set()
            for embed in embeds(text):
                if embed.start in figures:
                    continue
                problem = _problem(record, embed)
                if problem is not None:
                    where = positions(entity.prose_pos(field), text, entity.prose_span(field))
                    diagnostics.error(where.at(embed.start), "L009", *problem)


def _figure_lines(text: str) -> set[int]:
    """Where each line of a paper that is a figure starts."""
    return {m.start() for m in EMBED_LINE.finditer(text)}


def _problem(record: Record, embed: Embed) -> tuple[str, str | None] | None:
    """What is wrong with an embed, as (message, hint); None where nothing is, or where
    the entity it names is unknown (a wiki link's error already)."""
    key = resolve_wiki(record, embed.kind, embed.target)
    if key is None or record.get(*key) is None:
        return None
    written = text_of(embed)
    kinds = ", ".join(f"a {kind}'s {' or '.join(whats)}" for kind, whats in EMBEDDED.items())
    whats = EMBEDDED.get(key[0])
    if whats is None:
        return (
            f"{written} embeds nothing: nothing of a {key[0]} is computed to say in prose",
            f"an embed says {kinds}; to link to the {key[0]}, write [[{key[0]}:{key[1]}]]",
        )
    if embed.what is not None and embed.what not in whats:
        hint = did_you_mean(embed.what, whats) or f"write one of: {', '.join(whats)}"
        return f"{written}: a {key[0]} has no '{embed.what}' to embed", hint
    return None


def text_of(embed: Embed) -> str:
    named = f"{embed.kind}:{embed.target}" if embed.kind else embed.target
    return f"![[{named}|{embed.what}]]" if embed.what else f"![[{named}]]"
