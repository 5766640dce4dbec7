"""A web page's bytes decoded as a browser would: by the HTTP header's charset, else by
the page's own `<meta charset>`, else by what charset-normalizer detects.

The order is HTML's own (the encoding sniffing algorithm): a byte-order mark first, the
transport's word next, then the document's, then a guess. Labels are read as browsers
read them: ISO-8859-1 and ASCII are Windows-1252, Shift_JIS is Microsoft's superset.
Nothing here fetches: `library add URL` passes what it received.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from email.message import Message

PRESCAN_BYTES = 1024
"""How far into a page its <meta charset> is looked for, as HTML's prescan does."""

_META_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:-]+)", re.I)
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_AS_BROWSERS_READ = {
    "iso-8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "l1": "cp1252",
    "ascii": "cp1252",
    "us-ascii": "cp1252",
    "windows-1252": "cp1252",
    "shift_jis": "cp932",
    "shift-jis": "cp932",
    "sjis": "cp932",
    "x-sjis": "cp932",
    "ms_kanji": "cp932",
    "windows-31j": "cp932",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "euc-kr": "cp949",
}


@dataclass(frozen=True)
class Decoded:
    text: str
    encoding: str
    """The Python codec the text was decoded with."""
    by: str
    """What named it: bom, http, meta, detected or default."""


def decode_page(data: bytes, content_type: str | None = None) -> Decoded:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return Decoded(data[len(bom) :].decode(encoding, errors="replace"), encoding, "bom")
    for by, label in (("http", http_charset(content_type)), ("meta", meta_charset(data))):
        decoded = _strictly(data, label, by)
        if decoded is not None:
            return decoded
    detected = _detected(data)
    if detected is not None:
        return detected
    return Decoded(data.decode("utf-8", errors="replace"), "utf-8", "default")


def http_charset(content_type: str | None) -> str | None:
    """The charset parameter of a Content-Type header, if it has one."""
    if not content_type:
        return None
    message = Message()
    message["content-type"] = content_type
    charset = message.get_param("charset")
    return charset.strip() if isinstance(charset, str) and charset.strip() else None


def meta_charset(data: bytes) -> str | None:
    """The charset a page declares in its first bytes (<meta charset> or http-equiv)."""
    found = _META_CHARSET.search(data[:PRESCAN_BYTES])
    return found[1].decode("ascii") if found else None


def codec(label: str) -> str | None:
    """The Python codec for an encoding label, as browsers read the label; None if unknown."""
    label = label.strip().lower()
    label = _AS_BROWSERS_READ.get(label, label)
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def _strictly(data: bytes, label: str | None, by: str) -> Decoded | None:
    encoding = codec(label) if label else None
    if encoding is None or (by == "meta" and encoding.startswith("utf-16")):
        return None
    try:
        return Decoded(data.decode(encoding), encoding, by)
    except UnicodeDecodeError:
        return None


def _detected(data: bytes) -> Decoded | None:
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None:
        return None
    encoding = codec(best.encoding) or best.encoding
    return Decoded(str(best), encoding, "detected")
