"""Serve a built site on 127.0.0.1, and reload open pages as a live site is rebuilt.

`make_server` serves any built folder the way static hosts do: `/vol1/glossary/` from
`vol1/glossary/index.html`, `/vol1/glossary` by a redirect there, anything else with
404.html. A `SiteServer` given a live site (`sourcebook.live.LiveSite`, which rebuilds it
as the record changes) shows its errors on every page while it has some, and serves the
newest whole search index beside it.

The server is for previewing, but a request is still untrusted: a path that no site could
hold (a NUL, a `..`, a segment longer than any file name) is refused with 400, a client
that stops talking is dropped after `REQUEST_TIMEOUT`, and one that goes away mid-answer
is not an error.
"""

from __future__ import annotations

import json
import mimetypes
import sys
from collections.abc import Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Protocol
from urllib.parse import parse_qs, quote, unquote, urlsplit

from sourcebook.publish.site.pages.urls import normalize_base_path
from sourcebook.publish.site.search.index import FOLDER
from sourcebook.publish.site.search.live_index import LiveSearch
from sourcebook.publish.site.serving.policy import (
    ERROR_POLICY,
    HEADERS_FILE,
    NOSNIFF,
    Rule,
    headers_for,
    read_rules,
    site_rules,
)

INTERNAL = "/__sourcebook/"
WAIT_SECONDS = 25.0
REQUEST_TIMEOUT = 30.0
"""Seconds a client may leave the server waiting for the next bytes of a request."""
LISTEN_BACKLOG = 128
"""Connections the system queues while every thread is busy (http.server's is 5)."""
MAX_SEGMENT = 255
"""Bytes in a path's segment: no file name on a common file system is longer."""
OWN_HEADERS = (("Content-Security-Policy", ERROR_POLICY), NOSNIFF)
"""The headers of what the server says itself: its script, its answers, its errors."""
RELOAD_JS = b"""(function () {
  var script = document.currentScript, version = script.getAttribute("data-version");
  function wait() {
    fetch("/__sourcebook/wait?version=" + version, {cache: "no-store"})
      .then(function (r) { return r.json(); })
      .then(function (d) { if (String(d.version) !== version) location.reload(); else wait(); })
      .catch(function () { setTimeout(wait, 1000); });
  }
  wait();
})();
"""


class Live(Protocol):
    """A site rebuilt as its record changes, as the server asks of it."""

    base_path: str
    version: int
    search: LiveSearch

    @property
    def broken(self) -> bool: ...

    def error_page(self) -> bytes: ...

    def wait(self, version: int, timeout: float = ...) -> int: ...


class SiteHandler(BaseHTTPRequestHandler):
    server: SiteServer
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.request_timeout)

    def do_GET(self) -> None:
        self._respond(send_body=True)

    def do_HEAD(self) -> None:
        self._respond(send_body=False)

    def log_message(self, format: str, *args: object) -> None:
        if self.server.verbose:
            super().log_message(format, *args)

    def _respond(self, send_body: bool) -> None:
        url = urlsplit(self.path)
        path = request_path(url.path)
        if path is None:
            self._send(HTTPStatus.BAD_REQUEST, b"Bad request\n", "text/plain", send_body)
            return
        live = self.server.live
        if path.startswith(INTERNAL) and live is not None:
            self._internal(path[len(INTERNAL) :], parse_qs(url.query), send_body)
        elif live is not None and live.broken and _is_page(path):
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, live.error_page(), "text/html", send_body)
        elif folder_without_slash(self.server.directory, path):
            # As static hosts do: the page lives at the URL with its slash.
            query = f"?{url.query}" if url.query else ""
            self._redirect(quote(path) + "/" + query)
        elif live is not None and path.startswith(f"{live.base_path}/{FOLDER}/"):
            self._search_file(live, path, send_body)
        else:
            self._file(path, send_body)

    def _file(self, path: str, send_body: bool) -> None:
        found = resolve(self.server.directory, path) if path != f"/{HEADERS_FILE}" else None
        status = HTTPStatus.OK
        if found is None:
            status, found = HTTPStatus.NOT_FOUND, self.server.directory / "404.html"
            if not found.is_file():
                self._send(status, b"Not found\n", "text/plain", send_body)
                return
        kind = mimetypes.guess_type(found.name)[0] or "application/octet-stream"
        body = found.read_bytes()
        if kind == "text/html" and self.server.live is not None:
            body = _with_reload(body, self.server.live.version)
        self._send(status, body, kind, send_body, self.server.headers_for(path))

    def _search_file(self, live: Live, path: str, send_body: bool) -> None:
        """A file of the newest whole search index, which lives beside the site."""
        folder = live.search.folder
        found = resolve(folder, path) if folder is not None else None
        if found is None:
            self._send(HTTPStatus.NOT_FOUND, b"Not found\n", "text/plain", send_body)
            return
        kind = mimetypes.guess_type(found.name)[0] or "application/octet-stream"
        headers = self.server.headers_for(path)
        self._send(HTTPStatus.OK, found.read_bytes(), kind, send_body, headers)

    def _internal(self, name: str, query: dict[str, list[str]], send_body: bool) -> None:
        live = self.server.live
        assert live is not None
        if name == "reload.js":
            self._send(HTTPStatus.OK, RELOAD_JS, "text/javascript", send_body)
        elif name == "wait":
            try:
                seen = int(query.get("version", ["-1"])[0])
            except ValueError:
                seen = -1
            version = live.wait(seen, self.server.wait_seconds)
            body = json.dumps({"version": version}).encode()
            self._send(HTTPStatus.OK, body, "application/json", send_body)
        else:
            self._send(HTTPStatus.NOT_FOUND, b"Not found\n", "text/plain", send_body)

    def _redirect(self, location: str) -> None:
        self.send_response(HTTPStatus.MOVED_PERMANENTLY)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _send(
        self,
        status: HTTPStatus,
        body: bytes,
        kind: str,
        send_body: bool,
        headers: Sequence[tuple[str, str]] = OWN_HEADERS,
    ) -> None:
        self.send_response(status)
        charset = "; charset=utf-8" if kind.startswith("text/") or kind.endswith("json") else ""
        self.send_header("Content-Type", kind + charset)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if send_body:
            self.wfile.write(body)


