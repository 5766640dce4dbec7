"""datapackage.json: a Frictionless Data Package (v2) that describes every CSV of a release,
field by field, with its keys, its licence and the works its data come from."""

from __future__ import annotations

import json
from typing import Any

from sourcebook.publish.release.about import About
from sourcebook.publish.release.checksums import FileFacts
from sourcebook.publish.release.fields import table_description
from sourcebook.publish.release.tables import Table

PROFILE = "https://datapackage.org/profiles/2.0/datapackage.json"


def data_package(about: About, tables: list[Table], files: dict[str, FileFacts]) -> dict[str, Any]:
    """The descriptor; `files` gives the size and checksum of each CSV by its path."""
    book = about.settings.book
    package: dict[str, Any] = {
        "$schema": PROFILE,
        "name": about.name,
        "title": about.title,
        "description": about.description,
        "version": about.version,
        "created": f"{about.day.isoformat()}T00:00:00Z",
        "licenses": [{"name": book.licence, "path": about.licence_url, "title": book.licence}],
        "contributors": contributors(about),
        "sources": sources(tables),
        "resources": [resource(table, files[csv_path(table)]) for table in tables],
    }
    if about.url:
        package["homepage"] = about.url
    return package


def csv_path(table: Table) -> str:
    return f"csv/{table.name}.csv"


def json_path(table: Table) -> str:
    return f"json/{table.name}.json"


def resource(table: Table, facts: FileFacts) -> dict[str, Any]:
    return {
        "name": table.name,
        "type": "table",
        "path": csv_path(table),
        "format": "csv",
        "mediatype": "text/csv",
        "encoding": "utf-8",
        "bytes": facts.size,
        "hash": f"sha256:{facts.sha256}",
        "description": table_description(table.name),
        "schema": table.schema,
    }


def contributors(about: About) -> list[dict[str, Any]]:
    book = about.settings.book
    people = [(book.author, "author"), (book.publisher or book.house, "publisher")]
    return [{"title": name, "roles": [role]} for name, role in people if name]


def sources(tables: list[Table]) -> list[dict[str, str]]:
    """The record's sources, in id order: each with its first address where it has one."""
    table = next((t for t in tables if t.name == "sources"), None)
    if table is None:
        return []
    found = []
    for row in table.rows:
        source = dict(zip(table.columns, row, strict=True))
        urls = json.loads(source["urls"] or "[]")
        found.append({"title": source["title"], **({"path": urls[0]} if urls else {})})
    return found
