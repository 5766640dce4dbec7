"""The record's data releases as the site shows them: read from RECORD/releases/.

Each release folder holds a `release.json` manifest (its version, day, tables, and every
file with its size and SHA-256), its changelog, and its citation files; see
docs/releases.md. The site lists them on the Data page, newest first, copies their files
so that every link there downloads, and links each entity's page to its rows in the
latest one.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from markupsafe import Markup

from sourcebook.model.active import runs_in_browser
from sourcebook.model.addresses import has_controls
from sourcebook.model.base import Entity
from sourcebook.model.kinds import kind_by_name
from sourcebook.publish.release.version import MANIFEST, is_release, version_key
from sourcebook.publish.site.json_text import PRIVATE
from sourcebook.read.paths import Confined

CHANGELOG = "CHANGELOG.md"
BIBTEX = "release.bib"
CITATION = "CITATION.cff"
FIGURES_TABLE = "figures"
ENTITIES_TABLE = "entities"
MAX_BYTES = 50_000_000
"""The largest file of a release the site reads (its manifest, changelog, citation)."""

# Changelogs are the release's own Markdown: no raw HTML, and markdown-it's own refusal of
# javascript: and other unsafe links.
_MARKDOWN = MarkdownIt("commonmark", {"html": False})


@dataclass(frozen=True, slots=True)
class ReleaseFile:
    path: str
    bytes: int
    sha256: str

    @property
    def runs(self) -> bool:
        """Whether a browser would run it (a page, a drawing, a script): such a file is
        listed on the Data page but never published with the site."""
        return runs_in_browser(self.path)


@dataclass(frozen=True, slots=True)
class Release:
    version: str
    date: str
    title: str
    licence: str
    previous: str | None
    tables: dict[str, dict[str, Any]]
    """Table name → {"rows", "csv", "json"}: the paths of its files in the release."""
    files: tuple[ReleaseFile, ...]
    changelog: Markup
    bibtex: str
    folder: Path = field(metadata=PRIVATE, repr=False)
    holds: frozenset[tuple[str, str]] = field(metadata=PRIVATE, repr=False)
    """(kind, id) of every entity the release holds."""

    def has(self, path: str) -> bool:
        return any(f.path == path for f in self.files)


class ReleaseReadError(Exception):
    """A release folder whose manifest cannot be read; the message says which."""


def read_releases(root: Path) -> list[Release]:
    """Every release of the record at `root`, newest first."""
    folder = root / "releases"
    if not folder.is_dir():
        return []
    confined = Confined(root)
    found = [
        read_release(f, confined)
        for f in sorted(folder.iterdir())
        if confined.holds(f) and f.is_dir() and is_release(f)
    ]
    return sorted(found, key=lambda r: version_key(r.version), reverse=True)


def read_release(folder: Path, confined: Confined | None = None) -> Release:
    """The release in `folder`. Its version is its folder's name, which check_version
    allows; every file its manifest names must stand inside it."""
    confined = confined or Confined(folder)
    try:
        manifest = json.loads(_text(folder / MANIFEST, confined, required=True))
        files = tuple(ReleaseFile(f["path"], f["bytes"], f["sha256"]) for f in manifest["files"])
        tables = {t["name"]: t for t in manifest["tables"]}
        for path in [*(f.path for f in files), *_table_paths(tables)]:
            _inside(folder, path, confined)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ReleaseReadError(f"{folder / MANIFEST} cannot be read: {exc}") from None
    version = manifest.get("version", folder.name)
    if version != folder.name:
        raise ReleaseReadError(
            f"{folder / MANIFEST} names version '{version}', but its folder is '{folder.name}'"
        )
    return Release(
        version=folder.name,
        date=str(manifest.get("date", "")),
        title=str(manifest.get("title", folder.name)),
        licence=str(manifest.get("licence", "")),
        previous=manifest.get("previous"),
        tables=tables,
        files=files,
        changelog=_changelog(folder, confined),
        bibtex=_text(folder / BIBTEX, confined),
        folder=folder,
        holds=_held(folder, tables, confined),
    )


def _table_paths(tables: dict[str, dict[str, Any]]) -> list[str]:
    return [str(t[key]) for t in tables.values() for key in ("csv", "json") if key in t]


def _inside(folder: Path, path: str, confined: Confined) -> Path:
    """The file at `path` of a release, which must be a plain relative path that stays in
    its folder; a ValueError says why not."""
    if not isinstance(path, str) or not path or path.startswith("/") or "\\" in path:
        raise ValueError(f"'{path}' is not a relative path")
    parts = path.split("/")
    if any(part in ("", ".", "..") or has_controls(part) for part in parts):
        raise ValueError(f"'{path}' is not a plain path inside the release")
    found = folder.joinpath(*parts)
    if os.path.lexists(found) and not confined.holds(found):
        raise ValueError(f"'{path}' is a symbolic link that leads outside the record")
    return found


def _held(
    folder: Path, tables: dict[str, dict[str, Any]], confined: Confined
) -> frozenset[tuple[str, str]]:
    """The entities a release holds, from its entities table."""
    listing = tables.get(ENTITIES_TABLE)
    if listing is None:
        return frozenset()
    try:
        rows = json.loads(_text(folder / listing["json"], confined, required=True))
        return frozenset((row["kind"], row["id"]) for row in rows)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ReleaseReadError(f"{folder / listing['json']} cannot be read: {exc}") from None


def _changelog(folder: Path, confined: Confined) -> Markup:
    """The changelog as HTML, less its own title (the page names the release), its
    headings moved under the page's "What changed" (an h3)."""
    text = _text(folder / CHANGELOG, confined)
    lines = text.splitlines()
    if lines and lines[0].startswith("# "):
        text = "\n".join(lines[1:])
    tokens = _MARKDOWN.parse(text)
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(6, int(token.tag[1]) + 2)}"
    return Markup(_MARKDOWN.renderer.render(tokens, _MARKDOWN.options, {}))


def _text(path: Path, confined: Confined, required: bool = False) -> str:
    """A file of a release as text; '' where it is missing, unless `required`. A link out of
    the record, or a file over MAX_BYTES, is never read."""
    if not confined.holds(path):
        raise ReleaseReadError(f"{path}: symbolic link leads outside the record")
    try:
        with open(path, "rb") as opened:
            data = opened.read(MAX_BYTES + 1)
    except OSError:
        if required:
            raise
        return ""
    if len(data) > MAX_BYTES:
        raise ReleaseReadError(f"{path} is over {MAX_BYTES:,} bytes")
    return data.decode("utf-8", errors="replace")


def release_files(releases: list[Release]) -> dict[str, Path]:
    """Each release's files (those its manifest lists, and the manifest) that are there,
    relative to the folder that holds the releases, and where each is; every path was
    checked to stand inside its release as it was read. A file a browser would run is
    never published (see `ReleaseFile.runs`): a release is data, not pages."""
    return {
        f"{release.version}/{path}": release.folder / path
        for release in releases
        for path in [*(f.path for f in release.files if not f.runs), MANIFEST]
        if (release.folder / path).is_file()
    }


def entity_tables(release: Release, entity: Entity) -> list[str]:
    """The tables of `release` that hold rows of `entity`: its kind's, and its figures."""
    if entity.key not in release.holds:
        return []
    kind = kind_by_name(entity.KIND)
    names = [kind.folder] if kind else []
    if getattr(entity, "figures", None):
        names.append(FIGURES_TABLE)
    return [name for name in names if name in release.tables]
