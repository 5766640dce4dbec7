"""The record's data releases as the site shows them: read from RECORD/releases/.

Each release folder holds a `release.json` manifest (its version, day, tables, and every
file with its size and SHA-256), its changelog, and its citation files; see
docs/releases.md. The site lists them on the Data page, newest first, copies their files
so that every link there downloads, and links each entity's page to its rows in the
latest one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from markupsafe import Markup

from sourcebook.model.active import runs_in_browser
from sourcebook.model.base import Entity
from sourcebook.model.kinds import kind_by_name
from sourcebook.publish.site.formats.json_text import PRIVATE
from sourcebook.read.paths import Confined
from sourcebook.read.releases import (
    MANIFEST,
    ManifestError,
    read_release_files,
    release_folders,
    version_key,
)

CITATION = "CITATION.cff"
FIGURES_TABLE = "figures"

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
    confined = Confined(root)
    found = [read_release(f, confined) for f in release_folders(root, confined)]
    return sorted(found, key=lambda r: version_key(r.version), reverse=True)


def read_release(folder: Path, confined: Confined | None = None) -> Release:
    """The release in `folder`, its manifest read as check reads it (`read.releases`)."""
    confined = confined or Confined(folder)
    try:
        read = read_release_files(folder, confined)
    except ManifestError as exc:
        raise ReleaseReadError(str(exc)) from None
    manifest = read.manifest
    return Release(
        version=folder.name,
        date=manifest.date,
        title=folder.name if manifest.title is None else manifest.title,
        licence=manifest.licence,
        previous=manifest.previous,
        tables={t.name: t.model_dump(by_alias=True) for t in manifest.tables},
        files=tuple(ReleaseFile(f.path, f.bytes, f.sha256) for f in manifest.files),
        changelog=_changelog(read.changelog),
        bibtex=read.bibtex,
        folder=folder,
        holds=read.holds,
    )


def _changelog(text: str) -> Markup:
    """The changelog as HTML, less its own title (the page names the release), its
    headings moved under the page's "What changed" (an h3)."""
    lines = text.splitlines()
    if lines and lines[0].startswith("# "):
        text = "\n".join(lines[1:])
    tokens = _MARKDOWN.parse(text)
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(6, int(token.tag[1]) + 2)}"
    return Markup(_MARKDOWN.renderer.render(tokens, _MARKDOWN.options, {}))


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
