"""Read entity files into typed entities: one at a time, or spread over forked workers.

Reading a file depends on nothing but the file, so a large record's files are shared
out in chunks to one process per core; each file's entity and diagnostics come back in
the order the files were given, exactly as reading them one by one would give them.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Container, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

from pydantic import ValidationError

from sourcebook.diagnostics import Diagnostic, Diagnostics, Pos, did_you_mean
from sourcebook.incremental import PARSED, FileDigests, FilesSeen, Memo, key_of, stat_of
from sourcebook.model.base import Entity, Place, id_problem
from sourcebook.model.kinds import KINDS, Kind
from sourcebook.read.frontmatter import FrontMatterError, Parsed, Path_, parse
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
    read_as: bytes | None = None
    """The hash of what the entity was read from (the file's text and path): the same gives
    the same entity, for the stages that keep what they made of it (`incremental.Memo`)."""


@contextmanager
def reading(
    files: Sequence[EntityFile],
    max_bytes: int,
    kept: Memo | None = None,
    seen: FilesSeen | None = None,
    plain: Container[str] = (),
    digests: FileDigests | None = None,
) -> Iterator[Iterator[FileRead]]:
    """Each file read, in the order given. Workers, where there are any, start at once and
    read while the block runs; in this process, each file is read as the block asks for it.

    `kept`: front matter parsed before, by the file's text (see `incremental.Memo`). A record
    with some kept is read in this process, where parsing what changed is all there is to
    do; workers parse a record with none, and this process keeps what they parsed.
    `seen`: the last read of each file, given again where the file is unchanged (see
    `incremental.FilesSeen`; the read has begun, and is committed by the caller); without a
    stat where the watcher named no change to it and its kind is in `plain` (a folder
    reached through no symbolic link).
    `digests`: each file's hash by its stat (see `incremental.FileDigests`): a file whose
    hash is kept, and whose front matter is kept under it, is not read at all."""
    kept = kept if kept is not None else Memo(PARSED)
    digests = digests if digests is not None else FileDigests()
    jobs = _jobs(len(files)) if not len(kept) else 1
    if jobs <= 1:
        yield (
            _read_again(file, max_bytes, kept, seen, file.kind in plain, digests) for file in files
        )
    else:
        bounds = [(i, min(i + CHUNK, len(files))) for i in range(0, len(files), CHUNK)]
        with Forked(jobs, (files, max_bytes)) as pool:
            yield _kept_as_read(pool.imap(_read_chunk, bounds), kept, max_bytes, seen, digests)


Chunk = tuple[list[FileRead], list[tuple[bytes, Any]], dict[str, Any]]
"""A worker's share read: each file's read, the front matter it parsed and the hashes it
noted, to be kept."""


def _kept_as_read(
    chunks: Iterator[Chunk],
    kept: Memo,
    max_bytes: int,
    seen: FilesSeen | None,
    digests: FileDigests,
) -> Iterator[FileRead]:
    """The workers' reads in order, keeping the front matter each chunk parsed and the
    hashes it noted."""
    for reads, made, noted in chunks:
        for each in made:
            kept.record(*each)
        digests.adopt(noted)
        for read in reads:
            if seen is not None:  # its stat taken after the read: trusted only if older
                path = read.file.path
                seen.record((read.file, max_bytes), stat_of(path), read, path)
            yield read


def _read_again(
    file: EntityFile,
    max_bytes: int,
    kept: Memo,
    seen: FilesSeen | None,
    plain: bool,
    digests: FileDigests,
) -> FileRead:
    """The file's last read where it is unchanged (its parsed front matter kept for the
    next run), else the file read."""
    if seen is None:
        return _read(file, max_bytes, kept, digests)
    key = (file, max_bytes)
    stat = None
    again: FileRead | None = seen.unnamed(key, file.path) if plain else None
    if again is None:
        stat = stat_of(file.path)
        again = seen.lookup(key, stat)
    if again is not None:
        if again.read_as is not None:
            kept.carry(again.read_as)
        return again
    read = _read(file, max_bytes, kept, digests)
    seen.record(key, stat, read, file.path)
    return read


def _read(file: EntityFile, max_bytes: int, kept: Memo, digests: FileDigests) -> FileRead:
    found = Diagnostics()
    entity, read_as = _read_entity(file, _KIND[file.kind], max_bytes, found, kept, digests)
    return FileRead(file, entity, found.items, read_as)


def _jobs(files: int) -> int:
    """Worker processes: one per core for a large record, none for a small one."""
    return worker_count(files, PARALLEL_FROM)


def _read_chunk(bounds: tuple[int, int]) -> Chunk:
    """A worker's share: each file read, with the front matter it parsed and the hashes it
    noted, to be kept."""
    files, max_bytes = forked_job()  # the files and the size limit
    kept, digests = Memo(PARSED, recording=True), FileDigests()
    reads = [_read(file, max_bytes, kept, digests) for file in files[bounds[0] : bounds[1]]]
    return reads, kept.recorded or [], digests.noted()


def _read_entity(
    file: EntityFile,
    kind: Kind,
    max_bytes: int,
    found: Diagnostics,
    kept: Memo,
    digests: FileDigests,
) -> tuple[Entity | None, bytes | None]:
    """The file's entity (None where it cannot be read), and the hash it was read as."""
    shown, entity_id = file.shown, file.id
    try:
        parsed, read_as = _parsed(file.path, shown, max_bytes, kept, digests)
    except FrontMatterError as exc:
        found.error(exc.pos, exc.code, exc.message, exc.hint)
        return None, None
    for name, pos in parsed.duplicate_keys:
        found.error(pos, "S006", f"field '{name}' is given twice", "keep one of them")
    problem = id_problem(entity_id)
    if problem:
        found.error(
            Pos(shown),
            "S005",
            f"id '{entity_id}' {problem}",
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
    data = {k: v for k, v in parsed.data.items() if k not in ("id", "body")}  # kept as parsed
    entity = _validate(kind, entity_id, data, parsed, found)
    if entity is not None:
        entity.place(shown, parsed.places, parsed.body_line, parsed.spans)
    return entity, read_as


def _parsed(
    path: str, shown: str, max_bytes: int, kept: Memo, digests: FileDigests
) -> tuple[Parsed, bytes]:
    """The file's front matter, parsed or kept from before, and the key it is kept by (of
    the file's shown path and its content's hash). A file whose hash `digests` keeps, with
    its front matter kept under it, is not read. What cannot be parsed is not kept: it
    raises each time."""
    before = time.time_ns()
    found = _stat(path, shown, max_bytes)
    digest = digests.known(path, found)
    key = key_of(PARSED, shown, digest) if digest is not None else None
    plain = kept.lookup(key) if key is not None else None
    if plain is None:
        data = _read_bytes(path, shown)
        digest = hashlib.sha256(data).digest()
        digests.note(path, found, digest, before)
        text = _text(data, shown)
        key = key_of(PARSED, shown, digest)
        plain = kept.lookup(key)
        if plain is None:
            parsed = parse(text, shown)
            kept.record(key, _plain(parsed))
            return parsed, key
    assert key is not None
    data, body, body_line, places, spans, duplicates, keys = plain
    parsed = Parsed(shown, data, body, body_line, dict(places), dict(spans))
    parsed.duplicate_keys = [(name, Pos(shown, *at)) for name, *at in duplicates]
    parsed.keys = dict(keys)
    return parsed, key


def _plain(parsed: Parsed) -> tuple[Any, ...]:
    """What is kept of front matter parsed: plain values."""
    duplicates = tuple((name, pos.line, pos.col) for name, pos in parsed.duplicate_keys)
    return (
        parsed.data,
        parsed.body,
        parsed.body_line,
        tuple(parsed.places.items()),
        tuple(parsed.spans.items()),
        duplicates,
        tuple(parsed.keys.items()),
    )


def _stat(path: str, shown: str, limit: int) -> os.stat_result:
    """The file's stat, where it is one an entity may be read from."""
    try:
        found = os.stat(path)
    except OSError as exc:
        raise FrontMatterError(Pos(shown), "R009", f"cannot be read: {exc.strerror}") from None
    if found.st_size > limit:
        raise FrontMatterError(
            Pos(shown),
            "R005",
            f"file is {found.st_size:,} bytes, over the limit of {limit:,}",
            "split it, or raise [limits] max_file_bytes in sourcebook.toml",
        )
    if found.st_size == 0:
        raise FrontMatterError(Pos(shown), "R003", "empty file", "an entity needs front matter")
    return found


def _read_bytes(path: str, shown: str) -> bytes:
    try:
        with open(path, "rb") as opened:
            return opened.read()
    except OSError as exc:
        raise FrontMatterError(Pos(shown), "R009", f"cannot be read: {exc.strerror}") from None


def _text(data: bytes, shown: str) -> str:
    """The file's bytes as text: UTF-8, without a byte-order mark, its lines ended by LF."""
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
    kind: Kind, entity_id: str, data: dict[str, Any], parsed: Parsed, found: Diagnostics
) -> Entity | None:
    try:
        return kind.model.model_validate({**data, "id": entity_id, "body": parsed.body})
    except ValidationError as exc:
        for error in exc.errors():
            _report(error, kind, parsed.file, parsed.places, found, parsed.keys)
        return None


def _report(
    error: Any,
    kind: Kind,
    shown: str,
    places: dict[Path_, Place],
    found: Diagnostics,
    keys: dict[Path_, Place],
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
        at_key = keys.get(loc)  # the field's name, not its value, is what is wrong
        found.error(
            Pos(shown, *at_key) if at_key else pos,
            "S002",
            f"unknown field '{field}' for a {kind.name}",
            did_you_mean(str(loc[-1]), known) or "see docs/record-format.md for the fields",
        )
    else:
        given = error.get("input")
        shown_input = repr(given) if isinstance(given, (str, int, float, bool)) else None
        said = error["msg"].removeprefix("Value error, ").rstrip(".")
        message = f"'{field}': {said[:1].lower()}{said[1:]}"
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
