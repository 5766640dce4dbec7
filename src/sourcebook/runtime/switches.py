"""Which speed-ups are on: all, unless SOURCEBOOK_PLAIN names them off."""

from __future__ import annotations

import os

TRICKS = ("workers", "collector", "exit")
ENVIRONMENT = "SOURCEBOOK_PLAIN"
"""`1` or `all`: every speed-up off; or a comma-separated list of those to turn off."""


def plain(trick: str) -> bool:
    """Whether `trick` is turned off, so that the plain library behaviour runs instead."""
    assert trick in TRICKS, trick
    value = os.environ.get(ENVIRONMENT, "").strip().lower()
    if value in ("", "0"):
        return False
    if value in ("1", "all", "true", "yes"):
        return True
    return trick in {name.strip() for name in value.split(",")}


def fast(trick: str) -> bool:
    return not plain(trick)
