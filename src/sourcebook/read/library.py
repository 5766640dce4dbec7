"""Read a record's library/ folder: every item's metadata, checked as it is read."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from sourcebook.diagnostics import Diagnostics, Pos
from sourcebook.files import is_partial, partial_files, write_atomic
from sourcebook.incremental import Store, settled_since
from sourcebook.model.library import SHELF_PATTERN, Item, Library
from sourcebook.read.frontmatter import FrontMatterError, within_budget
from sourcebook.read.paths import Confined, link_out

FOLDER = "library"
MAX_ITEM_BYTES = 1_000_000
"""An item's metadata is a few lines; a file larger than this is not read."""

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_library(root: Path, shown_root: str, diagnostics: Diagnostics) -> Library:
    """The Library of the record at `root`; an empty one where it has no library/ folder."""
    shown = FOLDER if shown_root in ("", ".") else f"{shown_root}/{FOLDER}"
    library = Library(root / FOLDER, shown)
    if not library.folder.is_dir():
        return library
    kept = Store.of(root).folder("library")
    parsed = _ParsedCache(kept / "items-v3.json" if kept else None)
    confined = Confined(root)
    metadata = _metadata_files(library.folder)
    for entry in metadata:
        if not _inside(confined, entry.path, library, diagnostics):
            continue
        item = _read_item(entry, library, parsed, diagnostics)
        if item is not None and not all(
            _inside(confined, path, library, diagnostics) for path in _files_of(item, library)
        ):
            item = None
        if item is not None:
            library.items[item.shelf] = item
            digest = parsed.digest(library.text_file(item.shelf))
            if digest is not None:
                library.texts[item.shelf] = digest
            else:
                diagnostics.error(
                    Pos(library.shown_path(f"{item.shelf}.yaml")),
                    "Q006",
                    f"{item.shelf} has no text file {item.shelf}.txt",
                    "re-add the original, or write the transcription of an image there",
                )
    parsed.save()
    _report_leftovers(library, len(library.items) == len(metadata), diagnostics)
    return library


def _report_leftovers(library: Library, complete: bool, diagnostics: Diagnostics) -> None:
    """Warn of partial files a killed `library add` left, and, where every item was read
    (so that none is unknown), of originals in objects/ that no item holds."""
    for path in partial_files(library.folder):
        diagnostics.warning(
            Pos(library.shown_path(path.relative_to(library.folder).as_posix())),
            "Q010",
            "a partial file left by a killed 'library add'",
            "the next 'sourcebook library add' removes it, or delete it",
        )
    objects = library.folder / "objects"
    if not complete or not objects.is_dir() or objects.is_symlink():
        return
    held = {item.sha256 for item in library}
    for group in sorted(os.scandir(objects), key=lambda e: e.name):
        if not group.is_dir(follow_symlinks=False):
            continue
        for entry in sorted(os.scandir(group.path), key=lambda e: e.name):
            if entry.name not in held and not is_partial(entry.name):
                diagnostics.warning(
                    Pos(library.shown_path(f"objects/{group.name}/{entry.name}")),
                    "Q010",
                    "an original that no library item holds",
                    "delete it, or add it again with sourcebook library add",
                )


def _inside(confined: Confined, path: str, library: Library, diagnostics: Diagnostics) -> bool:
    """Whether a file of the Library stays inside the record once links are followed; an
    item whose files leave it is not read (its text could be anything on the machine)."""
    if confined.holds(path):
        return True
    shown = library.shown_path(os.path.relpath(path, library.folder).replace(os.sep, "/"))
    link_out(diagnostics, shown)
    return False


def _files_of(item: Item, library: Library) -> list[str]:
    return [library.text_file(item.shelf), str(library.object_path(item.sha256))]


def _metadata_files(folder: Path) -> list[os.DirEntry[str]]:
    """The .yaml files of the folder, shelves in number order, other names after them."""
    entries = [e for e in os.scandir(folder) if e.name.endswith(".yaml") and e.is_file()]
    entries.sort(key=_shelf_order)
    return entries


def _shelf_order(entry: os.DirEntry[str]) -> tuple[int, int, str]:
    stem = entry.name[:-5]
    return (0, int(stem[1:]), "") if SHELF_PATTERN.match(stem) else (1, 0, stem)


