"""The compiled record's tables; docs/database.md documents each one and its columns.

The fixed tables are written here. Each kind of entity also gets a table of its own,
named for its folder, with a column per front-matter field (see `kind_table`).
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Iterable
from typing import Any

from sourcebook.compile.meanings import MEANINGS
from sourcebook.model.base import Kind

SCHEMA_VERSION = "1"
"""Bump when a table or column changes meaning; data releases carry it."""

OWN_TABLES = {"figures", "parties", "parameters"}
"""Fields whose items live in tables of their own rather than as JSON in their kind's table."""

FIGURE_COLUMNS = """
    id TEXT PRIMARY KEY, owner_kind TEXT NOT NULL, owner_id TEXT NOT NULL,
    campus TEXT, party TEXT, position INTEGER NOT NULL,
    metric TEXT NOT NULL, metric_label TEXT, dimension TEXT,
    value REAL NOT NULL, unit TEXT NOT NULL, base_value REAL, base_unit TEXT,
    chip TEXT, qualifier TEXT, status TEXT NOT NULL, phase TEXT,
    as_of TEXT NOT NULL, as_of_start TEXT NOT NULL, as_of_end TEXT NOT NULL,
    grade TEXT NOT NULL REFERENCES grades(grade), grade_rank INTEGER NOT NULL,
    evidenced INTEGER NOT NULL, source TEXT, quote TEXT, quote_status TEXT,
    method TEXT, note TEXT, currency_year INTEGER, stated TEXT, known_from TEXT,
    retired_from TEXT, retired_by TEXT, retired_why TEXT,
    file TEXT, line INTEGER
"""
"""`figures` holds the figures that count on the database's day; `retired_figures`, with the
same columns, those a correction or the record's own doubt retired by then."""

TABLES = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE entities (
    kind TEXT NOT NULL, id TEXT NOT NULL, title TEXT NOT NULL, file TEXT, line INTEGER,
    draft INTEGER NOT NULL, known_from TEXT, PRIMARY KEY (kind, id)
);
CREATE TABLE aliases (kind TEXT NOT NULL, id TEXT NOT NULL, alias TEXT NOT NULL);
CREATE TABLE refs (
    from_kind TEXT NOT NULL, from_id TEXT NOT NULL, to_kind TEXT NOT NULL, to_id TEXT NOT NULL,
    via TEXT NOT NULL, field TEXT NOT NULL, text TEXT, locator TEXT,
    file TEXT, line INTEGER, col INTEGER
);
CREATE TABLE grades (
    grade TEXT PRIMARY KEY, rank INTEGER NOT NULL, evidenced INTEGER NOT NULL
);
CREATE TABLE metrics (
    metric TEXT PRIMARY KEY, label TEXT NOT NULL, dimension TEXT NOT NULL, unit TEXT NOT NULL
);
CREATE TABLE figures ({figure_columns});
CREATE INDEX figures_by_owner ON figures (owner_kind, owner_id, metric);
CREATE INDEX figures_by_metric ON figures (metric, status);
CREATE TABLE retired_figures ({figure_columns});
CREATE TABLE figure_inputs (
    figure TEXT NOT NULL, input TEXT NOT NULL, position INTEGER NOT NULL
);
CREATE TABLE campus_parties (
    campus TEXT NOT NULL, party TEXT NOT NULL, role TEXT NOT NULL, note TEXT, source TEXT,
    position INTEGER NOT NULL, supplies TEXT, quote TEXT, quote_status TEXT, known_from TEXT
);
CREATE TABLE scenario_parameters (
    scenario TEXT NOT NULL, id TEXT NOT NULL, title TEXT NOT NULL,
    value REAL NOT NULL, unit TEXT NOT NULL, year INTEGER,
    source TEXT, quote TEXT, method TEXT, inputs TEXT, note TEXT,
    PRIMARY KEY (scenario, id)
);
CREATE TABLE library_items (
    shelf TEXT PRIMARY KEY, kind TEXT, url TEXT, title TEXT, captured TEXT, holds TEXT,
    pages INTEGER, read_again TEXT, media_type TEXT, size INTEGER, sha256 TEXT,
    how TEXT, by TEXT, known_from TEXT
);
CREATE TABLE source_library (
    source TEXT NOT NULL, shelf TEXT NOT NULL, position INTEGER NOT NULL
);
CREATE TABLE quotes (
    owner_kind TEXT NOT NULL, owner_id TEXT NOT NULL, field TEXT NOT NULL,
    source TEXT NOT NULL, text TEXT NOT NULL, status TEXT, shelf TEXT, locator TEXT,
    file TEXT, line INTEGER, col INTEGER
);
CREATE TABLE watch_visits (
    source TEXT NOT NULL, url TEXT NOT NULL, day TEXT NOT NULL, status INTEGER,
    failure TEXT, note TEXT, redirects TEXT, final TEXT, sha256 TEXT, bytes INTEGER,
    soft TEXT, similarity REAL, quotes TEXT, run TEXT, line INTEGER NOT NULL,
    PRIMARY KEY (source, line)
);
CREATE TABLE watch_addresses (
    source TEXT NOT NULL, position INTEGER NOT NULL, url TEXT NOT NULL, state TEXT,
    day TEXT, since TEXT, moved_to TEXT, gone TEXT,
    PRIMARY KEY (source, position)
);
""".replace("{figure_columns}", FIGURE_COLUMNS)

SEARCH = """
CREATE VIRTUAL TABLE search USING fts5(
    kind UNINDEXED, id UNINDEXED, title, text, tokenize = 'porter unicode61 remove_diacritics 2'
);
"""
"""The full-text index. The in-memory database that check queries leaves it out unless a
query may read it (see `sourcebook.compile.compile_in_memory`)."""

VIEWS = (
    """
