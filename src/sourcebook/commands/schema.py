"""`sourcebook schema`: write the JSON Schema of each kind's front matter."""

from __future__ import annotations

from pathlib import Path

import click

from sourcebook.commands.common import fail, need_folder_path


@click.command()
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("schemas"),
    callback=lambda _, __, path: need_folder_path(path),
    show_default=True,
    help="Folder to write <kind>.schema.json into.",
)
def schema(out: Path) -> None:
    """Write a JSON Schema per kind, for editors that validate front matter as you type."""
    from sourcebook.model.schema import write_schemas

    try:
        written = write_schemas(out)
    except OSError as exc:
        fail(f"{out.as_posix()}: {exc.strerror or exc}")
    for path in written:
        click.echo(path.as_posix())
