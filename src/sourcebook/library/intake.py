"""Take a file or a URL into a record's Library, and name it in a source: `library add`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sourcebook.library.attach import AttachError, attach, source_file
from sourcebook.library.capture import CaptureError, fetch, read_capture_file
from sourcebook.library.extract import ExtractError, decode
from sourcebook.library.store import Original, add_original
from sourcebook.model.library import Item, ItemKind


class IntakeError(Exception):
    """An original that could not be taken in; the message is one line for a person."""


@dataclass
class Details:
    """What the person adding an original says about it; None leaves the default."""

    kind: ItemKind | None = None
    url: str | None = None
    captured: str | None = None
    how: str | None = None
    by: str | None = None
    holds: str | None = None
    transcription: Path | None = None
    capture_file: bool = False
    """The file starts with a capture header (url:, date:, …) that is not the source's text."""


@dataclass(frozen=True)
class Intake:
    item: Item
    new: bool
    attached: bool


def take_in(root: Path, target: str, details: Details, source: str | None = None) -> Intake:
    """Add the file or URL `target` to the Library at `root`; name it in `source` if given."""
    source_path = None
    if source is not None:
        source_path = source_file(root, source)
        if source_path is None:
            raise IntakeError(f"no source '{source}' in {root.as_posix()}/sources")
    try:
        original = _original(target, details)
        item, new = add_original(root, original)
        attached = attach(source_path, item.shelf) if source_path is not None else False
    except (CaptureError, ExtractError, AttachError, OSError) as exc:
        raise IntakeError(str(exc)) from None
    return Intake(item, new, attached)


def _original(target: str, details: Details) -> Original:
    if target.startswith(("http://", "https://")):
        original = fetch(target)
    else:
        path = Path(target)
        if not path.is_file():
            raise IntakeError(f"{target}: no such file")
        original = Original(data=path.read_bytes(), name=path.name)
    if details.capture_file:
        _from_capture_file(original)
    if details.transcription is not None:
        original.text = decode(details.transcription.read_bytes())
        original.kind = details.kind or ItemKind.IMAGE
    for name in ("kind", "url", "captured", "how", "by", "holds"):
        value = getattr(details, name)
        if value is not None:
            setattr(original, name, value)
    return original


def _from_capture_file(original: Original) -> None:
    capture = read_capture_file(original.data)
    original.kind = ItemKind.TEXT
    original.media_type = "text/plain"
    original.text = capture.text
    original.url = capture.url
    original.title = capture.title
    original.published = capture.published
    original.how = "text taken from a capture file"
