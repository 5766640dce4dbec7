"""Structured logs: one JSON object per line on standard error. No address, no token."""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import Any

_lock = threading.Lock()
_quiet = False


def quiet(on: bool = True) -> None:
    """Leave out the info events (requests, sign-ups): `sourcebook serve` shows them with
    -v alone, for its preview's service; warnings and errors are always shown."""
    global _quiet
    _quiet = on


def first_line(exc: BaseException) -> str:
    """An error's first line: a database's later lines (DETAIL) may quote a row's values."""
    return (str(exc).strip().splitlines() or [""])[0][:200]


def log(event: str, level: str = "info", **fields: Any) -> None:
    if _quiet and level == "info":
        return
    record = {"time": round(time.time(), 3), "level": level, "event": event, **fields}
    line = json.dumps(record, default=str, separators=(",", ":"))
    with _lock:
        print(line, file=sys.stderr, flush=True)
