"""The Library's model: an item is one archived copy of a source, on a numbered shelf.

A record's library/ folder holds, for shelf S7:

- `S7.yaml`: the item's metadata (the fields of `Item` below);
- `S7.txt`: its text, extracted from the original or, for an image, transcribed by hand;
  a PDF's pages are separated by form feeds;
- `S7.warc.gz`: for a copy fetched from the web, the HTTP exchange, for replay;
- `objects/ab/abcdef…`: the original bytes, named by their SHA-256, held once however
  many items share them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from sourcebook.model.base import Day

SHELF_PATTERN = re.compile(r"^S[1-9]\d*$")


class ItemKind(StrEnum):
    HTML = "html"
    PDF = "pdf"
    TEXT = "text"
    IMAGE = "image"


class Item(BaseModel):
    """One archived copy of a source."""

    model_config = ConfigDict(extra="forbid")

    shelf: str = Field(
        description="The shelf id, S1, S2, …: the file's stem, not written in it.", exclude=True
    )
    kind: ItemKind = Field(description="html, pdf, text, or image (read as an image).")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="SHA-256 of the original bytes.")
    file: str = Field(description="The original's file name, as it was added.")
    media_type: str = Field(description="The original's media type, such as text/html.")
    size: int = Field(ge=0, description="The original's size in bytes.")
    url: str | None = Field(default=None, description="Where the original was taken from.")
    title: str | None = Field(default=None, description="The title the copy shows.")
    published: Day | None = Field(
        default=None, description="The day the original says it was published, if it says."
    )
    captured: Day = Field(description="The day the copy was taken into the Library.")
    how: str = Field(description="How it was captured: the tool, the route, the archive.")
    by: str = Field(description="Who captured it.")
    holds: str = Field(
        default="the whole of the original",
        description="How much of the original the copy holds, such as 'the free portion'.",
    )
    pages: int | None = Field(default=None, ge=1, description="For a PDF: its number of pages.")
    read_again: tuple[Day, ...] = Field(
        default=(), description="Days on which the copy was read again."
    )
    warc: str | None = Field(default=None, description="The WARC file of a web capture.")
    refreshes: str | None = Field(
        default=None,
        pattern=r"^S[1-9]\d*$",
        description="The shelf of the older copy of the same page that this one was taken "
        "beside (library add --refresh).",
    )

    @property
    def read_as_image(self) -> bool:
        return self.kind is ItemKind.IMAGE

    @property
    def label(self) -> str:
        return f"Library {self.shelf}"


def shelf_number(shelf: str) -> int:
    return int(shelf[1:])


@dataclass
class Library:
    """The items of a record's library/ folder, by shelf id."""

    folder: Path
    shown: str
    """The folder as diagnostics show it, such as examples/compute-race/library."""
    items: dict[str, Item] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    """Each item's text file's SHA-256, by shelf, as read: what check proves quotes against
    and the copy's page shows is known by it. An item whose text file cannot be read has
    none."""

    def __post_init__(self) -> None:
        self._folder = str(self.folder)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(sorted(self.items.values(), key=lambda i: shelf_number(i.shelf)))

    def __len__(self) -> int:
        return len(self.items)

    def get(self, shelf: str) -> Item | None:
        return self.items.get(shelf)

    def text_digest(self, shelf: str) -> str | None:
        """The SHA-256 of the item's text file as read; None where it could not be read."""
        return self.texts.get(shelf)

    def holdings(self, shelves: list[str]) -> list[Item]:
        """The items a source names, in its order, leaving out shelves that do not exist."""
        return [self.items[s] for s in shelves if s in self.items]

    def by_sha256(self, sha256: str) -> Item | None:
        return next((i for i in self.items.values() if i.sha256 == sha256), None)

    def meta_path(self, shelf: str) -> Path:
        return self.folder / f"{shelf}.yaml"

    def text_file(self, shelf: str) -> str:
        """The text file's path as a string: built once per item in a check, where a Path
        costs more than the rest of the lookup."""
        return f"{self._folder}{os.sep}{shelf}.txt"

    def text_path(self, shelf: str) -> Path:
        return self.folder / f"{shelf}.txt"

    def object_path(self, sha256: str) -> Path:
        return self.folder / "objects" / sha256[:2] / sha256

    def shown_path(self, name: str) -> str:
        return f"{self.shown}/{name}" if self.shown not in ("", ".") else name

    def read_text(self, item: Item) -> str:
        return self.text_path(item.shelf).read_bytes().decode("utf-8")
