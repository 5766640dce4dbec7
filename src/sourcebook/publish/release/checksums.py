"""Sizes and SHA-256 checksums of a release's files, and SHA256SUMS as `sha256sum` writes it."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import NamedTuple

SUMS = "SHA256SUMS"


class FileFacts(NamedTuple):
    size: int
    sha256: str


def file_facts(path: Path) -> FileFacts:
    with path.open("rb") as file:
        digest = hashlib.file_digest(file, "sha256")
    return FileFacts(path.stat().st_size, digest.hexdigest())


def folder_facts(folder: Path, leave_out: tuple[str, ...] = ()) -> dict[str, FileFacts]:
    """Every file below `folder` by its relative POSIX path, in path order."""
    paths = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    return {path: file_facts(folder / path) for path in paths if path not in leave_out}


def write_sums(folder: Path) -> Path:
    """SHA256SUMS for every other file of the folder: `sha256sum -c SHA256SUMS` checks them."""
    facts = folder_facts(folder, leave_out=(SUMS,))
    lines = "".join(f"{fact.sha256}  {path}\n" for path, fact in facts.items())
    target = folder / SUMS
    target.write_text(lines, encoding="utf-8")
    return target
