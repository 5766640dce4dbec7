"""Web addresses in the record are http(s) or mailto, as a browser will read them."""

from __future__ import annotations

from sourcebook.diagnostics import Diagnostics
from sourcebook.model.addresses import address_problem
from sourcebook.model.base import Entity
from sourcebook.model.settings import Settings


def check_addresses(entity: Entity, settings: Settings, diagnostics: Diagnostics) -> None:
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
