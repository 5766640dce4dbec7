"""`sourcebook check` remembered: a record checked before, and unchanged since, is not
checked again.

What check found is kept in the record's state folder under one hash of all it can depend
on: every file of the record by its content (`read.fingerprint`), the path it was given
by, the day it is checked as of, today (an open record's dates are checked against it),
and sourcebook's own code. The same hash gives the same
diagnostics, so the second check of an unchanged record reads them back. Nothing else is
trusted: a kept result that cannot be read is ignored and the record checked in full; one
whose queries ran out of time is never kept, as the next run may not; nor is the result
of a record that changed while it was checked.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from sourcebook.diagnostics import Diagnostic, Diagnostics, Pos, Severity
from sourcebook.files import write_atomic
from sourcebook.read.fingerprint import fingerprint
from sourcebook.read.kept import code
from sourcebook.read.paths import SETTINGS_FILE
from sourcebook.read.state import state_folder

UNKEPT = frozenset({"X003"})
"""Codes of what may not happen again (X003: a query stopped at its time limit): a check
that found one is not kept."""


@dataclass(frozen=True)
class Found:
    """What check found in a record: its diagnostics and how many entities it holds."""

    diagnostics: Diagnostics
    entities: int
    remembered: bool
    """Read back from an earlier check of the same record, not checked now."""


def check_remembered(root: Path, as_of: date | None = None) -> Found:
    """What `pipeline.check` finds in the record at `root`, read back where the same
    record was checked before. Raises as `check` does."""
    if not (root / SETTINGS_FILE).is_file():  # no record to fingerprint: check says why
        return _checked(root, as_of)
    folder = state_folder(root, "check")
    hashes = folder / "files.json.hashes" if folder is not None else None
    key = _key(root, as_of, hashes)
    kept = _read(folder / f"{key}.json") if folder is not None else None
    if kept is not None:
        return kept
    found = _checked(root, as_of)
    codes = {d.code for d in found.diagnostics}
    if folder is not None and not codes & UNKEPT and _key(root, as_of, hashes) == key:
        _write(folder, key, found)
    return found


def _checked(root: Path, as_of: date | None) -> Found:
    from sourcebook.pipeline import check  # the stages, loaded only where they are run

    checked = check(root, as_of)
    return Found(checked.diagnostics, len(checked.record) if checked.record else 0, False)


def _key(root: Path, as_of: date | None, hashes: Path | None) -> str:
    """The hash of all a check's result depends on: the diagnostics name files by the path
    the record was given by, so that is part of it. `hashes` keeps the files' hashes."""
    day = f"{as_of.isoformat() if as_of else 'close'} {date.today().isoformat()}"
    said = f"{code()}\n{day}\n{os.fsencode(root)!r}\n{fingerprint(root, hashes)}"
    return hashlib.sha256(said.encode()).hexdigest()


def _read(path: Path) -> Found | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        diagnostics = Diagnostics()
        for d in data["diagnostics"]:
            pos = Pos(str(d["file"]), int(d["line"]), int(d["col"]))
            hint = None if d["hint"] is None else str(d["hint"])
            severity = Severity(d["severity"])
            diagnostics.add(Diagnostic(pos, severity, str(d["code"]), str(d["message"]), hint))
        return Found(diagnostics, int(data["entities"]), True)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write(folder: Path, key: str, found: Found) -> None:
    data = {
        "entities": found.entities,
        "diagnostics": [
            {
                "file": d.pos.file,
                "line": d.pos.line,
                "col": d.pos.col,
                "severity": d.severity.value,
                "code": d.code,
                "message": d.message,
                "hint": d.hint,
            }
            for d in found.diagnostics
        ],
    }
    with contextlib.suppress(OSError):
        write_atomic(folder / f"{key}.json", json.dumps(data).encode("ascii"))
        for older in folder.glob("*.json"):  # the latest check alone is kept
            if older.name != f"{key}.json":
                older.unlink(missing_ok=True)
