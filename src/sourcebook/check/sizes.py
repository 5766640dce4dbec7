"""What one field, and the paper, may hold: bounded, so that what check passes the build
can carry, and Typst typeset, within their budgets (docs/safety.md).

A record file may be up to `[limits] max_file_bytes` (50 MB at most), but no field of a
book's record is a megabyte of text, and each is rendered several times over (its page,
the pages that show it, search, feeds). The paper is typeset by Typst, whose work grows
faster than the text with its footnotes and headings (the outline numbers them all).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from sourcebook.diagnostics import Diagnostics
from sourcebook.link.markdown import EMBED_LINE
from sourcebook.model.base import Entity
from sourcebook.model.settings import Settings

MAX_FIELD_CHARS = 1_000_000
"""The most characters one field (the body included) may hold."""
PAPER_LIMITS = {"footnote marks": 4000, "headings": 1000, "figures": 100}
"""The most of each the paper may hold: what Typst sets within its budget."""

Path = tuple[str | int, ...]


def check_sizes(entity: Entity, settings: Settings, diagnostics: Diagnostics) -> None:
    for path, length in _long_texts(entity):
        diagnostics.error(
            entity.body_pos if path == ("body",) else entity.pos(*path),
            "S013",
            f"'{'.'.join(map(str, path))}' holds {length:,} characters; a field holds at "
            f"most {MAX_FIELD_CHARS:,}",
            "split it: a field this long is no page a reader reads",
        )
    if entity.KIND == "paper":
        _check_paper(entity, diagnostics)


def _long_texts(entity: Entity) -> list[tuple[Path, int]]:
    found: list[tuple[Path, int]] = []
    for name in type(entity).model_fields:
        _walk(getattr(entity, name, None), (name,), found)
    return found


def _walk(value: Any, path: Path, found: list[tuple[Path, int]]) -> None:
    if isinstance(value, str):
        if len(value) > MAX_FIELD_CHARS:
            found.append((path, len(value)))
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _walk(item, (*path, index), found)
    elif isinstance(value, dict):
        for key, item in value.items():
            _walk(item, (*path, str(key)), found)
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            _walk(getattr(value, name, None), (*path, name), found)


def _check_paper(paper: Entity, diagnostics: Diagnostics) -> None:
    body = getattr(paper, "body", "") or ""
    counted = {
        "footnote marks": body.count("[^") + body.count("^["),
        "headings": sum(map(_heading, body.splitlines())),
        "figures": len(EMBED_LINE.findall(body)),
    }
    for what, count in counted.items():
        most = PAPER_LIMITS[what]
        if count > most:
            diagnostics.error(
                paper.body_pos,
                "S014",
                f"the paper holds {count:,} {what}; it may hold at most {most:,}, which "
                "Typst sets within its budget",
                "make it shorter, or several papers' worth of one outside the record",
            )


def _heading(line: str) -> bool:
    """Whether a line may be a heading: `#` and a space (ATX), or a line of `=` or `-`
    under another (setext; a thematic break is counted too, as may be)."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped:
        return False
    if stripped[0] == "#":
        marks = len(stripped) - len(stripped.lstrip("#"))
        return marks <= 6 and stripped[marks : marks + 1] in ("", " ", "\t")
    return set(stripped.rstrip()) in ({"="}, {"-"})
