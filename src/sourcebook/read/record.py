"""Walk a record's folders and read every entity file into the typed model."""

from __future__ import annotations

import os
from pathlib import Path

from sourcebook.diagnostics import Diagnostics, Pos
from sourcebook.incremental import FilesSeen, Memo
from sourcebook.model.kinds import KINDS
from sourcebook.model.record import Record
from sourcebook.read.entities import EntityFile, FileRead, reading
from sourcebook.read.paths import Confined, check_published_links
from sourcebook.read.settings import RecordError, read_settings
from sourcebook.runtime.collector import collector_paused

__all__ = ["RecordError", "read_record"]


@collector_paused()
def read_record(
    root: Path | str,
    diagnostics: Diagnostics,
    kept: Memo | None = None,
    seen: FilesSeen | None = None,
) -> Record | None:
    """Read every entity of the record at `root`; None when its settings cannot be read.
    `kept`: front matter parsed by earlier runs (see `incremental.Memo`); none where not given.
    `seen`: the last read of each file, given again where it is unchanged (`incremental.FilesSeen`).

    Raises RecordError when `root` is not a record at all.
    """
    root = Path(root)
    shown_root = root.as_posix().rstrip("/") or "."
    settings = read_settings(root, shown_root, diagnostics)
    if settings is None:
        return None
    record = Record(root=root, settings=settings)
    confined = Confined(root)
    files = [
        EntityFile(kind.name, os.path.basename(path)[: -len(".md")], path, shown)
        for kind in KINDS
        for path, shown in confined.files(
            root / kind.folder, _shown(kind.folder, shown_root), diagnostics
        )
        if path.endswith(".md")
    ]
    check_published_links(confined, shown_root, diagnostics)
    from sourcebook.read.library import read_library
    from sourcebook.read.watch import read_watch

    with reading(files, settings.limits.max_file_bytes, kept, seen) as reads:
        record.library = read_library(root, shown_root, diagnostics)
        record.watch = read_watch(root, shown_root, settings.limits.max_file_bytes, diagnostics)
        for read in reads:
            _add(read, record, diagnostics)
    return record


def _shown(relative: str, shown_root: str) -> str:
    return relative if shown_root == "." else f"{shown_root}/{relative}"


def _add(read: FileRead, record: Record, diagnostics: Diagnostics) -> None:
    diagnostics.extend(read.diagnostics)
    kind, entity_id = read.file.kind, read.file.id
    if read.entity is None:
        record.broken.add((kind, entity_id))
        return
    if entity_id in record.entities[kind]:
        first = record.entities[kind][entity_id].file
        diagnostics.error(
            Pos(read.file.shown),
            "S004",
            f"duplicate {kind} id '{entity_id}' (also {first})",
            "ids are file stems and must be unique within a kind",
        )
        return
    record.add(read.entity)
    if read.read_as is not None:
        record.read_as[read.entity.key] = read.read_as
