"""Helpers for the release tests: a copy of the bundled record, and the CLI as a user runs it."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import BUNDLED, run


def copy_bundled(destination: Path) -> Path:
    """The bundled record copied to `destination`, without anything built from it."""
    shutil.copytree(BUNDLED, destination, ignore=shutil.ignore_patterns("_site", "releases"))
    return destination


def release_bundled(folder: Path, version: str = "2026-11-08") -> Path:
    """The bundled record copied into `folder` and released; the release's folder."""
    root = copy_bundled(folder / "compute-race")
    result = run("release", version, str(root), "--quiet")
    assert result.returncode == 0, result.stderr
    return root / "releases" / version


def files_of(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }
