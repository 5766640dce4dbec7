"""Take the text out of an original: HTML's main text, a PDF's pages, plain text.

An image has no text to take: its transcription is written by hand. An original is
untrusted: its bytes must be what its name, media type or `--kind` says (`claims`),
an HTML page is parsed only up to a bounded nesting depth (`markup`), and anything a
PDF library raises is a one-line refusal, never a traceback.
"""

from __future__ import annotations

import io
import logging
import mimetypes
from dataclasses import dataclass

from sourcebook.library.charset import decode_page, http_charset
from sourcebook.library.markup import MAX_HTML_CHARS, bounded
from sourcebook.library.refusal import UNREADABLE, Refused
from sourcebook.model.library import ItemKind

_QUIET = logging.NullHandler()
PAGE_BREAK = "\f"
"""Separates a PDF's pages in an item's text, so that a quote's page can be told."""

_BOILERPLATE = "script, style, noscript, template, svg, nav, header, footer, aside, form, iframe"
_BLOCKS = frozenset(
    ("address", "article", "blockquote", "br", "caption", "dd", "div", "dl", "dt")
    + ("figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "li", "main")
    + ("ol", "p", "pre", "section", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul")
)
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".tif", ".tiff", ".svg")


class ExtractError(Refused):
    """An original whose text cannot be taken out; the message is one line for a person."""

    code = UNREADABLE


@dataclass(frozen=True)
class Extracted:
    text: str
    title: str | None = None
    pages: int | None = None
    published: str | None = None


def guess_kind(name: str, media_type: str | None, head: bytes) -> ItemKind:
    """The kind of an original, from its media type, its first bytes and its name."""
    media_type = (media_type or "").split(";")[0].strip().lower()
    lowered = name.lower()
    if head.startswith(b"%PDF") or media_type == "application/pdf" or lowered.endswith(".pdf"):
        return ItemKind.PDF
    if media_type.startswith("image/") or lowered.endswith(_IMAGE_SUFFIXES):
        return ItemKind.IMAGE
    sniff = head[:512].lstrip().lower()
    html_head = sniff.startswith((b"<!doctype html", b"<html")) or b"<body" in sniff
    if "html" in media_type or lowered.endswith((".html", ".htm")) or html_head:
        return ItemKind.HTML
    return ItemKind.TEXT


def media_type_of(name: str, kind: ItemKind, given: str | None) -> str:
    if given:
        return given.split(";")[0].strip().lower()
    guessed = mimetypes.guess_type(name)[0]
    defaults = {
        ItemKind.HTML: "text/html",
        ItemKind.PDF: "application/pdf",
        ItemKind.TEXT: "text/plain",
        ItemKind.IMAGE: "application/octet-stream",
    }
    return guessed or defaults[kind]


def extract(kind: ItemKind, data: bytes, content_type: str | None = None) -> Extracted:
    """The text of an original; `content_type` is the media type it was served with,
    whose charset comes first in decoding it."""
    if kind is ItemKind.HTML:
        return html_text(data, content_type)
    if kind is ItemKind.PDF:
        return pdf_text(data)
    if kind is ItemKind.TEXT:
        if http_charset(content_type):
            text = decode_page(data, content_type).text
            return Extracted(text.replace("\r\n", "\n").replace("\r", "\n"))
        return Extracted(decode(data))
    return Extracted("")


def decode(data: bytes) -> str:
    """Text from bytes: UTF-8 (with or without a BOM), else Windows-1252 as browsers do."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("cp1252", errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def html_text(data: bytes, content_type: str | None = None) -> Extracted:
    """The main text of a page: its article or main element where it has one, else its body,
    without scripts, navigation, headers, footers and forms; one line per block.

    The page is decoded as a browser would (HTTP charset, <meta charset>, detection),
    and its nesting flattened past a bounded depth before it is parsed."""
    from selectolax.lexbor import LexborHTMLParser

    html = decode_page(data, content_type).text
    if len(html) > MAX_HTML_CHARS:
        raise ExtractError(
            f"the page holds {len(html):,} characters, more than the {MAX_HTML_CHARS:,} "
            "that are parsed"
        )
    tree = LexborHTMLParser(bounded(html))
    title_node = tree.css_first("title")
    title = " ".join(title_node.text().split()) if title_node else None
    for node in tree.css(_BOILERPLATE):
        node.decompose()
    main = tree.css_first("article") or tree.css_first("main") or tree.body
    if main is None:
        return Extracted("", title or None)
    return Extracted(_block_text(main), title or None)


def _block_text(root) -> str:  # type: ignore[no-untyped-def]
    """Text of a subtree with a line break around every block element; iterative, so that
    deeply nested pages cannot exhaust the stack."""
    out: list[str] = []
    stack = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        if leaving:
            out.append("\n")
            continue
        if node.tag == "-text":
            out.append(node.text_content or "")
            continue
        block = node.tag in _BLOCKS
        if block:
            out.append("\n")
            stack.append((node, True))
        children = list(node.iter(include_text=True))
        stack.extend((child, False) for child in reversed(children))
    lines = (" ".join(line.split()) for line in "".join(out).split("\n"))
    return "\n".join(line for line in lines if line)


def pdf_text(data: bytes) -> Extracted:
    """Each page's text, in page order, separated by form feeds."""
    from pypdf import PdfReader
    from pypdf.errors import LimitReachedError

    # pypdf logs what it repairs; with no handler Python would print it as a second line.
    logging.getLogger("pypdf").addHandler(_QUIET)

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise ExtractError("the PDF is encrypted: add a copy that is not")
        for page in reader.pages:
            # Decoded here, where pypdf's limits raise; extract_text would log the error
            # and give no text. pypdf keeps the decoded stream for extract_text.
            contents = page.get_contents()
            if contents is not None:
                contents.get_data()
        pages = [(page.extract_text() or "").replace(PAGE_BREAK, " ") for page in reader.pages]
        title = reader.metadata.title if reader.metadata else None
    except ExtractError:
        raise
    except LimitReachedError as exc:
        raise ExtractError(
            f"the PDF passes pypdf's limits (a decompression bomb?): {exc}"
        ) from None
    except MemoryError:
        raise ExtractError("the PDF needs more memory than there is to read it") from None
    except Exception as exc:  # noqa: BLE001 - pypdf raises many kinds on a damaged file
        raise ExtractError(f"the PDF cannot be read: {type(exc).__name__}: {exc}") from None
    return Extracted(PAGE_BREAK.join(pages), str(title) if title else None, len(pages) or None)
