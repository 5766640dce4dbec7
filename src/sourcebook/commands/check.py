"""`sourcebook check`: report every problem in a record, as a compiler would."""

from __future__ import annotations

import json
import sys
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sourcebook.commands.common import OUTPUT, RECORD_OR_HOUSE, fail, house_path
from sourcebook.runtime.collector import collector_paused

if TYPE_CHECKING:
    from sourcebook.check.result import Checked, CheckedHouse

AS_OF = click.option(
    "--as-of",
    "as_of",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    default=None,
    help="Read the record as it stood on this day (YYYY-MM-DD); default: its close.",
)
"""`--as-of DATE`, shared by the commands that check or build a record."""


@click.command()
@RECORD_OR_HOUSE
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
@click.option(
    "--no-cache",
    is_flag=True,
    help="Check the record in full, every file read anew, even where it is unchanged since the"
    " last check.",
)
@click.option(
    "--fix-quotes",
    is_flag=True,
    help='First make words in straight quotes before a citation ("…" [@id]) a quote, “…”, '
    "in place (Q011); nothing else in the files changes.",
)
@collector_paused()  # a command's objects live as long as its process
def check(
    record: Path,
    output: str,
    no_warnings: bool,
    quotes: bool,
    listed: bool,
    as_of: datetime | None,
    no_cache: bool,
    fix_quotes: bool,
) -> None:
    """Check RECORD (default: this folder) and report every problem found. RECORD may be a
    house (its house.toml, or the folder holding it): every volume is checked. A record
    unchanged since its last check is not checked again: what that check found is shown."""
    from sourcebook.commands.remembered import check_remembered
    from sourcebook.diagnostics import shown_json

    house = house_path(record)
    if house and (quotes or fix_quotes):
        fail("--quotes and --fix-quotes take one record: run it on a volume's folder", output)
    if fix_quotes:
        _fix_quotes(record, output)
    day = as_of.date() if as_of else None
    single: Checked | None = None
    try:
        if house:
            from sourcebook.pipeline import check_house

            whole = check_house(record, day)
            diagnostics, entities = whole.diagnostics, whole.entities
        elif quotes or no_cache:
            from sourcebook.incremental import Memos
            from sourcebook.pipeline import check as run_check

            fresh = Memos.in_memory() if no_cache else None  # in memory, for this run alone
            single = run_check(record, day, kept=fresh)
            diagnostics, entities = single.diagnostics, _entities(single)
        else:  # a record unchanged since its last check loads none of the stages
            found = check_remembered(record, day)
            diagnostics, entities = found.diagnostics, found.entities
    except Exception as exc:
        if not _said_of_the_record(exc):
            raise
        fail(str(exc), output)
    shown = [d for d in diagnostics if not (no_warnings and d.severity.value == "warning")]
    errors = len(diagnostics.errors)
    warnings = len(diagnostics.warnings)
    if output == "json":
        click.echo(
            shown_json(
                json.dumps(
                    {
                        "record": record.as_posix(),
                        "entities": entities,
                        "errors": errors,
                        "warnings": warnings,
                        "diagnostics": [d.as_json() for d in shown],
                        **(_quotes_json(single, listed) if quotes else {}),
                    },
                    indent=2,
                    ensure_ascii=False,
                )
            )
        )
    else:
        print_diagnostics(shown, errors, warnings, entities)
        report = single.proofs if single is not None else None
        if quotes and single is not None and single.record is not None and report is not None:
            from sourcebook.commands.library import print_copy_table, print_quote_table
            from sourcebook.library.copies import copy_proofs

            copies = copy_proofs(single.record, report)
            print_quote_table(report)
            print_copy_table(copies)
            if listed:
                from sourcebook.commands.quote_list import print_quote_list
                from sourcebook.library.explain import explain

                print_quote_list(explain(report, single.record.library), copies)
    sys.exit(1 if errors else 0)


def _fix_quotes(record: Path, output: str) -> None:
    from sourcebook.commands.common import need_record
    from sourcebook.commands.fix_quotes import fix_quotes

    need_record(record, output)
    for shown, count, written in fix_quotes(record):
        said = f"{count} quote{'s' * (count != 1)}"
        if written:
            click.echo(f"made {said} curly in {shown}", err=output == "json")
        else:
            click.echo(
                f"warning: left {shown} as it is: its {said} sit in a YAML value that escapes "
                "its marks; make them curly by hand",
                err=True,
            )


