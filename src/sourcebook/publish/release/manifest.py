"""release.json: what a release is and holds, for the site and for programs: its version
and day, the book, the previous release, and every file with its size and checksum."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sourcebook import __version__
from sourcebook.compile import SCHEMA_VERSION
from sourcebook.publish.release.about import About
from sourcebook.publish.release.checksums import SUMS, folder_facts
from sourcebook.publish.release.datapackage import csv_path, json_path
from sourcebook.publish.release.tables import Table, dumps
from sourcebook.publish.release.version import MANIFEST


def write_manifest(folder: Path, about: About, tables: list[Table], previous: str | None) -> Path:
    """release.json, listing every file written so far (all but itself and SHA256SUMS)."""
    book = about.settings.book
    files = folder_facts(folder, leave_out=(MANIFEST, SUMS))
    manifest: dict[str, Any] = {
        "version": about.version,
        "date": about.day.isoformat(),
        "title": about.title,
        "book": {
            "title": book.title,
            "subtitle": book.subtitle,
            "author": book.author,
            "publisher": book.publisher,
            "series": book.series,
            "volume": book.volume,
        },
        "url": about.url,
        "licence": book.licence,
        "previous": previous,
        "schema_version": SCHEMA_VERSION,
        "sourcebook_version": __version__,
        "tables": [
            {"name": t.name, "rows": len(t.rows), "csv": csv_path(t), "json": json_path(t)}
            for t in tables
        ],
        "files": [
            {"path": path, "bytes": fact.size, "sha256": fact.sha256}
            for path, fact in files.items()
        ],
    }
    target = folder / MANIFEST
    target.write_text(dumps(manifest), encoding="utf-8")
    return target
