"""`sourcebook library`: add originals to a record's Library and list what it holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sourcebook.commands.common import OUTPUT, fail

if TYPE_CHECKING:
    from sourcebook.library.report import QuoteReport

RECORD_OPTION = click.option(
    "--record",
    "-r",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="The record whose Library it is.",
)


@click.group()
def library() -> None:
    """The Library: an archived copy of every source."""


@library.command()
@click.argument("target")
@RECORD_OPTION
@click.option("--source", "source", help="Name the item in this source's 'library:' list.")
@click.option(
    "--kind",
    type=click.Choice(["html", "pdf", "text", "image"]),
    help="The original's kind, where it is not to be guessed.",
)
@click.option("--url", help="Where the original was taken from (a file's source address).")
@click.option("--captured", help="The day it was captured, YYYY-MM-DD (default: today).")
@click.option("--how", help="How it was captured.")
@click.option("--by", help="Who captured it.")
@click.option("--holds", help="How much of the original the copy holds.")
@click.option(
    "--transcription",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="An image's transcription, written by hand: the image is read as an image.",
)
@click.option(
    "--capture-file",
    is_flag=True,
    help="The file starts with a url:/date: header; hold the text after it.",
)
def add(target: str, record: Path, source: str | None, **details: object) -> None:
    """Add TARGET, a file or an http(s) URL, to the Library; the same bytes give the same item."""
    from sourcebook.library.intake import Details, IntakeError, take_in
    from sourcebook.model.library import ItemKind

    kind = details.pop("kind")
    try:
        intake = take_in(
            record,
            target,
            Details(kind=ItemKind(kind) if kind else None, **details),  # type: ignore[arg-type]
            source,
        )
    except IntakeError as exc:
        fail(str(exc))
    item = intake.item
    state = "added" if intake.new else "already held"
    click.echo(f"{item.shelf} {state}: {item.kind.value}, {item.file}, captured {item.captured}")
    if intake.attached:
        click.echo(f"{item.shelf} named in the library of source '{source}'")


@library.command("list")
@RECORD_OPTION
@OUTPUT
def list_items(record: Path, output: str) -> None:
    """List the Library's items: shelf, kind, capture day, what it holds, where from."""
    from sourcebook.diagnostics import Diagnostics
    from sourcebook.read.library import read_library

    if not record.is_dir():
        fail(f"{record.as_posix()}: no such folder", output)
    held = read_library(record, record.as_posix(), Diagnostics())
    if output == "json":
        items = [item.model_dump(mode="json") | {"shelf": item.shelf} for item in held]
        click.echo(json.dumps(items, indent=2, ensure_ascii=False))
        return
    for item in held:
        where = item.url or item.file
        click.echo(f"{item.shelf}\t{item.kind.value}\t{item.captured}\t{item.holds}\t{where}")
    click.echo(f"{len(held)} item{'s' * (len(held) != 1)}")


def quote_table(report: QuoteReport) -> list[tuple[str, int, int, int, int, int]]:
    """Rows of `check --quotes`: per source, its quotes and their proof; then the totals."""
    return [
        (t.source, t.quotes, t.verified, t.not_found, t.unverifiable, t.marked)
        for t in [*report.tallies(), report.total()]
    ]


QUOTE_COLUMNS = ["source", "quotes", "verified", "not found", "unverifiable", "marked"]


def print_quote_table(report: QuoteReport) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Quotes against the Library", show_footer=False)
    for index, name in enumerate(QUOTE_COLUMNS):
        table.add_column(name, justify="left" if index == 0 else "right")
    rows = [[str(cell) for cell in row] for row in quote_table(report)]
    for row in rows[:-1]:
        table.add_row(*row)
    table.add_section()
    table.add_row(*rows[-1], style="bold")
    width = max(len(row[0]) for row in rows) + 60
    Console(highlight=False, soft_wrap=True, width=width).print(table)
    marks = report.marks()
    if marks:
        shown = ", ".join(f"{count} {mark}" for mark, count in sorted(marks.items()))
        click.echo(f"marked as not quotes: {shown}")
