"""Read a record's watch/ folder, and the one format its lines are written in.

`watch/SOURCE.jsonl` holds one JSON object per line, one per visit to an address of the
source, its keys always in the same order and those with nothing to say left out, so
that a diff shows each new visit as a line added:

    {"day": "2026-11-08", "url": "https://example.com/a", "status": 200, "sha256": "…",
     "bytes": 5120, "quotes": [{"quote": "…", "held": true}], "run": "2026-11-08T09:30:00Z"}

A line that cannot be read is a warning (W008) and is passed over: the log is written
by `sourcebook watch`, and a merge of two branches can leave a conflict in it.
"""

from __future__ import annotations

import json
import math
import os
from datetime import date
from pathlib import Path
from typing import Any

from sourcebook.diagnostics import Diagnostics, Pos
from sourcebook.model.base import ID_PATTERN
from sourcebook.model.watch import (
    FOLDER,
    RUNS,
    SUFFIX,
    Failure,
    Run,
    Seen,
    Soft,
    Visit,
    WatchLog,
)
from sourcebook.read.paths import Confined

MAX_LINE = 1_000_000
"""A visit is a line of a few hundred bytes; a longer one is not read."""
KEYS = (
    "day", "url", "status", "failure", "note", "redirects", "final", "sha256", "bytes",
    "soft", "similarity", "quotes", "etag", "last_modified", "run",
)  # fmt: skip


class LineError(ValueError):
    """A line of the log that is not a visit; the message says why."""


def read_watch(
    root: Path,
    shown_root: str,
    max_bytes: int,
    diagnostics: Diagnostics,
    confined: Confined | None = None,
) -> WatchLog:
    """The watch log of the record at `root`; an empty one where it has no watch/ folder.
    Files larger than `max_bytes` are not read (W008). `confined`: the record's, where the
    caller counts the links met."""
    log = WatchLog()
    shown = FOLDER if shown_root in ("", ".") else f"{shown_root}/{FOLDER}"
    folder = root / FOLDER
    confined = confined if confined is not None else Confined(root)
    for path, shown_path in confined.files(folder, shown, diagnostics, hidden=True):
        name = os.path.basename(path)
        if name.startswith(".") or not name.endswith(SUFFIX):
            continue
        if os.path.dirname(path) != str(folder):
            continue
        lines = _lines(path, shown_path, max_bytes, diagnostics)
        if name == RUNS:
            log.runs = [run for run in _parsed(lines, shown_path, run_of, diagnostics) if run]
            continue
        stem = name[: -len(SUFFIX)]
        if not ID_PATTERN.match(stem):
            diagnostics.warning(
                Pos(shown_path),
                "W009",
                f"a watch log named for no source: '{stem}' is not a source's id",
                "a source's log is watch/ID.jsonl; delete or rename this one",
            )
            continue
        log.visits[stem] = [v for v in _parsed(lines, shown_path, visit_of, diagnostics) if v]
        log.files[stem] = shown_path
    return log


def _lines(path: str, shown: str, max_bytes: int, diagnostics: Diagnostics) -> list[str]:
    try:
        size = os.path.getsize(path)
        if size > max_bytes:
            diagnostics.warning(
                Pos(shown),
                "W008",
                f"the watch log holds {size:,} bytes, more than [limits] max_file_bytes; "
                "it is not read",
                "split the source's addresses, or raise max_file_bytes",
            )
            return []
        with open(path, "rb") as file:
            data = file.read()
    except OSError as exc:
        diagnostics.warning(Pos(shown), "W008", f"the watch log cannot be read: {exc.strerror}")
        return []
    return data.decode("utf-8", errors="replace").split("\n")


def _parsed(lines: list[str], shown: str, parse: Any, diagnostics: Diagnostics) -> list[Any]:
    out = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            out.append(parse(line, number))
        except LineError as exc:
            diagnostics.warning(
                Pos(shown, number),
                "W008",
                f"a line of the watch log that is not a visit: {exc}; it is passed over",
                "the log is written by 'sourcebook watch': take this line out, or the whole "
                "file to start the source's log afresh (a merge conflict is the usual cause)",
            )
    return out


def _object(line: str) -> dict[str, Any]:
    if len(line) > MAX_LINE:
        raise LineError(f"{len(line):,} characters, more than {MAX_LINE:,}")
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        raise LineError("not JSON") from None
    if not isinstance(value, dict):
        raise LineError("not a JSON object")
    return value


