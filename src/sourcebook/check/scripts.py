"""Warn where a record publishes code: its static files, its templates, its releases.

A script in the record's static/ folder (its own site.js above all, which every page loads)
runs in every reader's browser with the site's own origin; so does an HTML or SVG file
opened from the site. A template of the record's own that adds a script, an event handler
or a `javascript:` address, or a header of its own, writes code into every page it renders:
the site's content security policy stops what is not the site's own file, but review should
see it. A data release's file that a browser would run is listed on the Data page and never
published. Nothing stops a record from any of these; none should go unnoticed in review.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sourcebook.diagnostics import Diagnostics, Pos
from sourcebook.link.graph import Graph
from sourcebook.model.active import runs_in_browser
from sourcebook.model.record import Record
from sourcebook.read.paths import Confined

MANIFEST = "release.json"
MOST_IN_A_TEMPLATE = 20
"""Warnings for one template: past these, review has seen enough of it."""

_CODE = re.compile(
    r"(?P<script><\s*script\b)"
    r"|(?P<address>j\s*a\s*v\s*a\s*s\s*c\s*r\s*i\s*p\s*t\s*:)"
    r"|(?P<header>http-equiv)"
    r"|(?P<computed><\s*(?:/\s*)?\{[{%])"
    r"|(?P<raw>\|\s*safe\b|autoescape\s+false)",
    re.IGNORECASE,
)
_TAG = re.compile(r"<[A-Za-z][^<>]*>")
_HANDLER = re.compile(r"[\s\"'/]on[a-z]+\s*=", re.IGNORECASE)
WHAT = {
    "script": "adds a script (<script>) to the pages it renders",
    "handler": "adds an event handler (on…=) to the pages it renders",
    "address": "adds a javascript: address to the pages it renders",
    "header": "sets a header of its own (http-equiv): the content security policy is the "
    "build's, and a page's own cannot loosen it",
    "computed": "writes a tag whose name it computes, which check cannot read",
    "raw": "writes a value unescaped (| safe, autoescape false)",
}
TEMPLATE_HINT = (
    "review it as code: what a template adds runs in readers' browsers wherever the "
    "content security policy lets it (docs/safety.md)"
)


def check_scripts(record: Record, graph: Graph, diagnostics: Diagnostics) -> None:
    confined = Confined(record.root)
    limit = record.settings.limits.max_file_bytes
    static = confined.files(record.root / "static", _shown(record, "static"), hidden=True)
    for _path, file in static:
        if runs_in_browser(file):
            _static_script(file, diagnostics)
    templates = confined.files(record.root / "templates", _shown(record, "templates"), hidden=True)
    for path, file in templates:
        for pos, what in template_code(_read(path, limit), file):
            diagnostics.warning(pos, "U003", what, TEMPLATE_HINT)
    for path, file in confined.files(record.root / "releases", _shown(record, "releases")):
        if Path(file).name == MANIFEST:
            _check_release(_read(path, limit), file, diagnostics)


def _static_script(file: str, diagnostics: Diagnostics) -> None:
    replaces = file.endswith("/static/site.js") or file == "static/site.js"
    diagnostics.warning(
        Pos(file),
        "U003",
        "replaces the site's own script, which every page runs"
        if replaces
        else "is code the site publishes as it is: it runs in readers' browsers",
        "review it as code; static files are published unchanged (docs/site.md)",
    )


def _shown(record: Record, folder: str) -> str:
    root = record.root.as_posix().rstrip("/") or "."
    return folder if root == "." else f"{root}/{folder}"


def _read(path: str, limit: int) -> str:
    try:
        with open(path, "rb") as opened:
            return opened.read(limit).decode("utf-8", errors="replace")
    except OSError:
        return ""


def template_code(text: str, file: str) -> Iterator[tuple[Pos, str]]:
    """Where a template adds code to its pages, and what it adds, in the order they come;
    at most MOST_IN_A_TEMPLATE."""
    found = [(m.start(), m.lastgroup or "") for m in _CODE.finditer(text)]
    found += [
        (tag.start() + handler.start() + 1, "handler")
        for tag in _TAG.finditer(text)
        for handler in _HANDLER.finditer(tag.group())
    ]
    lines = _Lines(text, file)
    for offset, kind in sorted(found)[:MOST_IN_A_TEMPLATE]:
        yield lines.pos(offset), WHAT[kind]


class _Lines:
    """Offsets in a text as line and column, asked in increasing order: linear in all."""

    def __init__(self, text: str, file: str):
        self.text, self.file = text, file
        self.offset, self.line, self.start = 0, 1, 0

    def pos(self, offset: int) -> Pos:
        self.line += self.text.count("\n", self.offset, offset)
        newline = self.text.rfind("\n", self.start, offset)
        self.start = newline + 1 if newline != -1 else self.start
        self.offset = offset
        return Pos(self.file, self.line, offset - self.start + 1)


def _check_release(text: str, file: str, diagnostics: Diagnostics) -> None:
    """Each file the release's manifest lists that a browser would run."""
    try:
        manifest: Any = json.loads(text)
    except (ValueError, RecursionError):
        return  # build reports a manifest it cannot read
    files = manifest.get("files") if isinstance(manifest, dict) else None
    paths = [f.get("path") for f in files if isinstance(f, dict)] if isinstance(files, list) else []
    lines = _Lines(text, file)
    found = []
    for path in paths:
        if isinstance(path, str) and runs_in_browser(path):
            at = max(text.find(json.dumps(path)), text.find(json.dumps(path, ensure_ascii=False)))
            found.append((max(at, 0), path))
    for at, path in sorted(found):
        diagnostics.warning(
            lines.pos(at),
            "U003",
            f"lists {path!r}, a file a browser would run: the site lists it but does not "
            "publish it",
            "a release is data; publish pages, drawings and scripts elsewhere (docs/releases.md)",
        )
