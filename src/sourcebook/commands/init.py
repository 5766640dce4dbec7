"""`sourcebook init DIR`: write a small working record to start from."""

from __future__ import annotations

from pathlib import Path

import click

from sourcebook.commands.common import fail


@click.command()
@click.argument("directory", type=click.Path(path_type=Path))
@click.option("--title", default=None, help="The book's title (default: from DIR's name).")
@click.option("--house", default=None, help="The imprint that ends each page title.")
def init(directory: Path, title: str | None, house: str | None) -> None:
    """Write a small record into DIRECTORY (new or empty) that checks and builds, and make
    it a git repository (where git is installed and DIRECTORY is in none)."""
    from sourcebook.init_template import InitError, make_repository, write_template

    shown_title = title or directory.resolve().name.replace("-", " ").replace("_", " ").title()
    try:
        written = write_template(directory, shown_title, house or shown_title.upper())
    except InitError as exc:
        fail(str(exc))
    repository = make_repository(directory)
    click.echo(f"Wrote a record of {len(written)} files into {directory.as_posix()}: {repository}.")
    click.echo(f"Next: sourcebook serve {directory.as_posix()}")