class _ParsedCache:
    """Parsed metadata files, and the SHA-256 of text files, known by name while their
    size, times and inode are the same: YAML parsing is most of the cost of reading a large
    Library, and the files seldom change between checks. A file changed just before it was
    read is not kept: its stat could stay the same through another write (see
    `incremental.FilesSeen`). Files are known by name alone: all lie in the one library
    folder, which may be reached by other paths from other working folders."""

    def __init__(self, path: Path | None):
        self.path = path
        self.settled_ns = settled_since()
        """Files last changed before this are kept."""
        self.seen: dict[str, Any] = {}
        try:
            self.known: dict[str, Any] = json.loads(path.read_bytes()) if path else {}
        except (OSError, ValueError):
            self.known = {}
        self.changed = not isinstance(self.known, dict)
        if self.changed:
            self.known = {}

    def parse(self, entry: os.DirEntry[str]) -> Any:
        stat = entry.stat()
        signature = [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino]
        known = self._kept(entry.name, signature)
        if known is not None:
            data = known[4]
        else:
            with open(entry.path, "rb") as file:
                text = file.read(MAX_ITEM_BYTES + 1).decode("utf-8")
            if len(text) > MAX_ITEM_BYTES:
                raise ValueError(f"over {MAX_ITEM_BYTES:,} bytes")
            within_budget(text, entry.name, 1)
            data = yaml.load(text, Loader=_Loader)
            self.changed = True
        if max(stat.st_mtime_ns, stat.st_ctime_ns) < self.settled_ns:
            self.seen[entry.name] = [*signature, data]
        return data

    def digest(self, path: str) -> str | None:
        """The SHA-256 of the bytes of the file at `path`; None where it cannot be read."""
        try:
            stat = os.stat(path)
        except OSError:
            return None
        signature = [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino]
        name = os.path.basename(path)
        known = self._kept(name, signature)
        if known is not None and isinstance(known[4], str):
            sha256 = known[4]
        else:
            try:
                with open(path, "rb") as file:
                    sha256 = hashlib.file_digest(file, "sha256").hexdigest()
            except OSError:
                return None
            self.changed = True
        if max(stat.st_mtime_ns, stat.st_ctime_ns) < self.settled_ns:
            self.seen[name] = [*signature, sha256]
        return sha256

    def _kept(self, name: str, signature: list[int]) -> list[Any] | None:
        """What the cache keeps of the file `name` (its stat's four numbers, then what was
        made of it), where its stat is still `signature`; None where it keeps nothing of it,
        or what it keeps is not that."""
        known = self.known.get(name)
        if not isinstance(known, list) or len(known) != 5 or known[:4] != signature:
            return None
        return known

    def save(self) -> None:
        if self.path and (self.changed or len(self.seen) != len(self.known)):
            # A cache that cannot be written only makes the next read slower.
            with contextlib.suppress(OSError, TypeError, ValueError):
                write_atomic(self.path, json.dumps(self.seen, default=str).encode("utf-8"))


def _read_item(
    entry: os.DirEntry[str], library: Library, parsed: _ParsedCache, diagnostics: Diagnostics
) -> Item | None:
    shown = library.shown_path(entry.name)
    shelf = entry.name[:-5]
    if not SHELF_PATTERN.match(shelf):
        diagnostics.error(
            Pos(shown), "Q005", f"'{entry.name}' is not named for a shelf id", "name it S1.yaml, …"
        )
        return None
    try:
        data = parsed.parse(entry)
    except FrontMatterError as exc:
        diagnostics.error(
            Pos(shown, exc.pos.line, exc.pos.col), "Q005", f"library item: {exc.message}"
        )
        return None
    except (OSError, ValueError, yaml.YAMLError) as exc:
        diagnostics.error(Pos(shown), "Q005", f"library item cannot be read: {_first_line(exc)}")
        return None
    if not isinstance(data, dict):
        diagnostics.error(Pos(shown), "Q005", "library item is not a mapping of fields")
        return None
    try:
        item = Item.model_validate({**data, "shelf": shelf})
    except ValidationError as exc:
        lines = _first_lines(Path(entry.path).read_text(encoding="utf-8"))
        for error in exc.errors():
            _report(error, lines, shown, diagnostics)
        return None
    _check_files(item, entry.path[: -len(entry.name)], shown, diagnostics)
    return item


def _check_files(item: Item, folder: str, shown: str, diagnostics: Diagnostics) -> None:
    """The original is there (the text is, where read takes its SHA-256); plain strings, as
    this runs once an item."""
    try:
        size = os.stat(f"{folder}objects/{item.sha256[:2]}/{item.sha256}").st_size
    except OSError:
        diagnostics.error(
            Pos(shown), "Q006", f"the original of {item.shelf} is missing from library/objects"
        )
        return
    if size != item.size:
        diagnostics.error(
            Pos(shown),
            "Q006",
            f"the original of {item.shelf} is {size:,} bytes, not the {item.size:,} recorded",
        )


def _report(error: Any, lines: dict[str, int], shown: str, diagnostics: Diagnostics) -> None:
    key = str(error["loc"][0]) if error["loc"] else ""
    pos = Pos(shown, lines.get(key, 1), 1)
    if error["type"] == "missing":
        diagnostics.error(Pos(shown), "Q005", f"library item lacks '{key}'")
    elif error["type"] == "extra_forbidden":
        diagnostics.error(pos, "Q005", f"unknown library item field '{key}'", "see docs/library.md")
    else:
        diagnostics.error(pos, "Q005", f"'{key}': {error['msg'].rstrip('.').lower()}")


def _first_lines(text: str) -> dict[str, int]:
    """Each top-level key → the first line that sets it, read in one pass."""
    first: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), 1):
        if line[:1].strip() and ":" in line:
            first.setdefault(line[: line.find(":")].rstrip(), number)
    return first


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
