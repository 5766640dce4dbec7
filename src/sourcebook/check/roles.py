"""A party's roles at a campus: what a supplier supplies, said where it supplies it."""

from __future__ import annotations

from sourcebook.diagnostics import Diagnostics
from sourcebook.model.base import Entity
from sourcebook.model.kinds import Campus, Role
from sourcebook.model.settings import Settings


def check_roles(campus: Entity, settings: Settings, diagnostics: Diagnostics) -> None:
    if not isinstance(campus, Campus):
        return
    for index, entry in enumerate(campus.parties):
        supplier = Role.SUPPLIER in entry.roles
        if entry.supplies and not supplier:
            diagnostics.error(
                campus.pos("parties", index, "supplies"),
                "S011",
                f"'{entry.party}' supplies {entry.supplies!r} but is not a supplier here",
                "add 'supplier' to its roles, or move what it does into 'note'",
            )
        elif supplier and not entry.supplies:
            diagnostics.warning(
                campus.pos("parties", index, "roles"),
                "S012",
                f"'{entry.party}' is a supplier of '{campus.id}' but does not say what it supplies",
                "add 'supplies:', such as 'supplies: GB200 systems'; the machine shows it",
            )
