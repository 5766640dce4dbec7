"""The record's data releases as its files hold them: `releases/<version>/release.json`.

Which folder names are release versions, how they sort, and each release's manifest read
and checked, for check and for the site alike: a manifest is part of the record, so every
value the site takes from it is checked here (its types, its sizes, each path a plain
path inside its release that a file system can hold), and a manifest that fails is a
problem at its file and line, never an error in a page.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from datetime import date
from json.decoder import JSONObject  # type: ignore[attr-defined]
from json.scanner import py_make_scanner  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from sourcebook.model.addresses import has_controls
from sourcebook.model.base import MAX_INTEGER, MAX_NAME_LENGTH
from sourcebook.read.paths import Confined

DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
SEMVER_LIKE = re.compile(r"v?\d+(\.\d+){0,3}([-+][0-9A-Za-z]+(\.[0-9A-Za-z]+)*)?")
MANIFEST = "release.json"
"""The file that makes a folder of releases/ a release."""
CHANGELOG = "CHANGELOG.md"
BIBTEX = "release.bib"
ENTITIES_TABLE = "entities"
MAX_BYTES = 50_000_000
"""The largest file of a release that is read (its manifest, changelog, citation)."""
MAX_PATH_BYTES = 1000
"""The longest path of a release's file, in UTF-8: each of its names also has at most
MAX_NAME_LENGTH bytes, so the site can write it wherever it is built."""


class ReleaseError(Exception):
    """A release that cannot be made; the message is for a person."""


def check_version(version: str) -> str:
    """`version` if it names a release: a day (2026-11-08) or a version such as 1.2.0 or v2."""
    if DAY.fullmatch(version):
        try:
            date.fromisoformat(version)
        except ValueError:
            raise ReleaseError(f"'{version}' is not a real day") from None
        return version
    if len(version) <= 64 and SEMVER_LIKE.fullmatch(version):
        return version
    raise ReleaseError(
        f"'{version}' is not a release version: write a day (2026-11-08) "
        "or a version number (1.2.0, v2, 1.0.0-rc.1)"
    )


def version_key(version: str) -> tuple:
    """Natural order, numbers compared as numbers (1.10.0 after 1.9.0), and a pre-release
    before its release as in semantic versioning (1.0.0-rc.1 before 1.0.0); build metadata
    after '+' does not count. A day sorts as its digits."""
    if DAY.fullmatch(version):
        return (_natural(version), 1, ())
    main, _, _build = version.partition("+")
    core, dash, pre = main.partition("-")
    return (_natural(core), 0 if dash else 1, _natural(pre))


def _natural(text: str) -> tuple[tuple[int, int | str], ...]:
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", text) if part
    )


def is_release(folder: Path) -> bool:
    try:
        check_version(folder.name)
    except ReleaseError:
        return False
    return (folder / MANIFEST).is_file()


def release_folders(root: Path, confined: Confined | None = None) -> list[Path]:
    """The folders of the record at `root` that are releases, in name order; a symbolic
    link out of the record is none (R010 says so)."""
    folder = root / "releases"
    if not folder.is_dir():
        return []
    confined = confined or Confined(root)
    return [
        f for f in sorted(folder.iterdir()) if confined.holds(f) and f.is_dir() and is_release(f)
    ]


def path_problem(path: str) -> str | None:
    """Why `path` cannot name a file of a release; None where it can: a plain relative path
    (no '', '.' or '..' segment, no backslash, no control character) that a file system
    holds."""
    if not path or path.startswith("/") or "\\" in path:
        return "is not a relative path"
    parts = path.split("/")
    if any(part in ("", ".", "..") or has_controls(part) for part in parts):
        return "is not a plain path inside the release"
    if len(path.encode("utf-8")) > MAX_PATH_BYTES:
        return f"is longer than the {MAX_PATH_BYTES:,} bytes a release's path may have"
    if any(len(part.encode("utf-8")) > MAX_NAME_LENGTH for part in parts):
        return f"has a name longer than the {MAX_NAME_LENGTH} bytes a file's may have"
    return None


class _Strict(BaseModel):
    # Other keys are left for other readers; those read are of their own type exactly.
    model_config = ConfigDict(extra="ignore", strict=True)


class _Path(_Strict):
    @field_validator("path", "csv", "json_path", check_fields=False)
    @classmethod
    def _plain(cls, value: str) -> str:
        problem = path_problem(value)
        if problem:
            raise ValueError(f"'{_short(value)}' {problem}")
        return value


class ReleasedFile(_Path):
    path: str
    bytes: int = Field(ge=0, le=MAX_INTEGER)
    sha256: str


class ReleasedTable(_Path):
    name: str
    rows: int = Field(default=0, ge=0, le=MAX_INTEGER)
    csv: str
    json_path: str = Field(alias="json")


class Manifest(_Strict):
    """What a release's `release.json` says that anything reads."""

    version: str | None = None
    date: str = ""
    title: str | None = None
    licence: str = ""
    previous: str | None = None
    tables: list[ReleasedTable]
    files: list[ReleasedFile]

    @field_validator("date")
    @classmethod
    def _day(cls, value: str) -> str:
        if value and not (DAY.fullmatch(value) and _real_day(value)):
            raise ValueError(f"'{_short(value)}' is not a day, YYYY-MM-DD")
        return value


