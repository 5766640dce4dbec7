"""Capture an original: fetch a URL and keep the exchange as WARC, or read a file.

A URL is fetched by `library.fetch` (within a budget of bytes and time, staying where the
author pointed); the WARC record keeps the body as it came over the wire, content
encoding and headers included.

A capture file, as kept in a research workspace, starts with a header of `key: value`
lines (url, title, publisher, date, retrieved-from) and a blank line; the Library holds
its bytes as they are and, as its text, what follows the header.
"""

from __future__ import annotations

import io
import mimetypes
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from sourcebook.library.extract import decode
from sourcebook.library.fetch import Budget, Fetched, fetch
from sourcebook.library.refusal import FETCH_FAILED, Refused
from sourcebook.library.store import Original
from sourcebook.model.base import DAY_PATTERN

_NO_HEADER = "the file has no capture header (url: …, date: …, then a blank line)"


class CaptureError(Refused):
    """A capture that failed; the message is one line for a person."""

    code = FETCH_FAILED


def fetch_original(url: str, budget: Budget | None = None) -> Original:
    """Fetch `url` as an original of the Library, with the exchange kept as WARC; an
    answer of 400 or more is refused."""
    fetched = fetch(url, budget)
    if fetched.status >= 400:
        raise CaptureError(f"{fetched.url}: the server answered {fetched.status}")
    return _original(fetched)


def _original(fetched: Fetched) -> Original:
    media_type = fetched.media_type
    name = Path(urlsplit(fetched.url).path).name
    if not name:
        bare = (media_type or "").split(";")[0].strip().lower()
        name = "index" + ((mimetypes.guess_extension(bare) or "") if bare else "")
    return Original(
        data=fetched.body,
        name=name,
        media_type=media_type,
        url=fetched.url,
        how="fetched with httpx by sourcebook library add; the exchange is kept as WARC",
        warc=warc_records(fetched),
    )


def warc_records(fetched: Fetched) -> bytes:
    """A gzipped WARC file holding the response, its body as received, and the request.

    httpx takes the chunked transfer coding off, so the response record drops that
    header and states the length of the body it holds; the content encoding stays, as
    the bytes it describes do."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=True)
    raw = fetched.raw
    dropped = {"transfer-encoding", "content-length"}
    headers = [(k, v) for k, v in fetched.headers if k.lower() not in dropped]
    headers.append(("Content-Length", str(len(raw))))
    status = StatusAndHeaders(f"{fetched.status} {fetched.reason}", headers, protocol="HTTP/1.1")
    # Given lengths keep warcio from buffering each payload in a temporary file.
    record = writer.create_warc_record(
        fetched.url, "response", payload=io.BytesIO(raw), length=len(raw), http_headers=status
    )
    sent = fetched.request
    request_headers = StatusAndHeaders(
        f"{sent.method} {sent.target} HTTP/1.1", list(sent.headers), is_http_request=True
    )
    request = writer.create_warc_record(
        fetched.url, "request", payload=io.BytesIO(b""), length=0, http_headers=request_headers
    )
    writer.write_record(record)
    writer.write_record(request)
    return buffer.getvalue()


@dataclass(frozen=True)
class CaptureFile:
    """A capture file's header and its text."""

    header: dict[str, str]
    text: str

    @property
    def url(self) -> str | None:
        return self.header.get("url") or None

    @property
    def published(self) -> str | None:
        day = self.header.get("date", "")
        return day if DAY_PATTERN.match(day) else None

    @property
    def title(self) -> str | None:
        title = self.header.get("title", "")
        return None if not title or title.startswith("(") else title


def read_capture_file(data: bytes) -> CaptureFile:
    """Split a capture file into its header and its text; raises CaptureError without one."""
    text = decode(data)
    head, blank, body = text.partition("\n\n")
    header: dict[str, str] = {}
    for line in head.splitlines():
        key, colon, value = line.partition(":")
        if not colon or not key.strip() or " " in key.strip():
            raise CaptureError(_NO_HEADER, "Q104")
        header[key.strip().lower()] = value.strip()
    if not blank or "url" not in header:
        raise CaptureError(_NO_HEADER, "Q104")
    return CaptureFile(header, body.strip("\n") + "\n")
