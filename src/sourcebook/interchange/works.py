"""A bibliographic item as every format reads it: what Zotero owns of a source."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sourcebook.model.kinds import Category


class FormatError(Exception):
    """A file that cannot be read as its format; one line for a person, with file and line."""


@dataclass(frozen=True)
class Creator:
    """An author: a person's given and family names, or one literal name (an organization)."""

    given: str = ""
    family: str = ""
    literal: str = ""
    suffix: str = ""
    """Jr., III: part of the name as shown, not of the family name it is filed under."""

    @property
    def name(self) -> str:
        return self.literal or " ".join(p for p in (self.given, self.family, self.suffix) if p)

    @property
    def is_person(self) -> bool:
        return not self.literal and bool(self.family)


@dataclass
class Work:
    """One item of a Zotero export, in CSL's terms."""

    key: str
    """The citation key, as Zotero or Better BibTeX gives it."""
    type: str
    """The CSL item type: article-journal, article-newspaper, report, webpage, …"""
    title: str
    line: int = 1
    """Where the item starts in its file."""
    authors: list[Creator] = field(default_factory=list)
    container: str = ""
    publisher: str = ""
    date: str = ""
    """YYYY, YYYY-MM or YYYY-MM-DD."""
    url: str = ""
    more_urls: list[str] = field(default_factory=list)
    """The source's other addresses: Zotero keeps them in the item's Extra (CSL's `note`,
    BibTeX's `note`), one to a line."""
    doi: str = ""
    pages: str = ""
    """As the record writes a range: `81–97`."""
    volume: str = ""
    place: str = ""
    accessed: str = ""
    """The day it was last read online: YYYY-MM-DD (or YYYY-MM, YYYY)."""
    language: str = ""
    """A BCP 47 tag (`en-GB`), or the name the export gave where it is none that is known."""
    zotero: str = ""
    """The item's address in Zotero, where the export gives it."""


PRESS_TYPES = {
    "article-newspaper",
    "article-magazine",
    "article",
    "broadcast",
    "interview",
    "post-weblog",
}
RESEARCH_TYPES = {
    "article-journal",
    "paper-conference",
    "report",
    "thesis",
    "book",
    "chapter",
    "dataset",
    "manuscript",
    "entry-encyclopedia",
    "patent",
    "standard",
}
ITALIC_TYPES = {"book", "report", "thesis", "dataset", "standard", "manuscript"}


def category_of(item_type: str) -> Category:
    """A new source's category: press for news and magazines, research for papers, reports
    and books, other for the rest (a company's own page is set by hand)."""
    if item_type in PRESS_TYPES:
        return Category.PRESS
    if item_type in RESEARCH_TYPES:
        return Category.RESEARCH
    return Category.OTHER


def record_id(key: str) -> str:
    """A citation key or a name made a valid id: lowercase ASCII letters, digits and
    hyphens, each letter transliterated as people write it in ASCII (`Søren Ørsted` is
    `soren-orsted`, `Straße` `strasse`)."""
    from anyascii import anyascii

    return re.sub(r"[^a-z0-9]+", "-", anyascii(key).lower()).strip("-")


def page_range(pages: str, dash: str = "–") -> str:
    """Pages with each range's dash, hyphen or BibTeX `--` made `dash`: `1--8` is `1–8`."""
    return re.sub(r"(?<=\w)\s*(?:--|[-\u2010-\u2015\u2212])\s*(?=\w)", dash, pages.strip())


URL_LINE = re.compile(r"^\s*(https?://\S+)\s*$", re.M | re.I)
"""An address alone on a line of an item's Extra (its note)."""


def day_from_parts(parts: list[object]) -> str:
    """YYYY[-MM[-DD]] from CSL date-parts such as [2025, 7, 1]; empty where unusable."""
    numbers = []
    for part in parts[:3]:
        try:
            numbers.append(int(str(part)))
        except ValueError:
            break
    if not numbers or not 1000 <= numbers[0] <= 9999:
        return ""
    return "-".join([f"{numbers[0]:04d}", *(f"{n:02d}" for n in numbers[1:])])


def bare_doi(doi: str) -> str:
    """A DOI without its resolver: `https://doi.org/10.1/x` and `doi:10.1/x` are `10.1/x`."""
    return re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)", "", doi.strip(), flags=re.I)
