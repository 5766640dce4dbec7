"""How the site words things: days, ordinals, lists of names, numbers, file sizes, the
book's line. Templates word days and file sizes with the filters `day` and `size`
(see `render.FILTERS`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from markupsafe import Markup

from sourcebook.model.settings import Book

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
ORDINALS = (
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
)


def day(value: str | date | None) -> str:
    """A day as a reader says it: 28 October 2024, October 2024, or 2024."""
    if value is None or value == "":
        return ""
    if isinstance(value, date):
        value = value.isoformat()
    parts = value.split("-")
    if len(parts) == 1:
        return parts[0]
    month = MONTHS[int(parts[1]) - 1]
    if len(parts) == 2:
        return f"{month} {parts[0]}"
    return f"{int(parts[2])} {month} {parts[0]}"


_ISO_DAY = re.compile(r"(?<![\w-])(\d{4})-(0[1-9]|1[0-2])(?:-(0[1-9]|[12]\d|3[01]))?(?![\w-])")


def days_in_words(text: str) -> str:
    """The text with every ISO day or month in it as a reader says it: a computed line
    that reads "$2.35, 2026-03" reads "$2.35, March 2026"."""
    return _ISO_DAY.sub(lambda m: day(m.group()), text)


def ordinal(number: int) -> str:
    """first, second, … twelfth; 13th and on in figures."""
    if 1 <= number <= len(ORDINALS):
        return ORDINALS[number - 1]
    suffix = (
        "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    )
    return f"{number}{suffix}"


def join(names: Sequence[str]) -> str:
    """A, B and C: the house joins a list without a serial comma."""
    names = [n for n in names if n]
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def number(value: float) -> str:
    """1,000 or 1.5: thousands grouped, no trailing .0."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.3f}".rstrip("0").rstrip(".")


def file_size(count: int) -> str:
    """'812 bytes', '14.2 KB', '1.5 MB' (powers of 1,000, as file managers now show)."""
    if count < 1000:
        return f"{count:,} bytes"
    for unit in ("KB", "MB", "GB"):
        count /= 1000  # type: ignore[assignment]
        if count < 1000 or unit == "GB":
            return f"{count:.1f} {unit}"
    raise AssertionError  # pragma: no cover


def plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


def book_title(book: Book) -> Markup:
    """The book's full title, in italics."""
    title = f"{book.title}: {book.subtitle}" if book.subtitle else book.title
    return Markup("<i>{}</i>").format(title)


def book_line(book: Book) -> Markup:
    """The line at the foot of every page: the book, its author, series, publisher, close."""
    text = Markup("{} is a book").format(book_title(book))
    if book.author:
        text += Markup(" by {}").format(book.author)
    if book.series:
        text += Markup(", the {} volume of {}").format(ordinal(book.volume), book.series.upper())
    if book.publisher:
        text += Markup(", published by {}").format(book.publisher)
    if book.closes is None:
        return text + Markup("; its record is open: it is still being written.")
    return text + Markup("; its record closes on {}.").format(day(book.closes))


def sentence_case(text: str) -> str:
    return text[:1].upper() + text[1:]
