"""What every entity has: an id, a title, aliases, a draft flag, prose, and positions."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr

from sourcebook.diagnostics import Pos

DAY_PATTERN = re.compile(r"^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?$")
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*$")

Path_ = tuple[str | int, ...]
_NO_POSITIONS: dict[Path_, Pos] = {}
_NO_SPANS: dict[Path_, str] = {}


def _to_day(value: Any) -> Any:
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, int) and 1000 <= value <= 9999:
        return str(value)
    if isinstance(value, str) and not DAY_PATTERN.match(value):
        raise ValueError("expected a day as YYYY-MM-DD, YYYY-MM or YYYY")
    return value


Day = Annotated[str, BeforeValidator(_to_day)]
"""A day, or a month or year where that is all a source says (YYYY[-MM[-DD]])."""


def day_start(day: str) -> date:
    """The earliest date a possibly partial day can mean."""
    parts = [int(p) for p in day.split("-")] + [1, 1]
    return date(parts[0], parts[1], parts[2])


def day_end(day: str) -> date:
    """The latest date a possibly partial day can mean."""
    parts = [int(p) for p in day.split("-")]
    if len(parts) == 3:
        return date(*parts)
    if len(parts) == 1:
        return date(parts[0], 12, 31)
    year, month = parts
    following = date(year + month // 12, month % 12 + 1, 1)
    return date.fromordinal(following.toordinal() - 1)


@dataclass(frozen=True, slots=True)
class RefField:
    """A front-matter field whose values name other entities of `kind`.

    `path` walks the front matter: "chapters" is a list of ids, "parties.party" is the
    `party` key of each item of the `parties` list.
    """

    path: str
    kind: str


class Entity(BaseModel):
    """Fields every kind shares. The id is the file's stem; the body is its Markdown."""

    model_config = ConfigDict(extra="forbid", frozen=False, validate_default=False)

    KIND: ClassVar[str] = ""
    PROSE_FIELDS: ClassVar[tuple[str, ...]] = ("body",)
    REF_FIELDS: ClassVar[tuple[RefField, ...]] = ()

    id: str = Field(description="The file's stem; not written in front matter.", exclude=True)
    title: str = Field(description="The name or title shown for the entity.")
    aliases: list[str] = Field(
        default_factory=list,
        description="Other names under which mentions in prose are found and linked.",
    )
    draft: bool = Field(
        default=False, description="Work in progress: check warns, the site marks it."
    )
    body: str = Field(default="", description="The Markdown after the front matter.", exclude=True)

    # Plain defaults: a default_factory costs pydantic a signature inspection per entity.
    _positions: dict[Path_, Pos] = PrivateAttr(default=_NO_POSITIONS)
    _body_pos: Pos | None = PrivateAttr(default=None)
    _spans: dict[Path_, str] = PrivateAttr(default=_NO_SPANS)
    _file: str = PrivateAttr(default="")

    def place(self, file: str, positions: dict[Path_, Pos], body_pos: Pos,
              spans: dict[Path_, str] | None = None) -> None:
        """Record where the entity was read from, so that problems can point there."""
        self._file, self._positions, self._body_pos = file, positions, body_pos
        self._spans = spans or {}

    def prose_span(self, field: str) -> str | None:
        """A multi-line front-matter field as written (folding and indentation included)."""
        return self._spans.get((field,))

    @property
    def kind(self) -> str:
        return self.KIND

    @property
    def key(self) -> tuple[str, str]:
        return (self.KIND, self.id)

    @property
    def file(self) -> str:
        return self._file

    def pos(self, *path: str | int) -> Pos:
        """Where a front-matter value stands; falls back to its nearest parent, then line 1."""
        while path:
            found = self._positions.get(path)
            if found is not None:
                return found
            path = path[:-1]
        return self._positions.get((), Pos(self._file))

    @property
    def body_pos(self) -> Pos:
        return self._body_pos or Pos(self._file)

    def names(self) -> list[str]:
        """The names under which this entity is mentioned in prose."""
        return [self.title, *self.aliases]

    def prose(self) -> list[tuple[str, str]]:
        """(field, text) for every prose field that holds text."""
        out = []
        for name in self.PROSE_FIELDS:
            value = getattr(self, name, None)
            if isinstance(value, str) and value:
                out.append((name, value))
        return out

    def prose_pos(self, field: str) -> Pos:
        """Where the text of a prose field starts."""
        return self.body_pos if field == "body" else self.pos(field)

    @classmethod
    def front_matter_fields(cls) -> dict[str, Any]:
        return {n: f for n, f in cls.model_fields.items() if n not in ("id", "body")}


@dataclass(frozen=True)
class Kind:
    """A kind of entity: its model, the folder its files live in, and how it is shown."""

    name: str
    folder: str
    model: type[Entity]
    label: str
    plural: str
    mentionable: bool = False
    """Names and aliases of mentionable kinds are found in all prose and linked."""
    description: str = ""
