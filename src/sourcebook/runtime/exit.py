"""Leaving the process once a command is done."""

from __future__ import annotations

import os
import sys
from typing import NoReturn

from sourcebook.runtime.switches import plain


def exit_now(code: int) -> NoReturn:
    """Exit with `code`, once what was printed is out.

    A large record is millions of objects, which the interpreter would free one by one
    on its way out (about a second at 10,000 entities). By the time a command returns,
    its files are written and closed, and no process it started waits on it: so the
    process ends at once (`os._exit`), unless the `exit` speed-up is off.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    if plain("exit"):
        sys.exit(code)
    os._exit(code)
