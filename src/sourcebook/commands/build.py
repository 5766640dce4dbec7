"""`sourcebook build`: check the record, then write its companion site, swapped in whole."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

import click

from sourcebook.commands.check import AS_OF
from sourcebook.commands.common import RECORD_OR_HOUSE, fail, house_path, need_folder_path
from sourcebook.runtime.collector import collector_paused

if TYPE_CHECKING:
    from rich.console import Console


@click.command()
@RECORD_OR_HOUSE
@click.option(
    "-o",
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    callback=lambda _, __, path: need_folder_path(path),
    help="Where to write the site (default: RECORD/_site; for a house, beside its house file).",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress bar and no warnings.")
@click.option("--drafts", is_flag=True, help="Include the drafts, each marked as a draft.")
@AS_OF
@click.option(
    "--no-cache",
    is_flag=True,
    help="Read every file anew and write the whole site, not what earlier runs kept.",
)
@collector_paused()  # a command's objects live as long as its process
def build(
    record: Path,
    out: Path | None,
    quiet: bool,
    drafts: bool,
    as_of: datetime | None,
    no_cache: bool,
) -> None:
    """Check RECORD and build its site; a record with errors is never built. Drafts are
    left out unless --drafts. RECORD may be a house: every volume and the house's own
    pages make one site."""
    from sourcebook.commands.check import passed_or_exit
    from sourcebook.compile import AsOfError
    from sourcebook.incremental import Memos
    from sourcebook.pipeline import build as run_build
    from sourcebook.publish.site import BuildError
    from sourcebook.read import RecordError

    if house_path(record):
        build_house_site(record, out, quiet, drafts, as_of)
        return
    target = out if out is not None else record / "_site"
    try:
        with _progress(quiet) as progress:
            done = run_build(
                record,
                target,
                as_of=as_of.date() if as_of else None,
                drafts=drafts,
                progress=progress,
                kept=Memos.in_memory() if no_cache else None,  # in memory, for this run alone
            )
    except (RecordError, AsOfError, BuildError) as exc:
        fail(str(exc))
    passed_or_exit(done.checked, quiet)
    if not quiet and done.site is not None:
        site = done.site
        said = f"Built {site.pages:,} pages into {target} in {site.seconds:.2f} s"
        if site.written is not None:
            said += f" ({site.written:,} file(s) written afresh, the rest kept from the last build)"
        click.echo(said)


def build_house_site(
    house: Path, out: Path | None, quiet: bool, drafts: bool, as_of: datetime | None
) -> None:
    from sourcebook.commands.check import house_checked_or_exit
    from sourcebook.pipeline import build_house
    from sourcebook.publish.site import BuildError
    from sourcebook.read.house import house_file

    folder = house if house.is_dir() else house.parent
    target = out if out is not None else folder / "_site"
    checked = house_checked_or_exit(house, as_of.date() if as_of else None, quiet)
    try:
        with _progress(quiet) as progress:
            built = build_house(checked, target, progress=progress, drafts=drafts)
    except BuildError as exc:
        fail(str(exc))
    if not quiet:
        shown = (house_file(house) or house).as_posix()
        click.echo(
            f"Built {built.pages:,} pages of {shown} ({len(checked.volumes)} volume(s)) "
            f"into {target} in {built.seconds:.2f} s"
        )


def _progress(quiet: bool) -> AbstractContextManager[PageProgress | None]:
    """A context giving a `progress(done, total)` callback: a Rich bar on a terminal, or
    nothing (a bar that is only disabled still writes a line break on some Rich versions)."""
    from rich.console import Console

    console = Console(stderr=True)
    return nullcontext(None) if quiet or not console.is_terminal else PageProgress(console)


class PageProgress:
    """`with PageProgress() as progress: progress(done, total)`."""

    def __init__(self, console: Console) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self._bar = Progress(
            TextColumn("Building the site"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        self._task = self._bar.add_task("pages", total=None)

    def __enter__(self) -> PageProgress:
        self._bar.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._bar.stop()

    def __call__(self, done: int, total: int) -> None:
        self._bar.update(self._task, completed=done, total=total)
