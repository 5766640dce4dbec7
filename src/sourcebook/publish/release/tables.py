"""The compiled record's tables as files: a CSV and a JSON file per table, rows sorted.

Rows are sorted by their key, then by every column, so that the same record always
gives the same bytes. Numbers are written as Python writes them (the shortest text that
reads back as the same float), which is the same on every machine.
"""

from __future__ import annotations

import csv
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sourcebook.publish.release.fields import table_schema


@dataclass(frozen=True)
class Table:
    name: str
    schema: dict[str, Any]
    """Its Table Schema (see fields.py)."""
    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]


def read_tables(db: sqlite3.Connection) -> list[Table]:
    """Every table of the compiled record but the full-text index, in name order."""
    return [read_table(db, name) for name in data_tables(db)]


def data_tables(db: sqlite3.Connection) -> list[str]:
    master = db.execute("SELECT name, type, sql FROM sqlite_master").fetchall()
    virtual = {
        name for name, _type, sql in master if (sql or "").upper().startswith("CREATE VIRTUAL")
    }
    return sorted(
        name
        for name, type_, _sql in master
        if type_ == "table"
        and not name.startswith("sqlite_")
        and name not in virtual
        and not any(name.startswith(f"{index}_") for index in virtual)  # the index's own tables
    )


def read_table(db: sqlite3.Connection, name: str) -> Table:
    schema = table_schema(db, name)
    columns = tuple(field["name"] for field in schema["fields"])
    keys = schema.get("primaryKey", [])
    order = [*keys, *(c for c in columns if c not in keys)]
    listed = ", ".join(f'"{c}"' for c in columns)
    ordered = ", ".join(f'"{c}"' for c in order)
    rows = db.execute(f'SELECT {listed} FROM "{name}" ORDER BY {ordered}').fetchall()
    return Table(name, schema, columns, rows)


def write_csv(table: Table, path: Path) -> None:
    """RFC 4180 CSV with a header row; an empty field is NULL, lists and objects are JSON."""
    with path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(table.columns)
        writer.writerows(table.rows)


def write_json(table: Table, path: Path) -> None:
    """An array of objects, one per row, typed as the table's schema says."""
    path.write_text(dumps(json_rows(table)), encoding="utf-8")


def json_rows(table: Table) -> list[dict[str, Any]]:
    types = [field["type"] for field in table.schema["fields"]]
    return [
        {
            column: json_value(value, type_)
            for column, value, type_ in zip(table.columns, row, types, strict=True)
        }
        for row in table.rows
    ]


def json_value(value: Any, type_: str) -> Any:
    if value is None:
        return None
    if type_ == "boolean":
        return bool(value)
    if type_ in ("array", "object"):
        return json.loads(value)
    return value


def dumps(data: Any) -> str:
    """JSON as every file of a release writes it: keys sorted, UTF-8, a newline at the end."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True, indent=2) + "\n"
