"""Release versions: which names are valid, how they sort (`read.releases`, which check
reads releases by too), and which release came before."""

from __future__ import annotations

from pathlib import Path

from sourcebook.model.settings import Book
from sourcebook.model.today import today
from sourcebook.read.releases import (
    DAY,
    MANIFEST,
    SEMVER_LIKE,
    ReleaseError,
    check_version,
    is_release,
    version_key,
)

__all__ = [
    "DAY",
    "MANIFEST",
    "SEMVER_LIKE",
    "ReleaseError",
    "check_version",
    "is_release",
    "previous_release",
    "unreleasable",
    "version_key",
]


def unreleasable(book: Book) -> str | None:
    """Why the book's data cannot be released yet: what a release must not choose for the
    author (the licence, who made it) and the day it stands at; None where all are set."""
    wanted = [
        (not book.licence, "licence", 'licence = "CC-BY-4.0" (or the SPDX id of your choice)'),
        (not book.author, "author", 'author = "Your Name"'),
        (book.closes is None, "closes", f"closes = {today().isoformat()}"),
    ]
    missing = [(name, line) for unset, name, line in wanted if unset]
    if not missing:
        return None
    names = _and([name for name, _ in missing])
    lines = _and([line for _, line in missing])
    return f"a release needs [book] {names} in sourcebook.toml: add {lines}"


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def previous_release(releases: Path, version: str) -> Path | None:
    """The latest release in `releases` that sorts before `version`; None for a first."""
    if not releases.is_dir():
        return None
    older = [
        folder
        for folder in releases.iterdir()
        if is_release(folder) and version_key(folder.name) < version_key(version)
    ]
    return max(older, key=lambda folder: version_key(folder.name), default=None)
