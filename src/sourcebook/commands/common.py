"""Arguments and exits shared by the commands."""

from __future__ import annotations

import ipaddress
import json
import sys
from pathlib import Path
from typing import NoReturn

import click


def need_record(path: Path, output: str = "text") -> Path:
    """`path` where it is a record's folder; else one line saying why not, and exit 2."""
    from sourcebook.read.paths import record_problem

    problem = record_problem(path, path.as_posix())
    if problem:
        fail(problem, output)
    return path


def need_folder(path: Path, output: str = "text", house: bool = False) -> Path:
    """`path` where it is a folder (or, with `house`, a house file); else one line and exit 2.
    Whether the folder is a record is said by what reads it, in `need_record`'s words."""
    if not path.exists():
        fail(f"{path.as_posix()}: no such {'file' if house and path.suffix else 'folder'}", output)
    if not path.is_dir() and not house:
        fail(f"{path.as_posix()}: not a folder", output)
    return path


def need_file_path(path: Path | None) -> Path | None:
    """`path` where a file may be written there (its folder exists, and it is no folder);
    else one line and exit 2."""
    if path is None:
        return None
    if path.is_dir():
        fail(f"{path.as_posix()}: a folder, not a file")
    if not path.parent.is_dir():
        fail(f"{path.parent.as_posix()}: no such folder")
    return path


def need_folder_path(path: Path | None) -> Path | None:
    """`path` where a folder may be made there (it is none yet, or a folder); else one line
    and exit 2."""
    if path is not None and path.exists() and not path.is_dir():
        fail(f"{path.as_posix()}: not a folder")
    return path


def _output(ctx: click.Context) -> str:
    return str(ctx.params.get("output") or "text")  # OUTPUT is eager: read before RECORD


RECORD = click.argument(
    "record",
    type=click.Path(path_type=Path),
    default=Path("."),
    required=False,
    callback=lambda ctx, _, path: need_record(path, _output(ctx)),
)
"""A record's folder (default: this one)."""

RECORD_FOLDER = click.argument(
    "record",
    type=click.Path(path_type=Path),
    default=Path("."),
    required=False,
    callback=lambda ctx, _, path: need_folder(path, _output(ctx)),
)
"""A record's folder, for a command that may run without one (`notify list --db URL`)."""

RECORD_OR_HOUSE = click.argument(
    "record",
    type=click.Path(path_type=Path),
    default=Path("."),
    required=False,
    callback=lambda ctx, _, path: need_folder(path, _output(ctx), house=True),
)
"""A record's folder, or a house: its house file, or the folder that holds one."""


def house_path(path: Path) -> bool:
    """Whether `path` names a house rather than a record (a record's folder wins)."""
    from sourcebook.read.paths import SETTINGS_FILE

    if (path / SETTINGS_FILE).is_file():
        return False
    from sourcebook.read.house import house_file

    return house_file(path) is not None


OUTPUT = click.option(
    "--format",
    "output",
    type=click.Choice(["text", "json"]),
    default="text",
    is_eager=True,
    help="text for people, json for editors, CI and programs.",
)


def fail(message: str, output: str = "text", status: int = 2) -> NoReturn:
    """A one-line message for a person (or a JSON object), then exit `status` (2: not usable
    as asked; 1: refused, as for a record with errors)."""
    if output == "json":
        click.echo(json.dumps({"error": message}))
    else:
        from sourcebook.diagnostics import shown

        click.echo(f"error: {shown(message)}", err=True)
    sys.exit(status)


def loopback(host: str) -> bool:
    """Whether `host` is reachable from this machine alone (`serve` and `notify serve` warn
    of any other)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