def visit_of(line: str, number: int = 0) -> Visit:
    """The visit a line of a source's log says; raises LineError."""
    data = _object(line)
    redirects = _list(data, "redirects")
    quotes = _list(data, "quotes")
    return Visit(
        day=_day(data.get("day")),
        url=_text(data, "url", required=True) or "",
        run=_text(data, "run") or "",
        status=_status(data.get("status")),
        failure=_enum(Failure, data.get("failure"), "failure"),
        note=_text(data, "note") or "",
        redirects=tuple(_hop(hop) for hop in redirects),
        final=_text(data, "final"),
        sha256=_text(data, "sha256"),
        size=_whole(data.get("bytes", 0), "bytes"),
        soft=_enum(Soft, data.get("soft"), "soft"),
        similarity=_share(data.get("similarity")),
        quotes=tuple(_seen(seen) for seen in quotes),
        etag=_text(data, "etag"),
        last_modified=_text(data, "last_modified"),
        line=number,
    )


def line_of(visit: Visit) -> str:
    """The line of the log that says `visit` (with its line break)."""
    data: dict[str, Any] = {
        "day": visit.day.isoformat(),
        "url": visit.url,
        "status": visit.status,
        "failure": visit.failure.value if visit.failure else None,
        "note": visit.note or None,
        "redirects": [list(hop) for hop in visit.redirects] or None,
        "final": visit.final,
        "sha256": visit.sha256,
        "bytes": visit.size or None,
        "soft": visit.soft.value if visit.soft else None,
        "similarity": visit.similarity,
        "quotes": [{"quote": s.quote, "held": s.held} for s in visit.quotes] or None,
        "etag": visit.etag,
        "last_modified": visit.last_modified,
        "run": visit.run or None,
    }
    kept = {key: data[key] for key in KEYS if data[key] is not None}
    return json.dumps(kept, ensure_ascii=False, separators=(", ", ": ")) + "\n"


def run_of(line: str, number: int = 0) -> Run:
    """A line of `watch/_runs.jsonl`; raises LineError."""
    data = _object(line)
    seconds = data.get("seconds", 0)
    if not isinstance(seconds, int | float) or isinstance(seconds, bool) or seconds < 0:
        raise LineError("'seconds' is not a number of seconds")
    return Run(
        run=_text(data, "run", required=True) or "",
        day=_day(data.get("day")),
        addresses=_whole(data.get("addresses", 0), "addresses"),
        requests=_whole(data.get("requests", 0), "requests"),
        size=_whole(data.get("bytes", 0), "bytes"),
        seconds=float(seconds),
    )


def run_line(run: Run) -> str:
    data = {
        "run": run.run,
        "day": run.day.isoformat(),
        "addresses": run.addresses,
        "requests": run.requests,
        "bytes": run.size,
        "seconds": round(run.seconds, 3),
    }
    return json.dumps(data, separators=(", ", ": ")) + "\n"


def _day(value: Any) -> date:
    if not isinstance(value, str) or len(value) != 10:
        raise LineError("'day' is not a day written YYYY-MM-DD")
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise LineError("'day' is not a day written YYYY-MM-DD") from None


def _text(data: dict[str, Any], key: str, required: bool = False) -> str | None:
    value = data.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise LineError(f"'{key}' is not text")
    return value


def _status(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 100 <= value <= 599:
        raise LineError("'status' is not an HTTP status")
    return value


def _whole(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        raise LineError(f"'{key}' is not a whole number")
    return value


def _share(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise LineError("'similarity' is not a number")
    if not 0 <= value <= 1:
        raise LineError("'similarity' is not between 0 and 1")
    return float(value)


def _enum(kind: Any, value: Any, key: str) -> Any:
    if value is None:
        return None
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(member.value for member in kind)
        raise LineError(f"'{key}' is none of {allowed}") from None


def _list(data: dict[str, Any], key: str) -> list[Any]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise LineError(f"'{key}' is not a list")
    return value


def _hop(value: Any) -> tuple[str, int]:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not isinstance(value[0], str)
        or _status(value[1]) is None
    ):
        raise LineError("a redirect is not [address, status]")
    return value[0], value[1]


def _seen(value: Any) -> Seen:
    if not isinstance(value, dict) or not isinstance(value.get("quote"), str):
        raise LineError("a quote is not {quote, held}")
    held = value.get("held")
    if held is not None and not isinstance(held, bool):
        raise LineError("a quote's 'held' is not true, false or null")
    return Seen(value["quote"], held)
