"""A name or alias may stand for one entity only (a term and what it is `same_as` excepted)."""

from __future__ import annotations

from collections.abc import Mapping

from sourcebook.diagnostics import Diagnostics
from sourcebook.link.graph import Graph
from sourcebook.link.names import plural_forms
from sourcebook.model.kinds import KINDS
from sourcebook.model.record import Record


def check_names(record: Record, graph: Graph, diagnostics: Diagnostics) -> None:
    mentionable = {k.name for k in KINDS if k.mentionable}
    pairs = _same_as_pairs(record)
    owners: dict[str, tuple[str, str]] = {}
    written: dict[str, str] = {}
    for entity in record:
        if entity.KIND not in mentionable:
            continue
        own: set[str] = set()
        for index, name in enumerate(entity.names()):
            folded = name.strip().casefold()
            pos = entity.pos("title") if index == 0 else entity.pos("aliases", index - 1)
            if not folded:
                diagnostics.error(pos, "L004", "empty name", "give it a title or remove the alias")
                continue
            if folded in own:
                diagnostics.warning(pos, "L004", f"'{name}' is given twice", "remove the repeat")
                continue
            own.add(folded)
            first = owners.get(folded)
            if first is None:
                owners[folded] = entity.key
                written[folded] = name.strip()
            elif frozenset((first, entity.key)) not in pairs:
                diagnostics.error(
                    pos,
                    "L004",
                    f"name '{name}' also names {first[0]} '{first[1]}'",
                    "a name may stand for one entity: drop the alias, or for a term that names "
                    f"the other, write same_as: {first[0]}:{first[1]}",
                )
    plurals = graph.matcher.plurals if graph.matcher is not None else None
    _check_plural_clashes(owners, written, pairs, record, diagnostics, plurals)


def _same_as_pairs(record: Record) -> set[frozenset]:
    pairs = set()
    for term in record.of("term"):
        same_as = getattr(term, "same_as", None)
        if same_as and ":" in same_as:
            kind, _, target = same_as.partition(":")
            pairs.add(frozenset((term.key, (kind, target))))
    return pairs


def _check_plural_clashes(
    owners: dict,
    written: dict[str, str],
    pairs: set,
    record: Record,
    diagnostics: Diagnostics,
    plurals: Mapping[str, str | None] | None = None,
) -> None:
    """A name that is another's plural (Megapack, Megapacks) makes mentions ambiguous.
    Plurals are formed from the names as written, as the mention matcher forms them: an
    acronym's plural is not a word's (SIS, SISs; not sis, ses); `plurals`: the matcher's."""
    for folded, owner in owners.items():
        for form in plural_forms(written[folded], plurals)[1:]:
            other = owners.get(form.casefold())
            if other and other != owner and frozenset((owner, other)) not in pairs:
                entity = record.get(*other)
                if entity is not None:
                    diagnostics.warning(
                        entity.pos("title"),
                        "L007",
                        f"'{form}' is the plural of a name of {owner[0]} '{owner[1]}'",
                        "mentions of the plural will be found as this entity",
                    )
