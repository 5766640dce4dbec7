"""A record as published: without its drafts, and without the references to them.

A published entity may name a draft (a campus's party, a term's related term); check
warns of each (U004). Left as it is, the draft's id would reach the site and the data.
So each such reference is taken out of a copy of the entity: a list of ids loses the id,
an optional field is emptied, and an item that cannot stand without it (a role of a
draft party) is dropped. A required field of the entity itself is left as it is: there
is nothing to show in its place.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from sourcebook.model.base import Entity


def without_refs_to(entity: Entity, drafts: dict[str, set[str]]) -> Entity:
    """`entity`, or a copy of it that names none of `drafts` (ids by kind)."""
    if not any(
        _names(entity, ref.path.split("."), drafts.get(ref.kind, set()))
        for ref in entity.REF_FIELDS
    ):
        return entity
    copy = entity.model_copy(deep=True)
    copy.__pydantic_private__ = dict(entity.__pydantic_private__ or {})  # where it was read
    for ref in entity.REF_FIELDS:
        _prune(copy, ref.path.split("."), drafts.get(ref.kind, set()))
    return copy


def _names(holder: Any, path: list[str], gone: set[str]) -> bool:
    if not gone or holder is None:
        return False
    value = getattr(holder, path[0], None)
    if len(path) > 1:
        items = value if isinstance(value, list) else [value]
        return any(_names(item, path[1:], gone) for item in items)
    if isinstance(value, list):
        return any(v in gone for v in value)
    return value in gone


def _prune(holder: BaseModel, path: list[str], gone: set[str]) -> bool:
    """Take the references to `gone` out of `holder`; False where `holder` cannot stand
    without one (a required field names a draft), for its container to drop it."""
    if not gone:
        return True
    name = path[0]
    value = getattr(holder, name, None)
    if len(path) > 1:
        if isinstance(value, list):
            setattr(holder, name, [item for item in value if _prune(item, path[1:], gone)])
        elif isinstance(value, BaseModel):
            _prune(value, path[1:], gone)
        return True
    if isinstance(value, list):
        setattr(holder, name, [v for v in value if v not in gone])
        return True
    if value in gone:
        if type(holder).model_fields[name].is_required():
            return False
        setattr(holder, name, None)
    return True
