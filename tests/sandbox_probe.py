"""A child's first look at what it holds: run by tests/test_sandbox_preload.py in a child
the record's queries' way starts, before it imports anything of sourcebook's."""

from __future__ import annotations

import sys
from multiprocessing.connection import Connection


def loaded(out: Connection, names: list[str]) -> None:
    """Tell which of `names` the child held as it started, and whether it held the
    registry of units made."""
    units = sys.modules.get("sourcebook.model.units")
    made = units is not None and units.registry.cache_info().currsize == 1
    out.send(([name for name in names if name in sys.modules], made))
    out.close()
