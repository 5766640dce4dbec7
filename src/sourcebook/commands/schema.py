"""`sourcebook schema`: write the JSON Schema of each kind's front matter."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("schemas"),
    show_default=True,
    help="Folder to write <kind>.schema.json into.",
)
def schema(out: Path) -> None:
    """Write a JSON Schema per kind, for editors that validate front matter as you type."""
    from sourcebook.model.schema import write_schemas

    for path in write_schemas(out):
        click.echo(path.as_posix())
