"""Web addresses in the record are http(s) or mailto, as a browser will read them."""

from __future__ import annotations

from sourcebook.diagnostics import Diagnostics
from sourcebook.link.graph import Graph
from sourcebook.model.addresses import address_problem
from sourcebook.model.record import Record


def check_addresses(record: Record, graph: Graph, diagnostics: Diagnostics) -> None:
    for entity in record:
        for value, path in _addresses(entity):
            problem = address_problem(value)
            if problem:
                diagnostics.error(
                    entity.pos(*path),
                    "S009",
                    f"'{'.'.join(map(str, path))}' is not a web address: it {problem}",
                    "write the address as a browser shows it, starting https://",
                )


def _addresses(entity: object) -> list[tuple[str, tuple[str | int, ...]]]:
    found: list[tuple[str, tuple[str | int, ...]]] = []
    url = getattr(entity, "url", None)
    if isinstance(url, str) and url:
        found.append((url, ("url",)))
    for index, each in enumerate(getattr(entity, "urls", None) or []):
        found.append((each, ("urls", index)))
    return found
