"""Read entity files into typed entities: one at a time, or spread over forked workers.

Reading a file depends on nothing but the file, so a large record's files are shared
out in chunks to one process per core; each file's entity and diagnostics come back in
the order the files were given, exactly as reading them one by one would give them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from itertools import chain
from typing import Any, NamedTuple

from pydantic import ValidationError

from sourcebook.diagnostics import Diagnostic, Diagnostics, Pos, did_you_mean
from sourcebook.model.base import ID_PATTERN, Entity, Place
from sourcebook.model.kinds import KINDS, Kind
from sourcebook.read.frontmatter import FrontMatterError, Path_, parse
from sourcebook.runtime.workers import Forked, forked_job, worker_count

PARALLEL_FROM = 2000
"""Files below which a record is read in this process: starting workers costs more."""
CHUNK = 250
"""Files a worker reads per task: enough to make each task's round trip cheap, few enough
that the workers finish together."""

_KIND = {kind.name: kind for kind in KINDS}


class EntityFile(NamedTuple):
    kind: str
    id: str
    """The file's stem."""
    path: str
    shown: str
    """The path as diagnostics show it."""


class FileRead(NamedTuple):
    """What reading one file gave: its entity (None if it could not be read) and problems."""

    file: EntityFile
    entity: Entity | None
    diagnostics: list[Diagnostic]


@contextmanager
def reading(files: Sequence[EntityFile], max_bytes: int) -> Iterator[Iterator[FileRead]]:
    """Each file read, in the order given. Workers, where there are any, start at once and
    read while the block runs; in this process, each file is read as the block asks for it."""
    jobs = _jobs(len(files))
    if jobs <= 1:
        yield (FileRead(file, *_read(file, max_bytes)) for file in files)
        return
    bounds = [(i, min(i + CHUNK, len(files))) for i in range(0, len(files), CHUNK)]
    with Forked(jobs, (files, max_bytes)) as pool:
        found = chain.from_iterable(pool.imap(_read_chunk, bounds))
        yield (FileRead(file, *read) for file, read in zip(files, found, strict=True))


def _read(file: EntityFile, max_bytes: int) -> tuple[Entity | None, list[Diagnostic]]:
    found = Diagnostics()
    return _read_entity(file, _KIND[file.kind], max_bytes, found), found.items


def _jobs(files: int) -> int:
    """Worker processes: one per core for a large record, none for a small one."""
    return worker_count(files, PARALLEL_FROM)


def _read_chunk(bounds: tuple[int, int]) -> list[tuple[Entity | None, list[Diagnostic]]]:
    files, max_bytes = forked_job()  # the files and the size limit
    return [_read(file, max_bytes) for file in files[bounds[0] : bounds[1]]]


def _read_entity(file: EntityFile, kind: Kind, max_bytes: int, found: Diagnostics) -> Entity | None:
    shown, entity_id = file.shown, file.id
    try:
        parsed = parse(_read_text(file.path, shown, max_bytes), shown)
    except FrontMatterError as exc:
        found.error(exc.pos, exc.code, exc.message, exc.hint)
        return None
    for name, pos in parsed.duplicate_keys:
        found.error(pos, "S006", f"field '{name}' is given twice", "keep one of them")
    if not ID_PATTERN.match(entity_id):
        found.error(
            Pos(shown),
            "S005",
            f"id '{entity_id}' is not lowercase letters, digits and hyphens",
            "rename the file: its stem is the entity's id",
        )
    if "id" in parsed.data or "body" in parsed.data:
        key = "id" if "id" in parsed.data else "body"
        found.error(
            _pos(parsed.places.get((key,)), shown),
            "S002",
            f"unknown field '{key}'",
            "the id is the file's name and the body is the Markdown after the front matter",
        )
        parsed.data.pop(key)
    entity = _validate(kind, entity_id, parsed.data, parsed.body, shown, parsed.places, found)
    if entity is not None:
        entity.place(shown, parsed.places, parsed.body_line, parsed.spans)
    return entity


def _read_text(path: str, shown: str, limit: int) -> str:
    try:
        size = os.stat(path).st_size
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
    with open(path, "rb") as opened:
        data = opened.read()
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
    places: dict[Path_, Place],
    found: Diagnostics,
) -> Entity | None:
    try:
        return kind.model.model_validate({**data, "id": entity_id, "body": body})
    except ValidationError as exc:
        for error in exc.errors():
            _report(error, kind, shown, places, found)
        return None


def _report(
    error: Any, kind: Kind, shown: str, places: dict[Path_, Place], found: Diagnostics
) -> None:
    loc = tuple(error["loc"])
    field = ".".join(str(p) for p in loc)
    pos = _nearest(places, loc, shown)
    if error["type"] == "missing":
        found.error(
            _nearest(places, loc[:-1], shown),
            "S001",
            f"missing field '{field}'",
            f"a {kind.name} needs '{loc[-1]}:' in its front matter",
        )
    elif error["type"] == "extra_forbidden":
        known = kind.model.front_matter_fields() if len(loc) == 1 else {}
        found.error(
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
        found.error(pos, "S003", message)


def _nearest(places: dict[Path_, Place], loc: tuple, shown: str) -> Pos:
    while loc:
        if loc in places:
            return Pos(shown, *places[loc])
        loc = loc[:-1]
    return _pos(places.get(()), shown)


def _pos(place: Place | None, shown: str) -> Pos:
    return Pos(shown) if place is None else Pos(shown, *place)
