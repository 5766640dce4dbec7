"""How to cite a release: CITATION.cff (Citation File Format 1.2.0) and release.bib (BibTeX)."""

from __future__ import annotations

import re
from typing import Any

import yaml

from sourcebook.model.bibtex import braced
from sourcebook.model.person_names import split_name
from sourcebook.model.settings import Book
from sourcebook.publish.release.about import About

CFF_VERSION = "1.2.0"
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def citation_cff(about: About) -> str:
    book = about.settings.book
    cff: dict[str, Any] = {
        "cff-version": CFF_VERSION,
        "message": "If you use this data, please cite it as below.",
        "type": "dataset",
        "title": about.title,
        "version": about.version,
        "date-released": about.day.isoformat(),
        "authors": [cff_author(book)],
        "license": book.licence,
        "abstract": about.description,
    }
    if about.url:
        cff["url"] = about.url
    cff["references"] = [book_reference(book)]
    return yaml.safe_dump(cff, sort_keys=False, allow_unicode=True, width=100)


def cff_author(book: Book) -> dict[str, str]:
    """A person, where the book has an author; else the publishing house, as an entity."""
    if not book.author:
        return {"name": book.publisher or book.house}
    given, family = split_name(book.author)
    return {"given-names": given, "family-names": family} if given else {"name": family}


def book_reference(book: Book) -> dict[str, Any]:
    """The book the record belongs to, as a CFF reference."""
    reference: dict[str, Any] = {
        "type": "book",
        "title": f"{book.title}: {book.subtitle}" if book.subtitle else book.title,
        "authors": [cff_author(book)],
    }
    if book.publisher:
        reference["publisher"] = {"name": book.publisher}
    if book.series:
        reference["collection-title"] = book.series
        reference["volume"] = book.volume
    return reference


def release_bib(about: About) -> str:
    book = about.settings.book
    given, family = split_name(book.author) if book.author else ("", "")
    author = f"{family}, {given}" if given else family
    fields = [
        ("author", braced(author) if author else f"{{{braced(book.publisher or book.house)}}}"),
        ("title", f"{{{braced(about.title)}}}"),
        ("year", f"{{{about.day.year}}}"),
        ("month", MONTHS[about.day.month - 1]),
        ("version", braced(about.version)),
        ("publisher", braced(book.publisher or book.house)),
        ("url", f"{{{about.url}}}" if about.url else ""),
        ("note", braced(f"Data release; licence {book.licence}")),
    ]
    lines = [f"  {name:<9} = {value}," for name, value in fields if value]
    return f"@misc{{{bib_key(about)},\n" + "\n".join(lines) + "\n}\n"


def bib_key(about: About) -> str:
    return f"{about.name}-{re.sub(r'[^A-Za-z0-9.-]+', '-', about.version)}"