def _real_day(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


class ManifestError(Exception):
    """A release file that cannot be read as it must be; where, and why, for a person."""

    def __init__(self, file: Path, message: str, line: int = 1, col: int = 1):
        super().__init__(message)
        self.file, self.message, self.line, self.col = file, message, line, col

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: {self.message}"


@dataclass(frozen=True)
class ReleaseFiles:
    """What the site reads of a release: its manifest, the entities it holds, and its
    changelog and BibTeX as text."""

    manifest: Manifest
    holds: frozenset[tuple[str, str]]
    changelog: str
    bibtex: str


def read_release_files(folder: Path, confined: Confined) -> ReleaseFiles:
    """Everything the site reads of the release in `folder`. Raises ManifestError."""
    manifest = read_manifest(folder, confined)
    return ReleaseFiles(
        manifest,
        held(folder, manifest, confined),
        read_text(folder / CHANGELOG, confined),
        read_text(folder / BIBTEX, confined),
    )


def read_manifest(folder: Path, confined: Confined) -> Manifest:
    """The manifest of the release in `folder`, every path it names inside the folder.
    Raises ManifestError at the value that fails."""
    path = folder / MANIFEST
    text = read_text(path, confined, required=True)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ManifestError(path, f"not JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except ValueError as exc:  # an integer past Python's 4,300 digits
        raise ManifestError(path, f"cannot be read: {exc}") from None
    try:
        manifest = Manifest.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"]) or "the manifest"
        said = error["msg"].removeprefix("Value error, ")
        message = f"'{where}': {said[:1].lower()}{said[1:]}"
        given = error.get("input")
        if error["type"] != "value_error" and isinstance(given, (int, float, str)):
            message += f", not {_short(repr(given))}"
        raise ManifestError(path, message, *_place(text, tuple(error["loc"]))) from None
    if manifest.version is not None and manifest.version != folder.name:
        raise ManifestError(
            path,
            f"names version '{_short(manifest.version)}', but its folder is '{folder.name}'",
            *_place(text, ("version",)),
        )
    named_paths = [f.path for f in manifest.files]
    named_paths += [p for t in manifest.tables for p in (t.csv, t.json_path)]
    for named in named_paths:
        if os.path.lexists(folder / named) and not confined.holds(folder / named):
            raise ManifestError(path, f"'{named}' is a symbolic link that leads outside the record")
    return manifest


def held(folder: Path, manifest: Manifest, confined: Confined) -> frozenset[tuple[str, str]]:
    """(kind, id) of every entity the release holds, from its entities table."""
    listing = next((t for t in manifest.tables if t.name == ENTITIES_TABLE), None)
    if listing is None:
        return frozenset()
    path = folder / listing.json_path
    try:
        rows = json.loads(read_text(path, confined, required=True))
        found = frozenset((row["kind"], row["id"]) for row in rows)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ManifestError(path, f"cannot be read: {exc}") from None
    if not all(isinstance(kind, str) and isinstance(id_, str) for kind, id_ in found):
        raise ManifestError(path, "an entity's kind and id are text")
    return found


def read_text(path: Path, confined: Confined, required: bool = False) -> str:
    """A file of a release as text; '' where it is missing, unless `required`. A link out of
    the record, or a file over MAX_BYTES, is never read."""
    if not confined.holds(path):
        raise ManifestError(path, "symbolic link leads outside the record")
    try:
        with open(path, "rb") as opened:
            data = opened.read(MAX_BYTES + 1)
    except OSError as exc:
        if required:
            raise ManifestError(path, f"cannot be read: {exc.strerror or exc}") from None
        return ""
    if len(data) > MAX_BYTES:
        raise ManifestError(path, f"is over {MAX_BYTES:,} bytes")
    return data.decode("utf-8", errors="replace")


def _short(text: str) -> str:
    return text if len(text) <= 80 else text[:79] + "…"


def _place(text: str, loc: tuple[str | int, ...]) -> tuple[int, int]:
    """(line, col) of the value at `loc` in the JSON `text`: of its key, or of the object
    it is; read again, slowly, only for a manifest that fails."""
    spans: dict[int, tuple[int, int]] = {}
    try:
        value = _Located(spans).decode(text)
    except ValueError:
        return 1, 1
    span = spans.get(id(value), (0, len(text)))
    offset = span[0]
    for part in loc:
        try:
            inner = value[part]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(part, str):
            offset = _key(text, spans, span, part, offset)
        if id(inner) in spans:
            span = spans[id(inner)]
            offset = span[0]
        value = inner
    line = text.count("\n", 0, offset) + 1
    return line, offset - text.rfind("\n", 0, offset)


def _key(
    text: str, spans: dict[int, tuple[int, int]], span: tuple[int, int], key: str, default: int
) -> int:
    """Where `key` is written among the keys of the object at `span` (not of one within)."""
    start, end = span
    within = [s for s in spans.values() if start < s[0] and s[1] <= end]
    for found in re.finditer(re.escape(json.dumps(key)) + r"\s*:", text[start:end]):
        at = start + found.start()
        if not any(s[0] <= at < s[1] for s in within):
            return at
    return default


class _Located(json.JSONDecoder):
    """A JSON decoder that notes where each object stands (by the object's id)."""

    def __init__(self, spans: dict[int, tuple[int, int]]):
        super().__init__()

        def parse_object(s_and_end: tuple[str, int], *args: Any) -> tuple[Any, int]:
            found, end = JSONObject(s_and_end, *args)
            spans[id(found)] = (s_and_end[1] - 1, end)
            return found, end

        self.parse_object = parse_object
        self.scan_once = py_make_scanner(self)
