"""Capture an original: fetch a URL and keep the exchange as WARC, or read a file.

A server is untrusted. The download is bounded in bytes (`Budget.max_bytes`, counted on
the wire and again once decompressed, so that a gzip bomb stops at the cap) and in
total time (`Budget.seconds`, however slowly the server drips its bytes). Redirects are
followed by hand, without reading their bodies. The WARC record keeps the body as it
came over the wire, content encoding and headers included.

A capture file, as kept in a research workspace, starts with a header of `key: value`
lines (url, title, publisher, date, retrieved-from) and a blank line; the Library holds
its bytes as they are and, as its text, what follows the header.
"""

from __future__ import annotations

import io
import mimetypes
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sourcebook.library.extract import decode
from sourcebook.library.refusal import FETCH_FAILED, TOO_LARGE, TOO_SLOW, Refused
from sourcebook.library.store import Original
from sourcebook.model.base import DAY_PATTERN

USER_AGENT = "sourcebook (+https://pypi.org/project/sourcebook/)"
MAX_REDIRECTS = 10
ACCEPT_ENCODING = "gzip, deflate"
"""Only encodings whose decompression can be capped as it goes."""
_NO_HEADER = "the file has no capture header (url: …, date: …, then a blank line)"
_CHUNK = 64 * 1024


class CaptureError(Refused):
    """A capture that failed; the message is one line for a person."""

    code = FETCH_FAILED


@dataclass(frozen=True)
class Budget:
    """What one download may cost: its bytes (on the wire and decompressed) and its time."""

    seconds: float = 60.0
    max_bytes: int = 64 * 1024 * 1024


@dataclass
class _Outcome:
    original: Original | None = None
    error: BaseException | None = None
    cancelled: threading.Event = field(default_factory=threading.Event)


def fetch(url: str, budget: Budget | None = None) -> Original:
    """Fetch `url` (following redirects) and keep request and response as WARC records.

    The download runs on a worker thread, so that the deadline holds even while a read
    is waiting on the socket; a worker past its deadline is told to stop and left to
    its own read timeout."""
    budget = budget or Budget()
    outcome = _Outcome()
    deadline = time.monotonic() + budget.seconds
    worker = threading.Thread(
        target=_fetch_into, args=(url, budget, deadline, outcome), daemon=True
    )
    worker.start()
    worker.join(budget.seconds)
    if worker.is_alive():
        outcome.cancelled.set()
        raise _too_slow(url, budget)
    if outcome.error is not None:
        raise outcome.error
    assert outcome.original is not None
    return outcome.original


def _fetch_into(url: str, budget: Budget, deadline: float, outcome: _Outcome) -> None:
    try:
        outcome.original = _download(url, budget, deadline, outcome.cancelled)
    except Refused as exc:
        outcome.error = exc
    except MemoryError:
        outcome.error = CaptureError(f"{url}: ran out of memory", TOO_LARGE)
    except Exception as exc:  # noqa: BLE001 - httpx, h11 and zlib raise many kinds
        outcome.error = CaptureError(f"{url}: {type(exc).__name__}: {exc}")


def _download(url: str, budget: Budget, deadline: float, cancelled: threading.Event) -> Original:
    import httpx

    headers = {"User-Agent": USER_AGENT, "Accept-Encoding": ACCEPT_ENCODING}
    with httpx.Client(timeout=httpx.Timeout(budget.seconds), headers=headers) as client:
        current = httpx.URL(url)
        for _hop in range(MAX_REDIRECTS + 1):
            try:
                response = client.send(client.build_request("GET", current), stream=True)
            except httpx.HTTPError as exc:
                raise CaptureError(f"{current}: {exc or type(exc).__name__}") from None
            try:
                if response.is_redirect:
                    current = _redirect_target(response)
                    continue
                if response.status_code >= 400:
                    raise CaptureError(f"{current}: the server answered {response.status_code}")
                raw = _read_capped(response, budget, deadline, cancelled)
            except httpx.HTTPError as exc:
                if time.monotonic() >= deadline:
                    raise _too_slow(str(current), budget) from None
                raise CaptureError(f"{current}: {exc or type(exc).__name__}") from None
            finally:
                response.close()
            body = decompressed(raw, response.headers.get("content-encoding"), budget, current)
            return _original(response, raw, body)
    raise CaptureError(f"{url}: more than {MAX_REDIRECTS} redirects")


def _redirect_target(response: Any) -> Any:
    target = response.url.join(response.headers["location"])
    if target.scheme not in ("http", "https"):
        raise CaptureError(f"{response.url}: redirected to a {target.scheme}: address")
    return target


