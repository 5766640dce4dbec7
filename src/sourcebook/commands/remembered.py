"""`sourcebook check` remembered: a record checked before, and unchanged since, is not
checked again.

What check found is kept in a whole-record memo (`incremental.RecordMemo`) under the key of
all it can depend on: every file of the record by its content, the path it was given by,
the day it is checked as of, today (an open record's dates are checked against it), and
sourcebook's own code. A kept result that cannot be read is ignored and the record checked
in full; one whose queries ran out of time is never kept, as the next run may not; nor is
the result of a record that changed while it was checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from sourcebook.diagnostics import Diagnostic, Diagnostics, Pos, Severity
from sourcebook.incremental import RecordMemo
from sourcebook.model.today import today
from sourcebook.read.paths import SETTINGS_FILE

UNKEPT = frozenset({"X003"})
"""Codes of what may not happen again (X003: a query stopped at its time limit): a check
that found one is not kept."""
PART = "check"


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
    day = f"{as_of.isoformat() if as_of else 'close'} {today().isoformat()}"
    memo = RecordMemo(root, PART, day)
    kept = _read(memo.lookup())
    if kept is not None:
        return kept
    found = _checked(root, as_of)
    if not {d.code for d in found.diagnostics} & UNKEPT:
        memo.record(_plain(found))
    return found


def _checked(root: Path, as_of: date | None) -> Found:
    from sourcebook.pipeline import check  # the stages, loaded only where they are run

    checked = check(root, as_of)
    return Found(checked.diagnostics, len(checked.record) if checked.record else 0, False)


def _read(data: Any) -> Found | None:
    if data is None:
        return None
    try:
        diagnostics = Diagnostics()
        for d in data["diagnostics"]:
            pos = Pos(str(d["file"]), int(d["line"]), int(d["col"]))
            hint = None if d["hint"] is None else str(d["hint"])
            severity = Severity(d["severity"])
            diagnostics.add(Diagnostic(pos, severity, str(d["code"]), str(d["message"]), hint))
        return Found(diagnostics, int(data["entities"]), True)
    except (ValueError, KeyError, TypeError):
        return None


def _plain(found: Found) -> dict[str, Any]:
    return {
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
