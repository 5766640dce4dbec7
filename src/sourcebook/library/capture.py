"""Capture an original: fetch a URL and keep the exchange as WARC, or read a file.

A capture file, as kept in a research workspace, starts with a header of `key: value`
lines (url, title, publisher, date, retrieved-from) and a blank line; the Library holds
its bytes as they are and, as its text, what follows the header.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from sourcebook.library.extract import decode
from sourcebook.library.store import Original
from sourcebook.model.base import DAY_PATTERN

USER_AGENT = "sourcebook (+https://pypi.org/project/sourcebook/)"
_NO_HEADER = "the file has no capture header (url: …, date: …, then a blank line)"
_DROPPED_HEADERS = {"content-encoding", "transfer-encoding", "content-length"}


class CaptureError(Exception):
    """A capture that failed; the message is one line for a person."""


def fetch(url: str, timeout: float = 30.0) -> Original:
    """Fetch `url` (following redirects) and keep request and response as WARC records."""
    import httpx

    try:
        response = httpx.get(
            url, follow_redirects=True, timeout=timeout, headers={"User-Agent": USER_AGENT}
        )
    except httpx.HTTPError as exc:
        raise CaptureError(f"{url}: {exc}") from None
    if response.status_code >= 400:
        raise CaptureError(f"{url}: the server answered {response.status_code}")
    final = str(response.url)
    name = Path(urlsplit(final).path).name or "index.html"
    return Original(
        data=response.content,
        name=name,
        media_type=response.headers.get("content-type"),
        url=final,
        how="fetched with httpx by sourcebook library add; the exchange is kept as WARC",
        warc=warc_records(response),
    )


def warc_records(response) -> bytes:  # type: ignore[no-untyped-def]
    """A gzipped WARC file holding the request and the response.

    httpx hands back the body decoded, so the response record drops the transfer and
    content encodings and states the length of the body it holds.
    """
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=True)
    url = str(response.url)
    body = response.content
    headers = [(k, v) for k, v in response.headers.items() if k.lower() not in _DROPPED_HEADERS]
    headers.append(("Content-Length", str(len(body))))
    status = StatusAndHeaders(
        f"{response.status_code} {response.reason_phrase}", headers, protocol="HTTP/1.1"
    )
    # Given lengths keep warcio from buffering each payload in a temporary file.
    record = writer.create_warc_record(
        url, "response", payload=io.BytesIO(body), length=len(body), http_headers=status
    )
    request = response.request
    target = request.url.raw_path.decode("ascii")
    request_headers = StatusAndHeaders(
        f"{request.method} {target} HTTP/1.1", list(request.headers.items()), is_http_request=True
    )
    sent_body = request.read()
    sent = writer.create_warc_record(
        url,
        "request",
        payload=io.BytesIO(sent_body),
        length=len(sent_body),
        http_headers=request_headers,
    )
    writer.write_record(record)
    writer.write_record(sent)
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
            raise CaptureError(_NO_HEADER)
        header[key.strip().lower()] = value.strip()
    if not blank or "url" not in header:
        raise CaptureError(_NO_HEADER)
    return CaptureFile(header, body.strip("\n") + "\n")
