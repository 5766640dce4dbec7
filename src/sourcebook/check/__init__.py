"""Stage 3, check: every rule over the linked record, each reporting diagnostics.

A rule is a function `(record, graph, diagnostics) -> None`. The built-in rules are
listed in RULES; a later stage (the Library, figures) adds its own the same way. The
Library's proof of the quotes is what check gives besides its diagnostics
(`check/result.py`).
"""

from __future__ import annotations

from collections.abc import Callable

from sourcebook.check import (
    addresses,
    charts,
    dates,
    figures,
    names,
    quotes,
    references,
    roles,
    scenarios,
    scripts,
    structure,
    usage,
)
from sourcebook.diagnostics import Diagnostics
from sourcebook.library.report import QuoteReport
from sourcebook.link.graph import Graph
from sourcebook.model.record import Record
from sourcebook.runtime.collector import collector_paused

Rule = Callable[[Record, Graph, Diagnostics], None]

RULES: list[Rule] = [
    references.check_references,
    addresses.check_addresses,
    names.check_names,
    dates.check_dates,
    structure.check_structure,
    roles.check_roles,
    usage.check_usage,
    scripts.check_scripts,
    figures.check_figures,
    scenarios.check_scenarios,
    charts.check_specs,
]


@collector_paused()
def check_record(
    record: Record, graph: Graph, diagnostics: Diagnostics, rules: list[Rule] | None = None
) -> QuoteReport:
    """Every rule over the linked record; returns the Library's proof of every quote."""
    proofs = quotes.check_quotes(record, graph, diagnostics)
    for rule in RULES if rules is None else rules:
        rule(record, graph, diagnostics)
    return proofs
