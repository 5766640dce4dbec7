"""Arguments and exits shared by the commands."""

from __future__ import annotations

import ipaddress
import json
import sys
from pathlib import Path
from typing import NoReturn

import click

RECORD = click.argument(
    "record", type=click.Path(file_okay=False, path_type=Path), default=Path("."), required=False
)

RECORD_OR_HOUSE = click.argument(
    "record", type=click.Path(path_type=Path), default=Path("."), required=False
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
