"""Put an original into the Library: its bytes by SHA-256, its text, its metadata.

Adding the same bytes again gives back the item that holds them. Two processes may add
at once: the folder is locked while a shelf is chosen and written, and every file is
written whole to a temporary name first, then renamed into place. The text is taken
out before anything is written, so that an original refused leaves nothing behind; and
partial files that a killed process left in library/ are swept while the lock is held
(no other process can be writing one then).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import yaml

from sourcebook.diagnostics import Diagnostics
from sourcebook.files import partial_files, write_atomic
from sourcebook.incremental import Store
from sourcebook.library.extract import Extracted, extract, guess_kind, media_type_of
from sourcebook.library.refusal import NO_TRANSCRIPTION, Refused
from sourcebook.model.library import Item, ItemKind, Library, shelf_number
from sourcebook.read.library import FOLDER, read_library


@dataclass
class Original:
    """What is to be added: the bytes and what is known of where they came from."""

    data: bytes
    name: str
    media_type: str | None = None
    url: str | None = None
    title: str | None = None
    published: str | None = None
    captured: str = field(default_factory=lambda: date.today().isoformat())
    how: str = "added from a file with sourcebook library add"
    by: str = ""
    holds: str = "the whole of the original"
    kind: ItemKind | None = None
    text: str | None = None
    """The text to hold, where it is not to be extracted: an image's transcription, or
    a capture file's text without its header."""
    warc: bytes | None = None
    refreshes: str | None = None
    """The shelf of the older copy of the same page this one is taken beside."""


def add_original(root: Path, original: Original) -> tuple[Item, bool]:
    """Add an original to the Library of the record at `root`: (item, whether it is new)."""
    folder = root / FOLDER
    sha256 = hashlib.sha256(original.data).hexdigest()
    if folder.is_dir():
        held = read_library(root, FOLDER, Diagnostics()).by_sha256(sha256)
        if held is not None:
            return held, False
    kind = original.kind or guess_kind(original.name, original.media_type, original.data[:1024])
    if kind is ItemKind.IMAGE and original.text is None:
        raise Refused(
            f"{original.name}: an image is quoted from its transcription: "
            "give --transcription FILE, its words written out by hand",
            NO_TRANSCRIPTION,
        )
    extracted = (
        Extracted(original.text)
        if original.text is not None
        else extract(kind, original.data, original.media_type)
    )
    folder.mkdir(parents=True, exist_ok=True)
    with _locked(Store.of(root).folder("library")):
        sweep_partials(folder)
        library = read_library(root, FOLDER, Diagnostics())
        held = library.by_sha256(sha256)
        if held is not None:
            return held, False
        shelf = next_shelf(library)
        item = _item(shelf, sha256, kind, original, extracted)
        write_atomic(library.object_path(sha256), original.data)
        write_atomic(library.text_path(shelf), extracted.text.encode("utf-8"))
        if original.warc is not None:
            write_atomic(folder / f"{shelf}.warc.gz", original.warc)
        write_atomic(library.meta_path(shelf), dump_item(item).encode("utf-8"))
    return item, True


def _item(
    shelf: str, sha256: str, kind: ItemKind, original: Original, extracted: Extracted
) -> Item:
    return Item(
        shelf=shelf,
        kind=kind,
        sha256=sha256,
        file=Path(original.name).name or "original",
        media_type=media_type_of(original.name, kind, original.media_type),
        size=len(original.data),
        url=original.url,
        title=original.title or extracted.title,
        published=original.published or extracted.published,
        captured=original.captured,
        how=original.how,
        by=original.by or _who(),
        holds=original.holds,
        pages=extracted.pages,
        warc=f"{shelf}.warc.gz" if original.warc is not None else None,
        refreshes=original.refreshes,
    )


def read_again(root: Path, item: Item, day: str) -> Item:
    """Note in an item's metadata that its original was read again on `day` (once a day)."""
    if day in item.read_again:
        return item
    again = item.model_copy(update={"read_again": (*item.read_again, day)})
    library = read_library(root, FOLDER, Diagnostics())
    with _locked(Store.of(root).folder("library")):
        write_atomic(library.meta_path(item.shelf), dump_item(again).encode("utf-8"))
    return again


def sweep_partials(folder: Path) -> list[Path]:
    """Remove the partial files a killed `library add` left in `folder`; call it only
    while holding the Library's lock."""
    swept = partial_files(folder)
    for path in swept:
        with contextlib.suppress(OSError):
            path.unlink()
    return swept


def next_shelf(library: Library) -> str:
    """The shelf after the highest in use; a stray file of that name also counts as used."""
    highest = max((shelf_number(s) for s in library.items), default=0)
    while (
        library.meta_path(f"S{highest + 1}").exists()
        or library.text_path(f"S{highest + 1}").exists()
    ):
        highest += 1
    return f"S{highest + 1}"


def dump_item(item: Item) -> str:
    data = item.model_dump(mode="json", exclude_none=True, exclude_defaults=False)
    if not data.get("read_again"):
        data.pop("read_again", None)
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


@contextlib.contextmanager
def _locked(cache: Path | None) -> Iterator[None]:
    """Hold the Library's lock, kept in the record's git-ignored state folder; where there
    is none, or no fcntl, rely on atomic writes alone."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    if cache is None:
        yield
        return
    with open(cache / "library.lock", "a+b") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def _who() -> str:
    for name in ("SOURCEBOOK_CURATOR", "GIT_AUTHOR_NAME", "USER"):
        if os.environ.get(name):
            return os.environ[name]
    return "unknown"
