"""`sourcebook check`: report every problem in a record, as a compiler would."""

from __future__ import annotations

import json
import sys
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sourcebook.commands.common import OUTPUT, RECORD, fail

if TYPE_CHECKING:
    from sourcebook.check.result import Checked

AS_OF = click.option(
    "--as-of",
    "as_of",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    default=None,
    help="Read the record as it stood on this day (YYYY-MM-DD); default: its close.",
)
"""`--as-of DATE`, shared by the commands that check or build a record."""


@click.command()
@RECORD
@OUTPUT
@click.option("--no-warnings", is_flag=True, help="Show errors only.")
@click.option("--quotes", is_flag=True, help="Also show each source's quotes: verified or not.")
@click.option(
    "--list",
    "listed",
    is_flag=True,
    help="With --quotes: each quote's verdict, the rules it needed, or its nearest passage.",
)
@AS_OF
def check(
    record: Path,
    output: str,
    no_warnings: bool,
    quotes: bool,
    listed: bool,
    as_of: datetime | None,
) -> None:
    """Check RECORD (default: this folder) and report every problem found."""
    from sourcebook.compile import AsOfError
    from sourcebook.pipeline import check as run_check
    from sourcebook.read import RecordError

    try:
        checked = run_check(record, as_of.date() if as_of else None)
    except (RecordError, AsOfError) as exc:
        fail(str(exc), output)
    shown = [d for d in checked.diagnostics if not (no_warnings and d.severity.value == "warning")]
    errors = len(checked.diagnostics.errors)
    warnings = len(checked.diagnostics.warnings)
    if output == "json":
        click.echo(
            json.dumps(
                {
                    "record": record.as_posix(),
                    "entities": len(checked.record) if checked.record else 0,
                    "errors": errors,
                    "warnings": warnings,
                    "diagnostics": [d.as_json() for d in shown],
                    **(_quotes_json(checked, listed) if quotes else {}),
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        print_diagnostics(shown, errors, warnings, len(checked.record) if checked.record else 0)
        if quotes and checked.record is not None and checked.proofs is not None:
            from sourcebook.commands.library import print_quote_table

            report = checked.proofs
            print_quote_table(report)
            if listed:
                from sourcebook.commands.quote_list import print_quote_list
                from sourcebook.library.explain import explain

                print_quote_list(explain(report, checked.record.library))
    sys.exit(1 if errors else 0)


def _quotes_json(checked, listed: bool) -> dict:  # type: ignore[no-untyped-def]
    from sourcebook.commands.library import QUOTE_COLUMNS, quote_table
    from sourcebook.library.explain import explain

    report = checked.proofs
    rows = quote_table(report) if report is not None else []
    out: dict = {"quotes": [dict(zip(QUOTE_COLUMNS, row, strict=True)) for row in rows]}
    if listed:
        library = checked.record.library if checked.record is not None else None
        explained = explain(report, library) if report is not None and library else []
        out["quote_list"] = [item.as_json() for item in explained]
    return out


def print_diagnostics(shown: list, errors: int, warnings: int, entities: int) -> None:
    from rich.console import Console
    from rich.markup import escape

    console = Console(highlight=False, soft_wrap=True)
    colour = {"error": "bold red", "warning": "yellow"}
    for diagnostic in shown:
        severity = diagnostic.severity.value
        console.print(
            f"[bold]{escape(str(diagnostic.pos))}:[/] [{colour[severity]}]{severity}[/] "
            f"[dim]{diagnostic.code}[/] {escape(diagnostic.message)}"
        )
        if diagnostic.hint:
            console.print(f"  [cyan]hint:[/] {escape(diagnostic.hint)}")
    summary = (
        f"{entities} entities: {errors} error{'s' * (errors != 1)}, "
        f"{warnings} warning{'s' * (warnings != 1)}"
    )
    console.print(f"[{'bold red' if errors else 'green'}]{summary}[/]")


def checked_or_exit(record: Path, as_of: date | None = None, quiet: bool = False) -> Checked:
    """Check a record before publishing it: errors printed and exit 1; warnings printed
    unless `quiet`; a folder that is not a record, or a day after it closes, exit 2."""
    from sourcebook.compile import AsOfError
    from sourcebook.pipeline import check
    from sourcebook.read import RecordError

    try:
        checked = check(record, as_of)
    except (RecordError, AsOfError) as exc:
        fail(str(exc))
    return passed_or_exit(checked, quiet)


def passed_or_exit(checked: Checked, quiet: bool = False) -> Checked:
    """A checked record's errors printed and exit 1; its warnings printed unless `quiet`."""
    diagnostics = checked.diagnostics
    entities = len(checked.record) if checked.record else 0
    if not checked.ok:
        print_diagnostics(
            list(diagnostics), len(diagnostics.errors), len(diagnostics.warnings), entities
        )
        sys.exit(1)
    if diagnostics.warnings and not quiet:
        print_diagnostics(diagnostics.warnings, 0, len(diagnostics.warnings), entities)
    return checked
