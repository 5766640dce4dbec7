"""Walk a record's folders and read every entity file into the typed model."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sourcebook.diagnostics import Diagnostics, Pos, did_you_mean
from sourcebook.library.read import read_library
from sourcebook.model.base import ID_PATTERN, Entity
from sourcebook.model.kinds import KINDS, Kind
from sourcebook.model.record import Record
from sourcebook.read.frontmatter import FrontMatterError, parse
from sourcebook.read.settings import RecordError, read_settings

__all__ = ["RecordError", "read_record"]


def read_record(root: Path | str, diagnostics: Diagnostics) -> Record | None:
    """Read every entity of the record at `root`; None when its settings cannot be read.

    Raises RecordError when `root` is not a record at all.
    """
    root = Path(root)
    shown_root = root.as_posix().rstrip("/") or "."
    settings = read_settings(root, shown_root, diagnostics)
    if settings is None:
        return None
    record = Record(root=root, settings=settings)
    for kind in KINDS:
        for path in _entity_files(root / kind.folder, root, shown_root, diagnostics):
            _read_entity(path, kind, _shown(path, root, shown_root), record, diagnostics)
    record.library = read_library(root, shown_root, diagnostics)
    return record


def _shown(path: Path, root: Path, shown_root: str) -> str:
    relative = path.relative_to(root).as_posix()
    return relative if shown_root == "." else f"{shown_root}/{relative}"


def _entity_files(
    folder: Path, root: Path, shown_root: str, diagnostics: Diagnostics
) -> Iterator[Path]:
    """Markdown files below `folder` in a stable order; links are followed once, never looped."""
    if not folder.is_dir():
        return
    visited: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=True):
        real = os.path.realpath(dirpath)
        if real in visited:
            diagnostics.error(
                Pos(_shown(Path(dirpath), root, shown_root)),
                "R009",
                "symbolic link loop: this folder leads back to one already read",
                "remove the link",
            )
            dirnames.clear()
            continue
        visited.add(real)
        dirnames.sort()
        dirnames[:] = [d for d in dirnames if not d.startswith((".", "_"))]
        for name in sorted(filenames):
            if name.endswith(".md") and not name.startswith("."):
                yield Path(dirpath) / name


def _read_entity(
    path: Path, kind: Kind, shown: str, record: Record, diagnostics: Diagnostics
) -> None:
    entity_id = path.stem
    try:
        text = _read_text(path, shown, record.settings.limits.max_file_bytes)
        parsed = parse(text, shown)
    except FrontMatterError as exc:
        diagnostics.error(exc.pos, exc.code, exc.message, exc.hint)
        record.broken.add((kind.name, entity_id))
        return
    for name, pos in parsed.duplicate_keys:
        diagnostics.error(pos, "S006", f"field '{name}' is given twice", "keep one of them")
    if not ID_PATTERN.match(entity_id):
        diagnostics.error(
            Pos(shown),
            "S005",
            f"id '{entity_id}' is not lowercase letters, digits and hyphens",
            "rename the file: its stem is the entity's id",
        )
    if "id" in parsed.data or "body" in parsed.data:
        key = "id" if "id" in parsed.data else "body"
        diagnostics.error(
            parsed.positions.get((key,), Pos(shown)),
            "S002",
            f"unknown field '{key}'",
            "the id is the file's name and the body is the Markdown after the front matter",
        )
        parsed.data.pop(key)
    entity = _validate(
        kind, entity_id, parsed.data, parsed.body, shown, parsed.positions, diagnostics
    )
    if entity is None:
        record.broken.add((kind.name, entity_id))
        return
    entity.place(shown, parsed.positions, parsed.body_pos, parsed.spans)
    if entity_id in record.entities[kind.name]:
        first = record.entities[kind.name][entity_id].file
        diagnostics.error(
            Pos(shown),
            "S004",
            f"duplicate {kind.name} id '{entity_id}' (also {first})",
            "ids are file stems and must be unique within a kind",
        )
        return
    record.add(entity)


def _read_text(path: Path, shown: str, limit: int) -> str:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise FrontMatterError(Pos(shown), "R009", f"cannot be read: {exc.strerror}") from None
    if size > limit:
        raise FrontMatterError(
            Pos(shown),
            "R005",
            f"file is {size:,} bytes, over the limit of {limit:,}",
            "split it, or raise [limits] max_file_bytes in sourcebook.toml",
        )
    if size == 0:
        raise FrontMatterError(Pos(shown), "R003", "empty file", "an entity needs front matter")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start].decode("utf-8", "replace")
        raise FrontMatterError(
            Pos(shown).shifted(before),
            "R002",
            f"not UTF-8 text (byte 0x{data[exc.start]:02x})",
            "save the file as UTF-8",
        ) from None
    return text.removeprefix("\ufeff").replace("\r\n", "\n")


def _validate(
    kind: Kind,
    entity_id: str,
    data: dict[str, Any],
    body: str,
    shown: str,
    positions: dict,
    diagnostics: Diagnostics,
) -> Entity | None:
    try:
        return kind.model.model_validate({**data, "id": entity_id, "body": body})
    except ValidationError as exc:
        for error in exc.errors():
            _report(error, kind, shown, positions, diagnostics)
        return None


def _report(error: Any, kind: Kind, shown: str, positions: dict, diagnostics: Diagnostics) -> None:
    loc = tuple(error["loc"])
    field = ".".join(str(p) for p in loc)
    pos = _nearest(positions, loc, shown)
    if error["type"] == "missing":
        diagnostics.error(
            _nearest(positions, loc[:-1], shown),
            "S001",
            f"missing field '{field}'",
            f"a {kind.name} needs '{loc[-1]}:' in its front matter",
        )
    elif error["type"] == "extra_forbidden":
        known = kind.model.front_matter_fields() if len(loc) == 1 else {}
        diagnostics.error(
            pos,
            "S002",
            f"unknown field '{field}' for a {kind.name}",
            did_you_mean(str(loc[-1]), known) or "see docs/record-format.md for the fields",
        )
    else:
        given = error.get("input")
        shown_input = repr(given) if isinstance(given, (str, int, float, bool)) else None
        message = f"'{field}': {error['msg'].rstrip('.').lower()}"
        if shown_input and len(shown_input) < 60:
            message += f", not {shown_input}"
        diagnostics.error(pos, "S003", message)


def _nearest(positions: dict, loc: tuple, shown: str) -> Pos:
    while loc:
        if loc in positions:
            return positions[loc]
        loc = loc[:-1]
    return positions.get((), Pos(shown))
