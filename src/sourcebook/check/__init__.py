"""Stage 3, check: every rule over the linked record, each reporting diagnostics.

A rule is a function `(record, graph, diagnostics) -> None`. The built-in rules are
listed in RULES; a later stage (the Library, figures) adds its own the same way. A rule
that reads one entity at a time and the settings alone is an entity rule,
`(entity, settings, diagnostics) -> None`, listed in ENTITY_RULES: its results are kept
from run to run by what each entity was read from (`check/each.py`). The Library's proof
of the quotes is what check gives besides its diagnostics (`check/result.py`).
"""

from __future__ import annotations

from collections.abc import Callable

from sourcebook.check import (
    addresses,
    charts,
    claims,
    dates,
    embeds,
    figures,
    manifests,
    markup,
    names,
    prose_numbers,
    quotes,
    references,
    roles,
    scenarios,
    scripts,
    sizes,
    structure,
    usage,
    watched,
)
from sourcebook.check.clock import kept_clock
from sourcebook.check.each import EntityRule, check_each
from sourcebook.diagnostics import Diagnostics
from sourcebook.incremental import CHECKED, Memo
from sourcebook.library.report import QuoteReport
from sourcebook.link.graph import Graph
from sourcebook.model.record import Record
from sourcebook.runtime.collector import collector_paused

__all__ = ["ENTITY_RULES", "RULES", "EntityRule", "Rule", "check_record"]

Rule = Callable[[Record, Graph, Diagnostics], None]

ENTITY_RULES: list[EntityRule] = [
    addresses.check_addresses,
    dates.check_dates,
    roles.check_roles,
    sizes.check_sizes,
    markup.check_markup,
]

RULES: list[Rule] = [
    references.check_references,
    names.check_names,
    dates.check_captures,
    structure.check_structure,
    usage.check_usage,
    scripts.check_scripts,
    figures.check_figures,
    scenarios.check_scenarios,
    charts.check_specs,
    manifests.check_releases,
    embeds.check_embeds,
]


@collector_paused()
def check_record(
    record: Record,
    graph: Graph,
    diagnostics: Diagnostics,
    rules: list[Rule] | None = None,
    kept: Memo | None = None,
) -> QuoteReport:
    """Every rule over the linked record (the entity rules with it, unless `rules` are
    given); returns the Library's proof of every quote. `kept`: each entity's results from
    earlier runs (`check/each.py`); none by default."""
    memo = kept if kept is not None else Memo(CHECKED)
    kept_clock(record, memo)
    proofs = quotes.check_quotes(record, graph, diagnostics, memo)
    if rules is None:
        check_each(record, ENTITY_RULES, diagnostics, memo)
    for rule in RULES if rules is None else rules:
        rule(record, graph, diagnostics)
    if rules is None:
        prose_numbers.check_prose_numbers(record, graph, diagnostics, memo)
        claims.check_claims(record, proofs, diagnostics, memo)
        watched.check_watch(record, proofs, diagnostics)
    return proofs
