"""References between entities, and the quotes that claim to stand in a source: what
linking finds, and what check, compile and publish read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from sourcebook.diagnostics import Pos

Key = tuple[str, str]
"""(kind, id) of an entity."""


class Ref(NamedTuple):
    """One reference from an entity to another.

    `via` is field (front matter), wiki, cite (a Pandoc citation) or mention (a name
    found in prose). A reference to nothing keeps its `target` with `resolved` False.
    A named tuple, not a frozen dataclass: a large record makes hundreds of thousands,
    and a tuple is made five times faster.
    """

    source: Key
    target: Key
    via: str
    field: str
    pos: Pos
    text: str
    locator: str | None = None
    resolved: bool = True

    # Flat: the fields in order, the position's three in place of it. References go between
    # processes so, as plain values that pickle handles in C, ten times faster.

    def flat(self) -> tuple:
        source, target, via, field, pos, text, locator, resolved = self
        return source, target, via, field, *pos, text, locator, resolved

    @classmethod
    def from_flat(cls, flat: tuple) -> Ref:
        source, target, via, field, file, line, col, text, locator, resolved = flat
        return cls(source, target, via, field, Pos(file, line, col), text, locator, resolved)


@dataclass(frozen=True, slots=True)
class QuoteClaim:
    """Words in curly quotes that claim to stand in a source."""

    owner: Key
    field: str
    source: str | None
    text: str
    pos: Pos
    locator: str | None = None

    def flat(self) -> tuple:
        """As `Ref.flat`."""
        return self.owner, self.field, self.source, self.text, *self.pos, self.locator

    @classmethod
    def from_flat(cls, flat: tuple) -> QuoteClaim:
        owner, field, source, text, file, line, col, locator = flat
        return cls(owner, field, source, text, Pos(file, line, col), locator)