def _said_of_the_record(exc: Exception) -> bool:
    """Whether `exc` is what check raises for a folder that is no record, or a day after
    it closes: a message for the person, not a traceback."""
    from sourcebook.compile import AsOfError
    from sourcebook.read import RecordError

    return isinstance(exc, (RecordError, AsOfError))


def _entities(checked: Checked | CheckedHouse) -> int:
    from sourcebook.check.result import CheckedHouse

    if isinstance(checked, CheckedHouse):
        return checked.entities
    return len(checked.record) if checked.record else 0


def _quotes_json(checked, listed: bool) -> dict:  # type: ignore[no-untyped-def]
    from sourcebook.commands.library import QUOTE_COLUMNS, copies_json, quote_table
    from sourcebook.commands.quote_list import held_by
    from sourcebook.library.copies import copy_proofs
    from sourcebook.library.explain import explain

    report = checked.proofs
    rows = quote_table(report) if report is not None else []
    out: dict = {"quotes": [dict(zip(QUOTE_COLUMNS, row, strict=True)) for row in rows]}
    record = checked.record
    copies = copy_proofs(record, report) if record is not None and report is not None else []
    out["copies"] = copies_json(copies)
    if listed:
        library = record.library if record is not None else None
        explained = explain(report, library) if report is not None and library else []
        held = held_by(copies)
        out["quote_list"] = [
            item.as_json()
            | {"copies": [{"shelf": s, "holds": h} for s, h in held.get(item.proof.claim, ())]}
            for item in explained
        ]
    return out


def print_diagnostics(shown: list, errors: int, warnings: int, entities: int) -> None:
    """Each diagnostic on its line (and its hint's), then the count; in colour on a terminal.
    Written at once: a record can have thousands of warnings."""
    summary = (
        f"{entities} entities: {errors} error{'s' * (errors != 1)}, "
        f"{warnings} warning{'s' * (warnings != 1)}"
    )
    if not sys.stdout.isatty():  # no colour to add: the lines as they are
        sys.stdout.write("".join(f"{d.format()}\n" for d in shown) + summary + "\n")
        sys.stdout.flush()
        return
    from rich.console import Console
    from rich.markup import escape as markup

    from sourcebook.diagnostics import shown as printable

    def escape(text: str) -> str:
        return markup(printable(text))

    console = Console(highlight=False, soft_wrap=True)
    colour = {"error": "bold red", "warning": "yellow"}
    lines = []
    for diagnostic in shown:
        severity = diagnostic.severity.value
        lines.append(
            f"[bold]{escape(str(diagnostic.pos))}:[/] [{colour[severity]}]{severity}[/] "
            f"[dim]{diagnostic.code}[/] {escape(diagnostic.message)}"
        )
        if diagnostic.hint:
            lines.append(f"  [cyan]hint:[/] {escape(diagnostic.hint)}")
    lines.append(f"[{'bold red' if errors else 'green'}]{summary}[/]")
    console.print("\n".join(lines))


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
    _passed_or_exit(checked, quiet)
    return checked


def house_checked_or_exit(
    house: Path, as_of: date | None = None, quiet: bool = False
) -> CheckedHouse:
    """`checked_or_exit` for a house: every volume's errors, and the house's, printed."""
    from sourcebook.compile import AsOfError
    from sourcebook.pipeline import check_house
    from sourcebook.read import RecordError

    try:
        checked = check_house(house, as_of)
    except (RecordError, AsOfError) as exc:
        fail(str(exc))
    _passed_or_exit(checked, quiet)
    return checked


def _passed_or_exit(checked: Checked | CheckedHouse, quiet: bool) -> None:
    diagnostics, entities = checked.diagnostics, _entities(checked)
    if not checked.ok:
        errors, warnings = len(diagnostics.errors), len(diagnostics.warnings)
        print_diagnostics(list(diagnostics), errors, warnings, entities)
        sys.exit(1)
    if diagnostics.warnings and not quiet:
        print_diagnostics(diagnostics.warnings, 0, len(diagnostics.warnings), entities)
