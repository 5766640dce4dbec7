"""Serve a built site on 127.0.0.1, and reload open pages as a live site is rebuilt.

`make_server` serves any built folder the way static hosts do: `/vol1/glossary` from
`vol1/glossary.html`, a folder from its `index.html`, anything else with 404.html. A
`SiteServer` given a live site (`sourcebook.live.LiveSite`, which rebuilds it as the
record changes) shows its errors on every page while it has some.
"""

from __future__ import annotations

import json
import mimetypes
import posixpath
from collections.abc import Iterable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Protocol
from urllib.parse import parse_qs, unquote, urlsplit

from sourcebook.publish.site.urls import normalize_base_path

INTERNAL = "/__sourcebook/"
WAIT_SECONDS = 25.0
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

    @property
    def broken(self) -> bool: ...

    def error_page(self) -> bytes: ...

    def wait(self, version: int, timeout: float = ...) -> int: ...


class SiteHandler(BaseHTTPRequestHandler):
    server: SiteServer
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self._respond(send_body=True)

    def do_HEAD(self) -> None:
        self._respond(send_body=False)

    def log_message(self, format: str, *args: object) -> None:
        if self.server.verbose:
            super().log_message(format, *args)

    def _respond(self, send_body: bool) -> None:
        url = urlsplit(self.path)
        path = unquote(url.path)
        live = self.server.live
        if path.startswith(INTERNAL) and live is not None:
            self._internal(path[len(INTERNAL) :], parse_qs(url.query), send_body)
        elif live is not None and live.broken and _is_page(path):
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, live.error_page(), "text/html", send_body)
        elif path == "/" and self.server.home != "/":
            self._redirect(self.server.home)
        else:
            self._file(path, send_body)

    def _file(self, path: str, send_body: bool) -> None:
        found = resolve(self.server.directory, path)
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
        self._send(status, body, kind, send_body)

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
        self.send_response(HTTPStatus.FOUND)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _send(self, status: HTTPStatus, body: bytes, kind: str, send_body: bool) -> None:
        self.send_response(status)
        charset = "; charset=utf-8" if kind.startswith("text/") or kind.endswith("json") else ""
        self.send_header("Content-Type", kind + charset)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
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


def resolve(directory: Path, path: str) -> Path | None:
    """The file that serves `path`, as static hosts find it; None outside `directory`."""
    clean = posixpath.normpath("/" + path.lstrip("/"))
    base = directory.resolve()
    candidates: Iterable[Path]
    target = base / clean.lstrip("/")
    if path.endswith("/") or clean == "/":
        candidates = [target / "index.html"]
    else:
        candidates = [target, target.with_name(target.name + ".html"), target / "index.html"]
    for candidate in candidates:
        resolved = candidate.resolve()
        if resolved.is_file() and resolved.is_relative_to(base):
            return resolved
    return None


class SiteServer(ThreadingHTTPServer):
    daemon_threads = True

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
        super().__init__((host, port), SiteHandler)

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
