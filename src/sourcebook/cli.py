"""The command line: a thin shell over the pipeline.

Each verb lives in its own module under sourcebook.commands and is imported only
when it runs (or when --help lists it), so that start-up stays instant.
"""

from __future__ import annotations

import importlib
import sys
from typing import NoReturn

import click

from sourcebook.model.today import epoch_problem
from sourcebook.runtime.exit import exit_now

__all__ = ["exit_now", "main", "run"]

COMMANDS = {
    "build": "sourcebook.commands.build:build",
    "check": "sourcebook.commands.check:check",
    "export": "sourcebook.commands.export:export",
    "import": "sourcebook.commands.importing:import_",
    "init": "sourcebook.commands.init:init",
    "serve": "sourcebook.commands.serve:serve",
    "library": "sourcebook.commands.library:library",
    "notify": "sourcebook.commands.notify:notify",
    "release": "sourcebook.commands.release:release",
    "schema": "sourcebook.commands.schema:schema",
    "watch": "sourcebook.commands.watch:watch",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module, _, attr = target.partition(":")
        command = getattr(importlib.import_module(module), attr)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sourcebook")
def main() -> None:
    """Keep a source-checked research record as plain files, check it, publish it.

    An open record stands at today; SOURCE_DATE_EPOCH, set as for reproducible builds (whole
    seconds since 1970, UTC), says which day that is."""
    problem = epoch_problem()
    if problem is not None:
        from sourcebook.commands.common import fail

        fail(f"{problem}; unset it, or set it to one such as 1767225600 (2026-01-01)")


def run() -> NoReturn:
    """The `sourcebook` command: `main`, then `exit_now` (see `sourcebook.runtime.exit`)."""
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    except (MemoryError, RecursionError) as exc:
        # The budgets in read/ and derive/ should stop a record first; this is the last line.
        what = "more memory than it may use" if isinstance(exc, MemoryError) else "nesting too deep"
        code = f"sourcebook: error: the input needs {what}; nothing was written"
    else:
        code = 0
    if isinstance(code, str):
        print(code, file=sys.stderr)
        code = 1
    exit_now(code or 0)
