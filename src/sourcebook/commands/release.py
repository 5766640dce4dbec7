"""`sourcebook release VERSION`: check the record, then write its data release."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from sourcebook.commands.common import fail, need_record
from sourcebook.runtime.collector import collector_paused

if TYPE_CHECKING:
    from sourcebook.publish.release.changelog import Changelog

CHANGES = {
    "added": "{n} added",
    "removed": "{n} removed",
    "figures_changed": "{n} figure{s} changed",
    "figures_added": "{n} figure{s} added",
    "figures_removed": "{n} figure{s} removed",
    "quotes_corrected": "{n} quote{s} corrected",
    "corrections": "{n} correction{s} logged",
}


@click.command()
@click.argument("version")
@click.argument("record", type=click.Path(path_type=Path), default=Path("."), required=False)
@click.option("-q", "--quiet", is_flag=True, help="No summary and no warnings.")
@collector_paused()  # a command's objects live as long as its process
def release(version: str, record: Path, quiet: bool) -> None:
    """Check RECORD and write its data release VERSION (a day such as 2026-11-08, or a
    version such as 1.2.0) into RECORD/releases/VERSION; a release is never overwritten."""
    from sourcebook.commands.check import checked_or_exit
    from sourcebook.diagnostics import Diagnostics
    from sourcebook.pipeline import release as write_release
    from sourcebook.publish.release import ReleaseError, check_version, release_folder, unreleasable
    from sourcebook.read import RecordError
    from sourcebook.read.settings import read_settings

    try:
        check_version(version)
    except ReleaseError as exc:
        fail(str(exc))
    target = release_folder(need_record(record), version)
    if target.exists():  # refused before the record is read, as release() would refuse it
        fail(f"{target} already exists: a release is never overwritten", status=1)
    try:  # settings that cannot be read are reported by the check below
        settings = read_settings(record, record.as_posix(), Diagnostics())
    except RecordError as exc:
        fail(str(exc))
    lacking = unreleasable(settings.book) if settings is not None else None
    if lacking:
        fail(lacking, status=1)
    checked = checked_or_exit(record, quiet=quiet)
    try:
        released = write_release(checked, record, version)
    except ReleaseError as exc:
        fail(str(exc), status=1)
    if not quiet:
        click.echo(
            f"Released {version} into {released.folder}: "
            f"{released.tables} tables, {released.files} files."
        )
        click.echo(summary(released.changelog))


def summary(changelog: Changelog) -> str:
    if changelog.first:
        return "This is the record's first release."
    counts = changelog.counts()
    listed = ", ".join(
        CHANGES[name].format(n=n, s="s" * (n != 1)) for name, n in counts.items() if n
    )
    return f"Since {changelog.previous}: {listed or 'nothing changed'}. See CHANGELOG.md."
