"""`sourcebook library`: add originals to a record's Library and list what it holds."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from sourcebook.commands.common import OUTPUT

if TYPE_CHECKING:
    from sourcebook.interchange.page import Offer
    from sourcebook.library.copies import CopyProofs
    from sourcebook.library.report import QuoteReport

RECORD_ARGUMENT = click.argument(
    "record", type=click.Path(path_type=Path), default=None, required=False
)
RECORD_OPTION = click.option(
    "--record", "-r", "record_option", type=click.Path(path_type=Path), default=None, hidden=True
)
"""`--record DIR`, as RECORD was once given; kept so that scripts that name it still run."""


def record_given(record: Path | None, record_option: Path | None, output: str = "text") -> Path:
    """RECORD, or `--record`, or this folder, where it is a record; else one line, exit 2."""
    from sourcebook.library.refusal import BAD_OPTION, NO_SUCH_RECORD_OR_SOURCE
    from sourcebook.read.paths import record_problem

    if record is not None and record_option is not None and record != record_option:
        refuse(BAD_OPTION, f"RECORD {record} and --record {record_option} differ: give one")
    path = record or record_option or Path(".")
    problem = record_problem(path, path.as_posix())
    if problem and output == "json":
        click.echo(json.dumps({"error": problem}))
        sys.exit(2)
    if problem:
        refuse(NO_SUCH_RECORD_OR_SOURCE, problem)
    return path


@click.group()
def library() -> None:
    """The Library: an archived copy of every source."""


@library.command()
@click.argument("target", required=False)
@RECORD_ARGUMENT
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
    type=click.Path(path_type=Path),
    help="An image's transcription, written by hand: the image is read as an image.",
)
@click.option(
    "--capture-file",
    is_flag=True,
    help="The file starts with a url:/date: header; hold the text after it.",
)
@click.option(
    "--timeout",
    type=str,
    default="60",
    show_default=True,
    help="Seconds a URL's whole download may take, however slowly the server sends.",
)
@click.option(
    "--max-bytes",
    type=str,
    default=str(64 * 1024 * 1024),
    show_default=True,
    help="Bytes a URL's body may hold, on the wire and again once decompressed.",
)
@click.option(
    "--refresh",
    metavar="SHELF",
    help="Take a new copy of the page held on SHELF beside it (never in its place), from "
    "where it was taken or from TARGET, and name it in every source that names SHELF.",
)
@click.option(
    "--fill/--no-fill",
    default=True,
    help="With --source and a web page: fill the source's empty fields from the page's "
    "metadata (--no-fill only shows what it would fill).",
)
def add(
    target: str | None,
    record: Path | None,
    record_option: Path | None,
    source: str | None,
    timeout: str,
    max_bytes: str,
    refresh: str | None,
    fill: bool,
    **details: object,
) -> None:
    """Add TARGET, a file or an http(s) URL, to the Library of RECORD (default: this
    folder); the same bytes give the same item. With --refresh SHELF, TARGET may be left
    out (the page is fetched again from where SHELF was taken)."""
    from sourcebook.interchange.editor import EditError
    from sourcebook.interchange.page import offer_for
    from sourcebook.library.fetch import Budget
    from sourcebook.library.intake import Details, take_in
    from sourcebook.library.refusal import BAD_OPTION, NO_SUCH_RECORD_OR_SOURCE, TOO_LARGE, Refused
    from sourcebook.model.library import ItemKind

    if refresh is not None:
        _refresh(refresh, target, record, record_option, timeout, max_bytes)
        return
    if target is None:
        raise click.UsageError("Missing argument 'TARGET': a file or an http(s) URL.")
    record = record_given(record, record_option)
    kind = details.pop("kind")
    try:
        budget = Budget(
            seconds=_number("--timeout", timeout), max_bytes=_whole("--max-bytes", max_bytes)
        )
        intake = take_in(
            record,
            target,
            Details(
                kind=ItemKind(str(kind)) if kind else None,
                budget=budget,
                **details,  # type: ignore[arg-type]
            ),
            source,
        )
        offer = offer_for(record, intake, fill)
    except EditError as exc:
        refuse(NO_SUCH_RECORD_OR_SOURCE, str(exc))
    except OSError as exc:  # the source file filled from the page could not be written
        refuse(NO_SUCH_RECORD_OR_SOURCE, f"{source}: {exc.strerror or exc}")
    except Refused as exc:
        refuse(exc.code, str(exc))
    except ValueError as exc:
        refuse(BAD_OPTION, str(exc))
    except MemoryError:
        refuse(TOO_LARGE, f"{target}: more memory than there is was needed to read it")
    item = intake.item
    state = "added" if intake.new else "already held"
    click.echo(f"{item.shelf} {state}: {item.kind.value}, {item.file}, captured {item.captured}")
    if intake.attached:
        click.echo(f"{item.shelf} named in the library of source '{source}'")
    if offer is not None:
        print_offer(offer, written=fill)


def _refresh(
    shelf: str,
    target: str | None,
    record: Path | None,
    record_option: Path | None,
    timeout: str,
    max_bytes: str,
) -> None:
    """`library add --refresh SHELF [URL] [RECORD]`: a TARGET that is no http(s) address
    is the record."""
    from sourcebook.library.fetch import Budget
    from sourcebook.library.refresh import refresh
    from sourcebook.library.refusal import BAD_OPTION, Refused

    if target is not None and not target.startswith(("http://", "https://")):
        if record is not None:
            refuse(BAD_OPTION, f"--refresh takes a page's address as TARGET, not {target}")
        record = Path(target)
        target = None
    root = record_given(record, record_option)
    try:
        budget = Budget(
            seconds=_number("--timeout", timeout), max_bytes=_whole("--max-bytes", max_bytes)
        )
        done = refresh(root, shelf, target, budget)
    except Refused as exc:
        refuse(exc.code, str(exc))
    except ValueError as exc:
        refuse(BAD_OPTION, str(exc))
    except OSError as exc:
        refuse(BAD_OPTION, f"{shelf}: {exc.strerror or exc}")
    item = done.item
    if not done.new:
        click.echo(
            f"{item.shelf} holds the page as it is now: noted as read again on "
            f"{item.read_again[-1]}"
        )
        return
    click.echo(
        f"{item.shelf} added beside {done.older.shelf}: {item.kind.value}, {item.file}, "
        f"captured {item.captured}"
    )
    for source in done.named_in:
        click.echo(f"{item.shelf} named in the library of source '{source}'")


USAGE_CODES = frozenset({"Q106", "Q107", "Q108"})
"""Refusals of what was asked, not of the original: exit 2, as for a usage error."""


def refuse(code: str, message: str) -> NoReturn:
    """One line, `error CODE message`; exit 1 for an original refused, 2 for a command
    that cannot be carried out as given."""
    click.echo(f"error {code} {' '.join(message.split())}", err=True)
    sys.exit(2 if code in USAGE_CODES else 1)


def _number(option: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{option} '{text}' is not a number of seconds") from None
    return value


def _whole(option: str, text: str) -> int:
    if not text.strip().isdigit() or len(text.strip()) > 12:
        raise ValueError(f"{option} '{text}' is not a whole number of bytes")
    return int(text)


def print_offer(made: Offer, written: bool) -> None:
    """What the page's metadata filled in the source, and what it says that the source
    says otherwise (kept as the author wrote it)."""
    shown = made.path.as_posix()
    if made.filled:
        verb = "filled" if written else "would fill (--no-fill)"
        fields = "; ".join(f"{name}: {_value(value)}" for name, value in made.filled)
        click.echo(f"{verb} in {shown} from the page: {fields}")
        for new in made.new:
            folder = "people" if new.kind == "person" else "parties"
            click.echo(f"  {'new' if written else 'would write'} {new.kind} {folder}/{new.id}.md")
    for name, have, said in made.kept:
        click.echo(f"kept {name} of {shown}: {_value(have)} (the page says {_value(said)})")


def _value(value: object) -> str:
    if isinstance(value, list | tuple):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)


@library.command("list")
@RECORD_ARGUMENT
@RECORD_OPTION
@OUTPUT
def list_items(record: Path | None, record_option: Path | None, output: str) -> None:
    """List the Library's items of RECORD (default: this folder): shelf, kind, capture day,
    what it holds, where from."""
    from sourcebook.diagnostics import Diagnostics
    from sourcebook.read.library import read_library

    record = record_given(record, record_option, output)
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


def print_copy_table(copies: list[CopyProofs]) -> None:
    """For each source with several copies, how many of its quotes each copy proves."""
    if not copies:
        return
    click.echo("Quotes each copy proves, where a source has several:")
    for found in copies:
        for item in found.items:
            refreshes = f", refreshing {item.refreshes}" if item.refreshes else ""
            click.echo(
                f"  {found.source}: {item.shelf} (taken {item.captured}{refreshes}) proves "
                f"{found.proves(item)} of {len(found.held)}"
            )


def copies_json(copies: list[CopyProofs]) -> list[dict[str, object]]:
    return [
        {
            "source": found.source,
            "shelf": item.shelf,
            "captured": item.captured,
            "refreshes": item.refreshes,
            "proves": [claim.text for claim, held in found.held.items() if held[index]],
        }
        for found in copies
        for index, item in enumerate(found.items)
    ]
