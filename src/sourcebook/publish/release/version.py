"""Release versions: which names are valid, how they sort (`read.releases`, which check
reads releases by too), and which release came before."""

from __future__ import annotations

from pathlib import Path

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
    "version_key",
]


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
