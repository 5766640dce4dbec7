"""Release versions: which names are valid, how they sort, and which release came before."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from sourcebook.model.settings import Book

DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
SEMVER_LIKE = re.compile(r"v?\d+(\.\d+){0,3}([-+][0-9A-Za-z]+(\.[0-9A-Za-z]+)*)?")
MANIFEST = "release.json"
"""The file that makes a folder of releases/ a release."""


class ReleaseError(Exception):
    """A release that cannot be made; the message is for a person."""


def unreleasable(book: Book) -> str | None:
    """Why the book's data cannot be released yet: what a release must not choose for the
    author (the licence, who made it) and the day it stands at; None where all are set."""
    wanted = [
        (not book.licence, "licence", 'licence = "CC-BY-4.0" (or the SPDX id of your choice)'),
        (not book.author, "author", 'author = "Your Name"'),
        (book.closes is None, "closes", f"closes = {date.today().isoformat()}"),
    ]
    missing = [(name, line) for unset, name, line in wanted if unset]
    if not missing:
        return None
    names = _and([name for name, _ in missing])
    lines = _and([line for _, line in missing])
    return f"a release needs [book] {names} in sourcebook.toml: add {lines}"


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def check_version(version: str) -> str:
    """`version` if it names a release: a day (2026-11-08) or a version such as 1.2.0 or v2."""
    if DAY.fullmatch(version):
        try:
            date.fromisoformat(version)
        except ValueError:
            raise ReleaseError(f"'{version}' is not a real day") from None
        return version
    if len(version) <= 64 and SEMVER_LIKE.fullmatch(version):
        return version
    raise ReleaseError(
        f"'{version}' is not a release version: write a day (2026-11-08) "
        "or a version number (1.2.0, v2, 1.0.0-rc.1)"
    )


def version_key(version: str) -> tuple:
    """Natural order, numbers compared as numbers (1.10.0 after 1.9.0), and a pre-release
    before its release as in semantic versioning (1.0.0-rc.1 before 1.0.0); build metadata
    after '+' does not count. A day sorts as its digits."""
    if DAY.fullmatch(version):
        return (_natural(version), 1, ())
    main, _, _build = version.partition("+")
    core, dash, pre = main.partition("-")
    return (_natural(core), 0 if dash else 1, _natural(pre))


def _natural(text: str) -> tuple[tuple[int, int | str], ...]:
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", text) if part
    )


def is_release(folder: Path) -> bool:
    try:
        check_version(folder.name)
    except ReleaseError:
        return False
    return (folder / MANIFEST).is_file()


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
