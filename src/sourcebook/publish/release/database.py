"""The release's SQLite database: the compiled record with its file paths made relative to
the record's folder, written afresh so that the same record gives the same bytes wherever
it lies and however its path was typed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sourcebook.check.result import Checked
from sourcebook.compile import compile_checked


def write_database(checked: Checked, path: Path) -> Path:
    """The compiled record at `path`, its `file` columns relative to the record's folder."""
    assert checked.record is not None
    compiled = path.with_name(f".{path.name}.compiled")
    compile_checked(checked, compiled)
    try:
        db = sqlite3.connect(compiled)
        try:
            make_files_relative(db, shown_root(checked.record.root))
            db.commit()
            # A fresh copy: its header counts one change, however many the compiled file saw.
            db.execute("VACUUM INTO ?", (str(path),))
        finally:
            db.close()
    finally:
        compiled.unlink(missing_ok=True)
    return path


def shown_root(root: Path) -> str:
    """The record's folder as the reader wrote it before each file's path."""
    return root.as_posix().rstrip("/") or "."


def make_files_relative(db: sqlite3.Connection, root: str) -> None:
    if root == ".":
        return
    prefix = f"{root}/"
    tables = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for table in tables:
        columns = {row[1] for row in db.execute(f'PRAGMA table_info("{table}")')}
        if "file" in columns:
            db.execute(
                f'UPDATE "{table}" SET file = substr(file, ?) WHERE substr(file, 1, ?) = ?',
                (len(prefix) + 1, len(prefix), prefix),
            )
