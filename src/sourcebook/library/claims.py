"""Whether an original's bytes are what its name, its media type or `--kind` says.

The bytes are read by their first bytes' signatures, those of the WHATWG MIME Sniffing
standard: a PDF, an image, another binary format, or else text (no NUL byte among the
first bytes, unless a UTF-16 byte order mark says why). A name ending in `.pdf` on an
HTML page, or a page served as `text/html` that is a PNG image, is refused: its text
would be taken the wrong way. `--kind` speaks over the name and the media type (a
server that calls every file `text/plain`), but not over the bytes.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from sourcebook.library.refusal import NOT_WHAT_IT_CLAIMS, Refused
from sourcebook.model.library import ItemKind

SNIFF_BYTES = 1445
"""How many first bytes are read, as the MIME Sniffing standard reads."""

_IMAGES = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"BM", "a BMP image"),
    (b"\x00\x00\x01\x00", "an icon"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
)
_BINARIES = (
    (b"\x1f\x8b\x08", "gzip data"),
    (b"PK\x03\x04", "a ZIP archive (or an office document)"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\x7fELF", "a program"),
    (b"MZ", "a program"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old office document"),
    (b"OggS\x00", "Ogg media"),
    (b"ID3", "MP3 audio"),
    (b"wOFF", "a font"),
    (b"wOF2", "a font"),
)
_TEXT_SUFFIXES = (".txt", ".text", ".md", ".markdown", ".csv", ".json", ".xml")
_HTML_SUFFIXES = (".html", ".htm", ".xhtml")
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".tif", ".tiff", ".bmp", ".svg")
_NAMES = {
    ItemKind.PDF: "a PDF",
    ItemKind.IMAGE: "an image",
    ItemKind.HTML: "an HTML page",
    ItemKind.TEXT: "text",
}


def what_bytes_are(data: bytes, svg_allowed: bool = False) -> tuple[ItemKind | None, str]:
    """The kind the bytes are (None for a binary of no kind the Library holds) and words
    for a person."""
    head = data[:SNIFF_BYTES]
    if b"%PDF-" in head[:1024]:
        return ItemKind.PDF, "a PDF"
    for signature, words in _IMAGES:
        if head.startswith(signature):
            return ItemKind.IMAGE, words
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return ItemKind.IMAGE, "a WebP image"
    if head[4:12] in (b"ftypavif", b"ftypheic", b"ftypmif1"):
        return ItemKind.IMAGE, "an AVIF or HEIC image"
    for signature, words in _BINARIES:
        if head.startswith(signature):
            return None, words
    if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None, "binary data"
    if svg_allowed and b"<svg" in head.lower():
        return ItemKind.IMAGE, "an SVG image"
    return ItemKind.TEXT, "HTML or text"


def claimed_by_name(name: str) -> ItemKind | None:
    suffix = PurePosixPath(name.lower()).suffix
    if suffix == ".pdf":
        return ItemKind.PDF
    if suffix in _IMAGE_SUFFIXES:
        return ItemKind.IMAGE
    if suffix in _HTML_SUFFIXES:
        return ItemKind.HTML
    if suffix in _TEXT_SUFFIXES:
        return ItemKind.TEXT
    return None


def claimed_by_type(media_type: str | None) -> ItemKind | None:
    bare = (media_type or "").split(";")[0].strip().lower()
    if bare == "application/pdf":
        return ItemKind.PDF
    if bare.startswith("image/"):
        return ItemKind.IMAGE
    if bare in ("text/html", "application/xhtml+xml"):
        return ItemKind.HTML
    if bare.startswith("text/"):
        return ItemKind.TEXT
    return None


def check_claims(
    data: bytes, name: str, media_type: str | None, given: ItemKind | None, shown: str
) -> None:
    """Refuse bytes that are not what `--kind` (if given), else the name and media type,
    say they are; `shown` names the original in the message."""
    claims = (
        [("--kind", given)]
        if given is not None
        else [("its name", claimed_by_name(name)), ("its media type", claimed_by_type(media_type))]
    )
    svg = any(kind is ItemKind.IMAGE for _, kind in claims) and (
        name.lower().endswith(".svg") or "svg" in (media_type or "").lower() or given is not None
    )
    actual, words = what_bytes_are(data, svg_allowed=svg)
    for who, kind in claims:
        if kind is None or _fits(kind, actual):
            continue
        raise Refused(
            f"{shown}: {who} says {_NAMES[kind]}, but its bytes are {words}; "
            "it was not added (give --kind for what it is, if the name is wrong)",
            NOT_WHAT_IT_CLAIMS,
        )
    if given is None and actual is None:
        raise Refused(
            f"{shown}: its bytes are {words}, not a PDF, an image, HTML or text", NOT_WHAT_IT_CLAIMS
        )


def _fits(claimed: ItemKind, actual: ItemKind | None) -> bool:
    if claimed in (ItemKind.HTML, ItemKind.TEXT):
        return actual is ItemKind.TEXT
    return claimed is actual
