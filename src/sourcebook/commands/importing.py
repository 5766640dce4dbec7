"""`sourcebook import`: a Zotero export's items as sources, Hypothesis highlights as quotes."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from sourcebook.commands.common import RECORD, fail

if TYPE_CHECKING:
    from sourcebook.interchange.zotero import Plan

FILE = click.argument("file", type=click.Path(path_type=Path))
DRY_RUN = click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")


class _ImportGroup(click.Group):
    """`import FILE` is `import zotero FILE`: a Zotero export is what most imports are, so
    the help shows that usage and its options first."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["zotero", *args]
        return super().parse_args(ctx, args)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage(ctx.command_path, "[OPTIONS] FILE [RECORD]")
        formatter.write_usage(ctx.command_path, "hypothesis [OPTIONS] FILE [RECORD]", "   or: ")

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        zotero = self.commands["zotero"]
        rows = [row for p in zotero.get_params(ctx) if (row := p.get_help_record(ctx))]
        with formatter.section("Options"):
            formatter.write_dl(rows)
        self.format_commands(ctx, formatter)


@click.group(name="import", cls=_ImportGroup)
def import_() -> None:
    """Bring sources in as researchers keep them: a Zotero export (CSL-JSON, Better
    BibTeX .bib or RIS), `import FILE [RECORD]`, or Hypothesis highlights,
    `import hypothesis FILE [RECORD]`."""


@import_.command()
@FILE
@RECORD
@DRY_RUN
def zotero(file: Path, record: Path, dry_run: bool) -> None:
    """Import FILE, a Zotero export (CSL-JSON .json, BibTeX .bib or RIS .ris) into RECORD;
    again, to take Zotero's changes without touching what the author wrote."""
    from sourcebook.interchange.works import FormatError
    from sourcebook.interchange.zotero import ImportProblem, plan_import, write_plan
    from sourcebook.read import RecordError

    try:
        works = read_works(file)
        plan = plan_import(record, works, file.as_posix())
    except (FormatError, ImportProblem, RecordError) as exc:
        fail(str(exc))
    print_plan(plan, dry_run)
    if not dry_run:
        write_plan(record, plan)
    sys.exit(1 if plan.problems else 0)


@import_.command()
@FILE
@RECORD
@DRY_RUN
def hypothesis(file: Path, record: Path, dry_run: bool) -> None:
    """Import FILE, Hypothesis annotations as its API returns them, into RECORD: each
    highlight on a source's address becomes a quote of that source."""
    from sourcebook.interchange.highlights import plan_highlights, write_highlights
    from sourcebook.interchange.hypothesis import read_hypothesis
    from sourcebook.interchange.works import FormatError
    from sourcebook.interchange.zotero import ImportProblem
    from sourcebook.read import RecordError

    try:
        need_file(file)
        export = read_hypothesis(file)
        plan = plan_highlights(record, export.highlights)
    except (FormatError, ImportProblem, RecordError) as exc:
        fail(str(exc))
    verb = "would add" if dry_run else "added"
    for added in plan.added:
        count = len(added.quotes)
        click.echo(f"{verb} {count} quote{'s' * (count != 1)} to {added.path.as_posix()}")
        for quote in added.quotes:
            click.echo(f"  {quote}")
    for uri, count in sorted(plan.unmatched.items()):
        click.echo(f"no source holds {uri}: {count} highlight{'s' * (count != 1)} not imported")
    for uri, ids in sorted(plan.shared.items()):
        click.echo(f"several sources hold {uri} ({', '.join(ids)}): its highlights not imported")
    quotes = sum(len(a.quotes) for a in plan.added)
    click.echo(
        f"{quotes} quotes added, {plan.already} already imported, "
        f"{sum(plan.unmatched.values())} on addresses no source holds, "
        f"{export.page_notes} page notes left out"
        + (" (dry run: nothing written)" if dry_run else "")
    )
    if not dry_run:
        write_highlights(record, plan)


def read_works(file: Path) -> list[Any]:
    from sourcebook.interchange.bibtex import read_bibtex
    from sourcebook.interchange.csl import read_csl
    from sourcebook.interchange.ris import read_ris
    from sourcebook.interchange.works import FormatError

    need_file(file)
    try:
        if file.suffix.lower() in (".bib", ".bibtex"):
            return read_bibtex(file)
        if file.suffix.lower() == ".json":
            return read_csl(file)
        if file.suffix.lower() == ".ris":
            return read_ris(file)
    except UnicodeDecodeError as exc:
        raise FormatError(f"{file}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    raise FormatError(f"{file}: not a Zotero export: CSL-JSON (.json), BibTeX (.bib) or RIS (.ris)")


def need_file(file: Path) -> None:
    """Raises FormatError, saying why, where `file` is no file to read."""
    from sourcebook.interchange.works import FormatError

    if not file.exists():
        raise FormatError(f"{file.as_posix()}: no such file")
    if not file.is_file():
        raise FormatError(f"{file.as_posix()}: not a file")


def print_plan(plan: Plan, dry_run: bool) -> None:
    done = {"create": "would create" if dry_run else "created"}
    done["update"] = "would update" if dry_run else "updated"
    for change in plan.files:
        if change.action in done:
            click.echo(f"{done[change.action]} {change.path.as_posix()}")
        for field in change.changes:
            click.echo(f"  {field.name}: {_shown(field.old)} → {_shown(field.new)}")
        for conflict in change.conflicts:
            click.echo(
                f"conflict {change.path.as_posix()}: {conflict.name}: "
                f"yours {_shown(conflict.yours)}, Zotero's {_shown(conflict.zoteros)} "
                f"(imported as {_shown(conflict.imported)}); kept yours"
            )
    for problem in plan.problems:
        click.echo(f"error: {problem}", err=True)
    sources = [f for f in plan.files if f.work is not None]
    unchanged = sum(1 for f in sources if f.action == "unchanged" and not f.conflicts)
    click.echo(
        f"{len(sources)} sources: {plan.count('create', 'sources')} new, "
        f"{plan.count('update', 'sources')} updated, {unchanged} unchanged, "
        f"{sum(len(f.conflicts) for f in sources)} conflicts; "
        f"{plan.count('create', 'people')} new people, "
        f"{plan.count('create', 'parties')} new parties"
        + (" (dry run: nothing written)" if dry_run else "")
    )


def _shown(value: Any) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, list):
        return "[" + ", ".join(map(str, value)) + "]"
    return repr(str(value)) if " " in str(value) else str(value)
