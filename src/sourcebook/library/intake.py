"""Take a file or a URL into a record's Library, and name it in a source: `library add`.

Everything said on the command line is checked before anything is fetched or written:
the record is a record, the source exists, the days and addresses are well formed. An
original refused for any reason leaves nothing behind in the record.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from sourcebook.library.attach import attach, source_file
from sourcebook.library.capture import fetch_original, read_capture_file
from sourcebook.library.claims import check_claims
from sourcebook.library.extract import decode
from sourcebook.library.fetch import Budget
from sourcebook.library.refusal import BAD_OPTION, NO_SUCH_RECORD_OR_SOURCE, Refused
from sourcebook.library.store import Original, add_original
from sourcebook.model.addresses import address_problem, scheme
from sourcebook.model.library import Item, ItemKind

if TYPE_CHECKING:
    from sourcebook.library.metadata import PageMetadata

MAX_TRANSCRIPTION_BYTES = 16 * 1024 * 1024
MAX_FILE_BYTES = 1024 * 1024 * 1024
"""A local file larger than this is not read whole into memory."""


class IntakeError(Refused):
    """An original that could not be taken in; the message is one line for a person."""

    code = NO_SUCH_RECORD_OR_SOURCE


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
    budget: Budget = field(default_factory=Budget)
    """What fetching a URL may cost in bytes and time."""


@dataclass(frozen=True)
class Intake:
    item: Item
    new: bool
    attached: bool
    source: Path | None = None
    """The file of the source the original was named in."""
    page: PageMetadata | None = None
    """What a web page fetched for a source says of itself: its title, authors, dates,
    which `interchange.page.offer` fills into the source."""


def take_in(root: Path, target: str, details: Details, source: str | None = None) -> Intake:
    """Add the file or URL `target` to the Library at `root`; name it in `source` if given."""
    check_details(root, details)
    source_path = None
    if source is not None:
        source_path = source_file(root, source)
        if source_path is None:
            raise IntakeError(f"no source '{source}' in {root.as_posix()}/sources")
    original = _original(target, details)
    page = _page_metadata(original) if source_path is not None else None
    if page is not None and page.published and original.published is None:
        original.published = page.published
    try:
        item, new = add_original(root, original)
        attached = attach(source_path, item.shelf) if source_path is not None else False
    except OSError as exc:
        raise IntakeError(f"{target}: {exc.strerror or exc}") from None
    return Intake(item, new, attached, source_path, page)


def check_details(root: Path, details: Details) -> None:
    """Refuse, before anything is fetched, what the command line gets wrong."""
    if not (root / "sourcebook.toml").is_file():
        raise IntakeError(
            f"{root.as_posix()}: not a record (no sourcebook.toml); give --record DIR"
        )
    if details.captured is not None:
        try:
            date.fromisoformat(details.captured)
            if len(details.captured) != 10:
                raise ValueError
        except ValueError:
            raise Refused(
                f"--captured '{details.captured}' is not a day written YYYY-MM-DD", BAD_OPTION
            ) from None
    if details.url is not None:
        problem = address_problem(details.url)
        if problem is None and scheme(details.url) not in ("http", "https"):
            problem = "is not an http or https address"
        if problem:
            raise Refused(f"--url '{details.url}' {problem}", BAD_OPTION)
    budget = details.budget
    if not (math.isfinite(budget.seconds) and 0 < budget.seconds <= 3600):
        raise Refused("--timeout must be a number of seconds above 0, at most 3600", BAD_OPTION)
    if not 0 < budget.max_bytes <= MAX_FILE_BYTES:
        raise Refused(f"--max-bytes must be above 0, at most {MAX_FILE_BYTES:,}", BAD_OPTION)
    if details.kind is ItemKind.IMAGE and details.transcription is None:
        raise Refused(
            "--kind image needs --transcription FILE: an image is quoted from its words "
            "written out by hand",
            "Q106",
        )


def _original(target: str, details: Details) -> Original:
    if target.startswith(("http://", "https://")):
        original = fetch_original(target, details.budget)
    else:
        original = Original(data=_read_file(Path(target), MAX_FILE_BYTES), name=Path(target).name)
    given = details.kind or (ItemKind.IMAGE if details.transcription is not None else None)
    if details.capture_file:
        given = ItemKind.TEXT
    check_claims(original.data, original.name, original.media_type, given, target)
    if details.capture_file:
        _from_capture_file(original)
    if details.transcription is not None:
        original.text = decode(_read_file(details.transcription, MAX_TRANSCRIPTION_BYTES))
        original.kind = given
    for name in ("kind", "url", "captured", "how", "by", "holds"):
        value = getattr(details, name)
        if value is not None:
            setattr(original, name, value)
    return original


def _read_file(path: Path, limit: int) -> bytes:
    shown = path.as_posix()
    if not path.is_file():
        raise Refused(f"{shown}: no such file", BAD_OPTION)
    try:
        size = path.stat().st_size
        if size > limit:
            raise Refused(f"{shown}: {size:,} bytes, more than the {limit:,} read", "Q101")
        return path.read_bytes()
    except OSError as exc:
        raise Refused(f"{shown}: {exc.strerror or exc}", BAD_OPTION) from None


def _page_metadata(original: Original) -> PageMetadata | None:
    """What an HTML page fetched from the web says of itself; None for anything else."""
    if original.warc is None or original.text is not None:
        return None
    from sourcebook.library.claims import claimed_by_type, what_bytes_are
    from sourcebook.library.markup import MAX_HTML_CHARS, bounded
    from sourcebook.library.metadata import page_metadata

    kind = original.kind or claimed_by_type(original.media_type)
    if kind not in (ItemKind.HTML, None) or what_bytes_are(original.data)[0] is not ItemKind.TEXT:
        return None
    if len(original.data) > MAX_HTML_CHARS:
        return None
    try:
        return page_metadata(original.data, original.url, original.media_type, prepare=bounded)
    except Exception:  # noqa: BLE001 - metadata is an offer: a page that confuses the reader gives none
        return None


def _from_capture_file(original: Original) -> None:
    capture = read_capture_file(original.data)
    original.kind = ItemKind.TEXT
    original.media_type = "text/plain"
    original.text = capture.text
    original.url = capture.url
    original.title = capture.title
    original.published = capture.published
    original.how = "text taken from a capture file"
