"""The record's typed model: one class per kind of entity, with its fields documented.

The kinds are loaded when first asked for (`sourcebook.model.KINDS`), not when a module of
the model is imported: `sourcebook --help`, or a check read back whole, needs no pydantic."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sourcebook.model.base import Entity, Kind
    from sourcebook.model.kinds import KINDS, kind_by_folder, kind_by_name

__all__ = ["Entity", "Kind", "KINDS", "kind_by_folder", "kind_by_name"]

_HOMES = {
    "Entity": "sourcebook.model.base",
    "Kind": "sourcebook.model.base",
    "KINDS": "sourcebook.model.kinds",
    "kind_by_folder": "sourcebook.model.kinds",
    "kind_by_name": "sourcebook.model.kinds",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value
