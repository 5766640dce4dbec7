"""Markup that would print as text: the record's marks in a field the site shows as written.

The site renders a kind's prose fields (`PROSE_FIELDS`: a body, an annotation, what was
read, a definition…) as prose: wiki links, embeds, citations and Markdown work there. Every
other text a reader sees — titles and names, a campus's place, notes on figures and roles,
a person's role, a scenario's parameters and futures — is shown as written, so a mark in
it would stand on the page as typed: `([[correction:x]])`, `[@source]`, `**`. Each field
of each kind is one of three things (`SHOWN_PLAIN`, `NOT_SHOWN`, or prose); a source's
words (`quote`, a highlight's `exact`) are never looked at, since they stay as the source
has them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from sourcebook.diagnostics import Diagnostics
from sourcebook.link.graph import positions
from sourcebook.link.prose import CITATION, WIKI_LINK, cited
from sourcebook.model.base import Entity, Path_
from sourcebook.model.settings import Settings

SHOWN_PLAIN: dict[str, frozenset[str]] = {
    "Entity": frozenset({"title", "aliases"}),
    "Campus": frozenset({"location"}),
    "CampusParty": frozenset({"note", "supplies"}),
    "Figure": frozenset({"note", "method", "unreliable", "qualifier", "chip", "phase"}),
    "Source": frozenset(
        {"publication", "reprint", "sponsor", "pages", "volume", "publisher_place"}
    ),
    "Person": frozenset({"role", "given", "family"}),
    "Parameter": frozenset({"title", "note", "method"}),
    "Future": frozenset({"title", "summary"}),
    "Highlight": frozenset({"note"}),
}
"""By model: the text fields the site shows as written, where a mark would print as text."""

NOT_SHOWN: frozenset[str] = frozenset(
    {
        # ids and references to other entities
        "id", "same_as", "chapters", "related", "chapter", "party", "source", "authors",
        "publisher", "disputed_by", "affiliations", "inputs", "corrects", "campus",
        "ramp", "revenue", "power_per_chip", "cost_per_power", "library", "hypothesis",
        "organizations", "citation_key",
        # values of a vocabulary, days, addresses, code
        "status", "roles", "grade", "metric", "unit", "category", "type", "scope", "country",
        "quality", "csl_type", "doi", "urls", "url", "as_of", "stated", "date", "updated",
        "deadline", "created", "tags", "query", "spec", "accessed", "language",
        # a source's own words, as it has them
        "quote", "exact", "prefix", "suffix",
    }
)  # fmt: skip
"""Fields that hold no text of the record's to show: ids, vocabularies, days, addresses,
queries, and the sources' own words."""

_MARKUP = re.compile(r"\*\*|\]\(")


def check_markup(entity: Entity, settings: Settings, diagnostics: Diagnostics) -> None:
    """C003: a mark in a field the site shows as written (an entity rule)."""
    prose = set(entity.PROSE_FIELDS) - {"title"}
    for path, text in _shown_plain(entity, entity, (), prose):
        found = first_mark(text)
        if found is None:
            continue
        at, mark = found
        where = positions(entity.pos(*path), text, entity.origin.spans.get(path))
        name = ".".join(str(part) for part in path)
        diagnostics.warning(
            where.at(at),
            "C003",
            f"{mark} in '{name}' will print as text: the site shows this field as written",
            "write it in plain words; a link, a citation or emphasis belongs in the "
            "entity's body or another prose field",
        )


def first_mark(text: str) -> tuple[int, str] | None:
    """The first mark of `text` that prose would read as markup, and what it is."""
    found: list[tuple[int, str]] = []
    if "[[" in text:
        link = WIKI_LINK.search(text)
        if link is not None:
            found.append((link.start(), f"the wiki link {link[0]!r}"))
    if "[@" in text:
        for citation in CITATION.finditer(text):
            if cited(citation[1]):
                found.append((citation.start(), f"the citation {citation[0]!r}"))
                break
    if "**" in text or "](" in text:
        mark = _MARKUP.search(text)
        if mark is not None:
            what = "'**' (bold)" if mark[0] == "**" else "a Markdown link '](…)'"
            found.append((mark.start(), what))
    return min(found) if found else None


def _shown_plain(
    model: BaseModel, entity: Entity, path: Path_, prose: set[str]
) -> Iterator[tuple[Path_, str]]:
    """Every text of `model` the site shows as written, with its front-matter path."""
    shown = SHOWN_PLAIN.get(type(model).__name__, frozenset())
    if isinstance(model, Entity):
        shown = shown | SHOWN_PLAIN["Entity"]
    for name in type(model).model_fields:
        if name in NOT_SHOWN or (not path and name in prose) or name == "body":
            continue
        value: Any = getattr(model, name, None)
        if isinstance(value, BaseModel):
            yield from _shown_plain(value, entity, (*path, name), prose)
        elif isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                if isinstance(item, BaseModel):
                    yield from _shown_plain(item, entity, (*path, name, index), prose)
                elif isinstance(item, str) and name in shown:
                    yield (*path, name, index), item
        elif isinstance(value, str) and name in shown:
            yield (*path, name), value
