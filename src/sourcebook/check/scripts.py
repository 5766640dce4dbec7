"""Warn where a record publishes code: its static files go out as they are.

A script in the record's static/ folder (its own site.js above all, which every page loads)
runs in every reader's browser with the site's own origin; so does an HTML or SVG file
opened from the site. Nothing stops a record from shipping one, but it should not go
unnoticed in review.
"""

from __future__ import annotations

from sourcebook.diagnostics import Diagnostics, Pos
from sourcebook.link.graph import Graph
from sourcebook.model.record import Record
from sourcebook.read.paths import Confined

SCRIPT_SUFFIXES = (".js", ".mjs", ".cjs", ".html", ".htm", ".xhtml", ".svg", ".wasm")


def check_scripts(record: Record, graph: Graph, diagnostics: Diagnostics) -> None:
    shown_root = record.root.as_posix().rstrip("/") or "."
    shown = "static" if shown_root == "." else f"{shown_root}/static"
    for _path, file in Confined(record.root).files(record.root / "static", shown, hidden=True):
        if not file.lower().endswith(SCRIPT_SUFFIXES):
            continue
        replaces = file.endswith("/static/site.js") or file == "static/site.js"
        diagnostics.warning(
            Pos(file),
            "U003",
            "replaces the site's own script, which every page runs"
            if replaces
            else "is code the site publishes as it is: it runs in readers' browsers",
            "review it as code; static files are published unchanged (docs/site.md)",
        )
