"""Release versions: which names are valid, how they sort, and which release came before."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
SEMVER_LIKE = re.compile(r"v?\d+(\.\d+){0,3}([-+][0-9A-Za-z]+(\.[0-9A-Za-z]+)*)?")
MANIFEST = "release.json"
"""The file that makes a folder of releases/ a release."""


class ReleaseError(Exception):
    """A release that cannot be made; the message is for a person."""


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
