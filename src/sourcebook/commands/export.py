"""`sourcebook export`: the record's sources as CSL-JSON or BibTeX, for Zotero."""

from __future__ import annotations

from pathlib import Path

import click

from sourcebook.commands.common import RECORD, fail, need_file_path


@click.command()
@click.argument("format_", metavar="FORMAT", type=click.Choice(["csl-json", "bibtex"]))
@RECORD
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path),
    callback=lambda _, __, path: need_file_path(path),
    help="Write to this file (default: the standard output).",
)
def export(format_: str, record: Path, output: Path | None) -> None:
    """Write RECORD's sources as FORMAT (csl-json or bibtex), each keyed by its id, so that
    Zotero imports them with the same keys."""
    from sourcebook.diagnostics import Diagnostics
    from sourcebook.interchange.bibtex import write_bibtex
    from sourcebook.interchange.csl import write_csl
    from sourcebook.interchange.outgoing import works_of
    from sourcebook.read import RecordError, read_record

    try:
        read = read_record(record, Diagnostics())
    except RecordError as exc:
        fail(str(exc))
    if read is None:
        fail(
            f"{record.as_posix()}: its sourcebook.toml cannot be read ('sourcebook check' says why)"
        )
    works = works_of(read)
    text = write_csl(works) if format_ == "csl-json" else write_bibtex(works)
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(f"{output}: {exc.strerror}")
    click.echo(f"{len(works)} sources written to {output}", err=True)
