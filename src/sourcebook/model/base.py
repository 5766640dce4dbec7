"""What every entity has: an id, a title, aliases, a draft flag, prose, and positions."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr

from sourcebook.diagnostics import Pos

DAY_PATTERN = re.compile(r"^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?$")
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*$")
MAX_INTEGER = 2**63 - 1
"""The largest integer a field may hold: the compiled record's SQLite holds no larger."""
MAX_NAME_LENGTH = 200
"""The longest id, and the longest segment of a path the site is written under: a file
system takes names of 255 bytes, and the site adds to some (`.json`, a temporary name's
suffix) as it writes them."""


def id_problem(entity_id: str) -> str | None:
    """Why `entity_id` cannot be an id; None where it can."""
    if not ID_PATTERN.match(entity_id):
        return "is not lowercase letters, digits and hyphens"
    if len(entity_id) > MAX_NAME_LENGTH:
        return f"is {len(entity_id):,} characters long; an id has at most {MAX_NAME_LENGTH}"
    return None


Path_ = tuple[str | int, ...]
Place = tuple[int, int]
"""(line, col) of a value in its entity's file: plain tuples are cheaper to keep and to pass
between processes than a Pos per value, and most are never asked for."""


def _to_day(value: Any) -> Any:
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, int) and 1000 <= value <= 9999:
        return str(value)
    if isinstance(value, str) and not DAY_PATTERN.match(value):
        raise ValueError("expected a day as YYYY-MM-DD, YYYY-MM or YYYY")
    if isinstance(value, str):
        try:  # every day a record gives is a span of the calendar: 2024-02-31 is none
            day_start(value), day_end(value)
        except ValueError:
            raise ValueError("no day of the calendar") from None
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


@dataclass(slots=True)
class Origin:
    """Where an entity was read from: its file, the (line, col) of each front-matter value
    by its path, the body's first line, and multi-line values as written."""

    file: str
    places: dict[Path_, Place]
    body_line: int | None
    spans: dict[Path_, str]
    figure_index: tuple[int, ...] | None = None
    """For an entity cut to what was known on a day (`model/known.py`): each figure's place
    in the list as written, so that a figure keeps its id and its position."""


_NOWHERE = Origin("", {}, None, {})


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

    model_config = ConfigDict(
        extra="forbid", frozen=False, validate_default=False, allow_inf_nan=False
    )

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
        default=False,
        description=(
            "Work in progress: check warns; build and release leave it out, "
            "build --drafts and serve show it marked."
        ),
    )
    body: str = Field(default="", description="The Markdown after the front matter.", exclude=True)

    # One private attribute with a plain default: pydantic sets each private attribute's
    # default on every entity it validates, and reads them through a slow __getattr__.
    _origin: Origin | None = PrivateAttr(default=None)

    def place(
        self,
        file: str,
        places: dict[Path_, Place],
        body_line: int,
        spans: dict[Path_, str] | None = None,
    ) -> None:
        """Record where the entity was read from, so that problems can point there:
        the (line, col) of each front-matter value by its path, and the body's first line."""
        self._origin = Origin(file, places, body_line, spans or {})

    @property
    def origin(self) -> Origin:
        return self.__pydantic_private__["_origin"] or _NOWHERE  # type: ignore[index]

    def prose_span(self, field: str) -> str | None:
        """A multi-line front-matter field as written (folding and indentation included)."""
        return self.origin.spans.get((field,))

    @property
    def kind(self) -> str:
        return self.KIND

    @cached_property
    def key(self) -> tuple[str, str]:
        # Kept once made: a build asks each entity for its key hundreds of times.
        return (self.KIND, self.id)

    @property
    def file(self) -> str:
        return self.origin.file

    def pos(self, *path: str | int) -> Pos:
        """Where a front-matter value stands; falls back to its nearest parent, then line 1."""
        origin = self.origin
        places = origin.places
        while path:
            found = places.get(path)
            if found is not None:
                return Pos(origin.file, *found)
            path = path[:-1]
        found = places.get(())
        return Pos(origin.file) if found is None else Pos(origin.file, *found)

    @property
    def body_pos(self) -> Pos:
        origin = self.origin
        if origin.body_line is None:
            return Pos(origin.file)
        return Pos(origin.file, origin.body_line, 1)

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