def _is_page(path: str) -> bool:
    last = path.rsplit("/", 1)[-1]
    return "." not in last or last.endswith(".html")


def _with_reload(body: bytes, version: int) -> bytes:
    tag = f'<script src="{INTERNAL}reload.js" data-version="{version}"></script>'.encode()
    index = body.rfind(b"</body>")
    return body + tag if index == -1 else body[:index] + tag + body[index:]


def request_path(raw: str) -> str | None:
    """The decoded path of a request, with repeated slashes as one; None where no site
    could hold it: not UTF-8, a control character (NUL among them), a `.` or `..`
    segment, or a segment longer than any file name."""
    try:
        path = unquote(raw, errors="strict")
    except UnicodeDecodeError:
        return None
    if not path.startswith("/") or any(ord(c) < 32 or ord(c) == 127 for c in path):
        return None
    segments = path.split("/")
    for segment in segments:
        if segment in (".", "..") or len(segment.encode()) > MAX_SEGMENT:
            return None
    inner = "/".join(s for s in segments if s)
    return "/" + inner + ("/" if inner and path.endswith("/") else "")


def resolve(directory: Path, path: str) -> Path | None:
    """The file that serves `path`, as static hosts find it: the file itself, or for a
    path ending in `/` the folder's index.html; None outside `directory` or where there
    is none."""
    base = directory.resolve()
    target = base / path.lstrip("/")
    candidate = target / "index.html" if path.endswith("/") else target
    try:
        resolved = candidate.resolve()
        if resolved.is_file() and resolved.is_relative_to(base):
            return resolved
    except (OSError, ValueError):  # a path too long for the system, or otherwise unusable
        pass
    return None


def folder_without_slash(directory: Path, path: str) -> bool:
    """Whether `path` names a folder with a page in it, without the trailing slash."""
    return not path.endswith("/") and resolve(directory, path + "/") is not None


class SiteServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = LISTEN_BACKLOG

    def __init__(
        self,
        directory: Path,
        host: str = "127.0.0.1",
        port: int = 8000,
        live: Live | None = None,
        base_path: str = "",
        verbose: bool = False,
    ):
        self.directory = Path(directory)
        self.live = live
        self.base_path = base_path
        self.verbose = verbose
        self.wait_seconds = WAIT_SECONDS
        self.request_timeout = REQUEST_TIMEOUT
        self._rules: tuple[tuple[int, int], list[Rule]] = ((-1, -1), site_rules([], []))
        super().__init__((host, port), SiteHandler)

    def headers_for(self, path: str) -> list[tuple[str, str]]:
        """The headers the site's `_headers` gives a path, as Netlify and Cloudflare Pages
        send them; without one, the site's policy and no sniffing."""
        return headers_for(self._site_rules(), path)

    def _site_rules(self) -> list[Rule]:
        try:
            info = (self.directory / HEADERS_FILE).stat()
            stamp = (info.st_mtime_ns, info.st_size)
            if stamp != self._rules[0]:
                text = (self.directory / HEADERS_FILE).read_text("utf-8", errors="replace")
                self._rules = (stamp, read_rules(text) or site_rules([], []))
        except OSError:
            self._rules = ((-1, -1), site_rules([], []))
        return self._rules[1]

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that went away or stopped talking is not an error of the server's."""
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]

    @property
    def home(self) -> str:
        """The volume's front page."""
        return (self.live.base_path if self.live is not None else self.base_path) + "/"

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        shown = host.decode() if isinstance(host, bytes) else host
        return f"http://{shown}:{port}"


def make_server(
    directory: Path, host: str = "127.0.0.1", port: int = 8000, base_path: str = ""
) -> SiteServer:
    """A server for a built site folder, without rebuilding: for tests and previews."""
    return SiteServer(directory, host, port, base_path=normalize_base_path(base_path))
