"""The bundled record's first release, as kept in its git: whole, and what `release` makes."""

from __future__ import annotations

import hashlib
import json

from conftest import BUNDLED

RELEASE = BUNDLED / "releases" / "2026-11-08"


def test_every_file_matches_its_checksum() -> None:
    sums = (RELEASE / "SHA256SUMS").read_text(encoding="utf-8").splitlines()
    assert len(sums) > 40
    for line in sums:
        digest, name = line.split("  ", 1)
        assert hashlib.sha256((RELEASE / name).read_bytes()).hexdigest() == digest, name
    manifest = json.loads((RELEASE / "release.json").read_text(encoding="utf-8"))
    for listed in manifest["files"]:
        assert (RELEASE / listed["path"]).stat().st_size == listed["bytes"], listed["path"]


def test_it_is_the_first_release() -> None:
    changelog = json.loads((RELEASE / "changelog.json").read_text(encoding="utf-8"))
    assert changelog["first"] is True and changelog["previous"] is None