def _read_capped(
    response: Any, budget: Budget, deadline: float, cancelled: threading.Event
) -> bytes:
    """The body as it came over the wire (still content-encoded), within the budget."""
    url = str(response.url)
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > budget.max_bytes:
        raise _too_large(url, budget, "says it is")
    parts: list[bytes] = []
    size = 0
    for chunk in response.iter_raw(_CHUNK):
        size += len(chunk)
        if size > budget.max_bytes:
            raise _too_large(url, budget, "is")
        if cancelled.is_set() or time.monotonic() >= deadline:
            raise _too_slow(url, budget)
        parts.append(chunk)
    return b"".join(parts)


def decompressed(raw: bytes, encoding: str | None, budget: Budget, url: object) -> bytes:
    """The body without its content encodings, never more than the budget's bytes."""
    codings = [c.strip().lower() for c in (encoding or "").split(",") if c.strip()]
    body = raw
    for coding in reversed(codings):
        if coding == "identity":
            continue
        if coding in ("gzip", "x-gzip"):
            body = _inflate(body, 16 + zlib.MAX_WBITS, budget, url, coding)
        elif coding == "deflate":
            # HTTP's deflate is zlib's format; some servers send the bare stream.
            wrapped = len(body) > 1 and body[0] & 0x0F == 8 and (body[0] << 8 | body[1]) % 31 == 0
            body = _inflate(
                body, zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS, budget, url, coding
            )
        else:
            raise CaptureError(
                f"{url}: the server sent a body in '{coding}', which was not asked for"
            )
    return body


def _inflate(data: bytes, wbits: int, budget: Budget, url: object, coding: str) -> bytes:
    """Decompress every member of `data`, stopping as soon as the output passes the cap."""
    out: list[bytes] = []
    size = 0
    while data:
        inflater = zlib.decompressobj(wbits)
        try:
            part = inflater.decompress(data, budget.max_bytes + 1 - size)
        except zlib.error as exc:
            if out:  # bytes after the last member, which browsers ignore too
                break
            raise CaptureError(f"{url}: the {coding} body is damaged: {exc}") from None
        size += len(part)
        if size > budget.max_bytes or inflater.unconsumed_tail:
            raise _too_large(str(url), budget, "decompresses to")
        out.append(part)
        if not inflater.eof:
            raise CaptureError(f"{url}: the {coding} body is cut short")
        data = inflater.unused_data if wbits > 16 else b""
    return b"".join(out)


def _too_large(url: str, budget: Budget, verb: str) -> CaptureError:
    return CaptureError(
        f"{url}: the body {verb} more than {budget.max_bytes:,} bytes (--max-bytes); "
        "nothing was kept",
        TOO_LARGE,
    )


def _too_slow(url: str, budget: Budget) -> CaptureError:
    return CaptureError(
        f"{url}: no whole answer within {budget.seconds:g} seconds (--timeout); nothing was kept",
        TOO_SLOW,
    )


def _original(response: Any, raw: bytes, body: bytes) -> Original:
    final = str(response.url)
    media_type = response.headers.get("content-type")
    name = Path(urlsplit(final).path).name
    if not name:
        bare = (media_type or "").split(";")[0].strip().lower()
        name = "index" + ((mimetypes.guess_extension(bare) or "") if bare else "")
    return Original(
        data=body,
        name=name,
        media_type=media_type,
        url=final,
        how="fetched with httpx by sourcebook library add; the exchange is kept as WARC",
        warc=warc_records(response, raw),
    )


def warc_records(response: Any, raw: bytes) -> bytes:
    """A gzipped WARC file holding the response, its body as received, and the request.

    httpx takes the chunked transfer coding off, so the response record drops that
    header and states the length of the body it holds; the content encoding stays, as
    the bytes it describes do."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=True)
    url = str(response.url)
    dropped = {"transfer-encoding", "content-length"}
    headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in dropped]
    headers.append(("Content-Length", str(len(raw))))
    status = StatusAndHeaders(
        f"{response.status_code} {response.reason_phrase}", headers, protocol="HTTP/1.1"
    )
    # Given lengths keep warcio from buffering each payload in a temporary file.
    record = writer.create_warc_record(
        url, "response", payload=io.BytesIO(raw), length=len(raw), http_headers=status
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
            raise CaptureError(_NO_HEADER, "Q104")
        header[key.strip().lower()] = value.strip()
    if not blank or "url" not in header:
        raise CaptureError(_NO_HEADER, "Q104")
    return CaptureFile(header, body.strip("\n") + "\n")
