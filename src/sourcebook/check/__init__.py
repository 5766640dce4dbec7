"""Stage 3, check: every rule over the linked record, each reporting diagnostics.

A rule is a function `(record, graph, diagnostics) -> None`. The built-in rules are
listed in RULES; a later stage (the Library, figures) adds its own the same way.
"""

from __future__ import annotations

from collections.abc import Callable

from sourcebook.check import (
    addresses,
    dates,
    figures,
    names,
    quotes,
    references,
    scenarios,
    scripts,
    structure,
    usage,
)
from sourcebook.diagnostics import Diagnostics
from sourcebook.link.graph import Graph
from sourcebook.runtime.collector import collector_paused
from sourcebook.model.record import Record

Rule = Callable[[Record, Graph, Diagnostics], None]

RULES: list[Rule] = [
    references.check_references,
    addresses.check_addresses,
    names.check_names,
    dates.check_dates,
    structure.check_structure,
    usage.check_usage,
    scripts.check_scripts,
    quotes.check_quotes,
    figures.check_figures,
    scenarios.check_scenarios,
]

@collector_paused()
def check_record(
    record: Record, graph: Graph, diagnostics: Diagnostics, rules: list[Rule] | None = None
) -> None:
    for rule in RULES if rules is None else rules:
        rule(record, graph, diagnostics)
