"""Data releases: the checked record as files to download, cite and compare.

`release(checked, root, version)` writes RECORD/releases/VERSION/: the compiled SQLite
database, a CSV and a JSON file per table, a Frictionless data package, a CITATION.cff
and a BibTeX entry, a changelog against the previous release, and the size and SHA-256
of every file. docs/releases.md describes each file. The same record gives the same
bytes: nothing in a release depends on the clock or on where the record lies.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from contextlib import closing
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time
from pathlib import Path

from sourcebook.check.result import Checked
from sourcebook.publish.claimed import claimed, sweep
from sourcebook.publish.release import changelog as changes
from sourcebook.publish.release.about import About
from sourcebook.publish.release.checksums import folder_facts, write_sums
from sourcebook.publish.release.citation import citation_cff, release_bib
from sourcebook.publish.release.database import write_database
from sourcebook.publish.release.datapackage import csv_path, data_package, json_path
from sourcebook.publish.release.manifest import write_manifest
from sourcebook.publish.release.tables import Table, dumps, read_tables, write_csv, write_json
from sourcebook.publish.release.version import (
    ReleaseError,
    check_version,
    previous_release,
    unreleasable,
    version_key,
)

__all__ = [
    "Released",
    "ReleaseError",
    "check_version",
    "release",
    "release_folder",
    "unreleasable",
    "version_key",
]

DATABASE = "record.db"


@dataclass(frozen=True)
class Released:
    folder: Path
    version: str
    tables: int
    files: int
    changelog: changes.Changelog


def release_folder(root: Path | str, version: str) -> Path:
    return Path(root) / "releases" / version


def release(shown: Checked, root: Path | str, version: str) -> Released:
    """Write the release `version` of the record at `root` into root/releases/: `shown` is
    the checked record as it is published (`compile.published`: without its drafts, as
    the site shows it; `pipeline.release` makes it).

    Raises ReleaseError for a version that is not one, a record that did not pass check or
    lacks a setting a release needs (`unreleasable`), or a release that already exists.
    The release is written into a hidden folder beside its place and renamed into it whole,
    so that a failure leaves nothing behind.
    """
    check_version(version)
    if not shown.ok or shown.record is None:
        raise ReleaseError("the record does not pass check: fix its errors first")
    lacking = unreleasable(shown.record.settings.book)
    if lacking:
        raise ReleaseError(lacking)
    target = release_folder(root, version)
    if target.exists():
        raise ReleaseError(f"{target} already exists: a release is never overwritten")
    previous = previous_release(target.parent, version)
    target.parent.mkdir(parents=True, exist_ok=True)
    sweep(target.parent, ".*.partial")  # releases a killed run left half-written
    with claimed(target.parent, f".{version}.", ".partial") as staging:
        try:
            written = write_release(shown, staging, version, previous)
            if target.exists():
                raise ReleaseError(f"{target} appeared while the release was written")
            os.rename(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return replace(written, folder=target)


def write_release(checked: Checked, folder: Path, version: str, previous: Path | None) -> Released:
    """Every file of the release into `folder`."""
    assert checked.record is not None
    database = write_database(checked, folder / DATABASE)
    with closing(sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)) as db:
        tables = read_tables(db)
        (day,) = db.execute("SELECT value FROM meta WHERE key = 'as_of'").fetchone()
    about = About(checked.record.settings, version, date.fromisoformat(day))
    write_tables(folder, tables)
    package = data_package(about, tables, folder_facts(folder))
    (folder / "datapackage.json").write_text(dumps(package), encoding="utf-8")
    (folder / "CITATION.cff").write_text(citation_cff(about), encoding="utf-8")
    (folder / "release.bib").write_text(release_bib(about), encoding="utf-8")
    changelog = write_changelog(folder, about, previous)
    write_manifest(folder, about, tables, previous.name if previous else None)
    write_sums(folder)
    files = fix_times(folder, about.day)
    return Released(folder, version, len(tables), files, changelog)


def write_tables(folder: Path, tables: list[Table]) -> None:
    (folder / "csv").mkdir()
    (folder / "json").mkdir()
    for table in tables:
        write_csv(table, folder / csv_path(table))
        write_json(table, folder / json_path(table))


def write_changelog(folder: Path, about: About, previous: Path | None) -> changes.Changelog:
    old = changes.read_snapshot(previous) if previous else None
    changelog = changes.compare(
        about.version, previous.name if previous else None, old, changes.read_snapshot(folder)
    )
    (folder / "changelog.json").write_text(dumps(changelog.as_json()), encoding="utf-8")
    (folder / "CHANGELOG.md").write_text(
        changes.markdown(changelog, about.settings.book.title), encoding="utf-8"
    )
    return changelog


def fix_times(folder: Path, day: date) -> int:
    """Every file's time set to the day the data stands at, for archives that keep times."""
    stamp = datetime.combine(day, time(), UTC).timestamp()
    files = [path for path in folder.rglob("*") if path.is_file()]
    for path in files:
        os.utime(path, (stamp, stamp))
    return len(files)
