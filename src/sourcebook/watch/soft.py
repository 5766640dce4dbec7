"""Whether a page that answers 200 is the page it was: a parked domain, a login wall and a
"not found" page answer 200 too.

Such a page is judged by how much of the Library's copy it still holds: the share of the
copy's runs of three words (after the Library's normalization, case aside) that stand in
the live text. A page that holds little of it (under `SIMILAR`) and says, near its top or
in its title, what such pages say (a domain for sale, a sign-in, a page not found), or
asks for a password, is soft-dead. With no copy to compare, only a short page that says so
is. A page that holds its copy is never soft-dead, whatever else it says.
"""

from __future__ import annotations

import re

from sourcebook.library.normalize import normalize
from sourcebook.model.watch import Soft

SIMILAR = 0.3
"""A page holding this share of its copy's word runs, or more, is the page it was."""
SHORT_WORDS = 300
"""With no copy to compare, a page this long or longer is taken for an article."""
HEAD_CHARS = 1500
"""How much of the top of a page is read for what it says of itself."""
MAX_SHINGLES = 200_000
"""The most word runs of a copy compared; a longer copy is sampled evenly."""

SAYS: dict[Soft, tuple[str, ...]] = {
    Soft.PARKED: (
        "domain is for sale", "domain may be for sale", "buy this domain", "domain for sale",
        "domain name is for sale", "this domain is parked", "parked domain", "parked free",
        "domain has expired", "this domain has been registered", "make an offer on this domain",
    ),
    Soft.LOGIN: (
        "sign in to continue", "log in to continue", "login to continue", "please sign in",
        "please log in", "sign in to read", "log in to read", "subscribe to continue reading",
        "you must be logged in", "create an account to continue", "for subscribers only",
    ),
    Soft.NOT_FOUND: (
        "page not found", "404 not found", "error 404", "page cannot be found",
        "page could not be found", "page you requested", "page you are looking for",
        "no longer available", "page does not exist", "page doesn't exist", "not found",
    ),
}  # fmt: skip
_PASSWORD = re.compile(rb"<input[^>]{0,200}type\s*=\s*[\"']?password", re.IGNORECASE)
_WORD = re.compile(r"\w+")


def judged(
    text: str, title: str | None, body: bytes, copies: list[str]
) -> tuple[Soft | None, float | None]:
    """What the live page reads as, where it is not the page its copies hold (None where
    it is), and how much of the closest copy it holds (None with no copy)."""
    similarity = max((holds(copy, text) for copy in copies), default=None)
    if similarity is not None and similarity >= SIMILAR:
        return None, similarity
    said = _says(f"{title or ''}\n{text[:HEAD_CHARS]}", body)
    if said is None:
        return None, similarity
    if similarity is None and len(_WORD.findall(text)) >= SHORT_WORDS:
        return None, None
    return said, similarity


def _says(head: str, body: bytes) -> Soft | None:
    lowered = normalize(head).lower()
    for kind, phrases in SAYS.items():
        if any(phrase in lowered for phrase in phrases):
            return kind
    return Soft.LOGIN if _PASSWORD.search(body[:1_000_000]) else None


def holds(copy: str, live: str) -> float:
    """The share of the copy's runs of three words that stand in the live text."""
    wanted = _shingles(copy)
    if not wanted:
        return 1.0 if not _words(live) else 0.0
    return len(wanted & _shingles(live, limit=None)) / len(wanted)


def _words(text: str) -> list[str]:
    return _WORD.findall(normalize(text).lower())


def _shingles(text: str, limit: int | None = MAX_SHINGLES) -> set[int]:
    words = _words(text)
    runs = max(len(words) - 2, 1 if words else 0)
    step = max(1, runs // limit) if limit else 1
    return {hash(" ".join(words[i : i + 3])) for i in range(0, runs, step)}
