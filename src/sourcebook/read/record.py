"""Walk a record's folders and read every entity file into the typed model."""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from sourcebook.diagnostics import Diagnostics, Pos
from sourcebook.incremental import FileDigests, FilesSeen, Memo
from sourcebook.model.kinds import KINDS, Kind
from sourcebook.model.record import Record
from sourcebook.read.entities import EntityFile, FileRead, reading
from sourcebook.read.paths import PUBLISHED_FOLDERS, Confined, check_links
from sourcebook.read.settings import RecordError, read_settings
from sourcebook.runtime.collector import collector_paused

__all__ = ["RecordError", "read_record"]

T = TypeVar("T")


@collector_paused()
def read_record(
    root: Path | str,
    diagnostics: Diagnostics,
    kept: Memo | None = None,
    seen: FilesSeen | None = None,
    digests: FileDigests | None = None,
) -> Record | None:
    """Read every entity of the record at `root`; None when its settings cannot be read.
    `kept`: front matter parsed by earlier runs (see `incremental.Memo`); none where not given.
    `digests`: each entity file's hash, kept by its stat: a file whose hash is kept, and
    whose front matter `kept` keeps under it, is not read (`incremental.FileDigests`).
    `seen`: the last read of each file, given again where it is unchanged; and, where it was
    told what changed, what the last read made of each folder in which nothing did (its
    entity files, its links checked, its Library, its watch log; `incremental.FilesSeen`).

    Raises RecordError when `root` is not a record at all.
    """
    root = Path(root)
    shown_root = root.as_posix().rstrip("/") or "."
    if seen is not None:
        seen.begin(root)  # before anything is listed: what changes from now on is told next
    settings = read_settings(root, shown_root, diagnostics)
    if settings is None:
        return None
    record = Record(root=root, settings=settings)
    confined = Confined(root)
    files: list[EntityFile] = []
    plain: set[str] = set()
    for kind in KINDS:
        part = ("listed", kind.folder, shown_root)
        listed = partial(_listed, kind, root, _shown(kind.folder, shown_root), confined)
        found, walked = _folder(seen, part, kind.folder, diagnostics, listed, confined, True)
        files += found
        if walked:
            plain.add(kind.name)
    published = {
        folder: _folder(
            seen,
            ("links", folder, shown_root),
            folder,
            diagnostics,
            partial(check_links, confined, folder, shown_root),
            confined,
        )[1]
        for folder in PUBLISHED_FOLDERS
    }
    from sourcebook.read.library import FOLDER as LIBRARY
    from sourcebook.read.library import read_library
    from sourcebook.read.watch import FOLDER as WATCH
    from sourcebook.read.watch import read_watch

    limit = settings.limits.max_file_bytes
    with reading(files, limit, kept, seen, plain, digests) as reads:
        record.library = _folder(
            seen,
            ("library", shown_root),
            LIBRARY,
            diagnostics,
            lambda found: read_library(root, shown_root, found),
            plain=published[LIBRARY],  # every file below library/ walked, none a link
        )[0]
        record.watch = _folder(
            seen,
            ("watch", shown_root, limit),
            WATCH,
            diagnostics,
            lambda found: read_watch(root, shown_root, limit, found, confined),
            confined,
        )[0]
        for read in reads:
            _add(read, record, diagnostics)
    if seen is not None:
        seen.commit()
    return record


def _folder(
    seen: FilesSeen | None,
    part: Any,
    folder: str,
    diagnostics: Diagnostics,
    make: Callable[[Diagnostics], T],
    confined: Confined | None = None,
    listing: bool = False,
    plain: bool = True,
) -> tuple[T, bool]:
    """What `make` makes of every file below `folder` (its problems into `diagnostics`):
    what the last read made, where `seen` gives it again, else made and kept for the next
    read where it met no symbolic link (`confined` counts them, or `plain` is false); and
    whether it met none."""
    kept = seen.lookup_folder(part, folder, listing) if seen is not None and plain else None
    if kept is not None:
        value, problems = kept
        diagnostics.extend(problems)
        return value, True
    found = Diagnostics()
    links = confined.links if confined is not None else 0
    value = make(found)
    plain = plain and (confined is None or confined.links == links)
    if seen is not None and plain:
        seen.record_folder(part, folder, (value, found.items), listing)
    diagnostics.extend(found.items)
    return value, plain


def _listed(
    kind: Kind, root: Path, shown: str, confined: Confined, found: Diagnostics
) -> list[EntityFile]:
    """The kind's entity files, below its folder in a stable order."""
    return [
        EntityFile(kind.name, os.path.basename(path)[: -len(".md")], path, shown_path)
        for path, shown_path in confined.files(root / kind.folder, shown, found)
        if path.endswith(".md")
    ]


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