CREATE VIEW record_day AS SELECT value AS day FROM meta WHERE key = 'as_of';
"""
    + MEANINGS
    + """
CREATE VIEW evidenced_figures AS SELECT * FROM figures WHERE evidenced = 1;
CREATE VIEW latest_figures AS
SELECT * FROM (
    SELECT f.*, ROW_NUMBER() OVER (
        PARTITION BY owner_kind, owner_id, metric, COALESCE(chip, ''), status, evidenced
        ORDER BY as_of_end DESC, grade_rank, position DESC
    ) AS recency FROM figures f
) WHERE recency = 1;
"""
)


_READS = {
    "search": re.compile(r"search|sqlite_|dbstat", re.IGNORECASE),
    "refs": re.compile(r"refs|sqlite_|dbstat", re.IGNORECASE),
}
"""What a query names to read each table that the in-memory record may leave out (the
full-text index with its own tables, the references), or to see the schema or the pages
that would hold it."""


def schema(search: bool = True) -> str:
    """The fixed tables and views, with the full-text index or without it."""
    return TABLES + (SEARCH if search else "") + VIEWS


def may_read(table: str, queries: Iterable[str | None]) -> bool:
    """Whether any of these queries could see `table` ("search" or "refs"), or its
    absence."""
    pattern = _READS[table]
    return any(pattern.search(query) for query in queries if query)


def column_type(annotation: Any) -> str:
    """The SQLite type of a field: INTEGER, REAL or TEXT (lists and objects as JSON text)."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType) and len(args) == 1:
        return column_type(args[0])
    if annotation in (bool, int):
        return "INTEGER"
    if annotation is float:
        return "REAL"
    return "TEXT"


def kind_columns(kind: Kind) -> list[tuple[str, str]]:
    """(name, type) of each column of a kind's table, after id and title."""
    fields = kind.model.front_matter_fields()
    return [
        (name, column_type(field.annotation))
        for name, field in fields.items()
        if name not in OWN_TABLES and name not in ("title",)
    ]


def kind_table(kind: Kind) -> str:
    columns = ", ".join(f'"{name}" {sql_type}' for name, sql_type in kind_columns(kind))
    return (
        f'CREATE TABLE "{kind.folder}" (id TEXT PRIMARY KEY, title TEXT NOT NULL, {columns}, '
        "body TEXT, file TEXT, line INTEGER, known_from TEXT)"
    )
