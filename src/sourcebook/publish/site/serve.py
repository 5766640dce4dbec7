"""Serve a built site on 127.0.0.1, rebuild it as the record changes, reload open pages.

`LiveSite` keeps the latest build of a record and, where check finds errors, the
errors instead: every page then shows them, with file and line, rather than a stale
site. `make_server` serves any built folder the way static hosts do: `/vol1/glossary/`
from `vol1/glossary/index.html`, `/vol1/glossary` by a redirect there, anything else
with 404.html.

The server is for previewing, but a request is still untrusted: a path that no site could
hold (a NUL, a `..`, a segment longer than any file name) is refused with 400, a client
that stops talking is dropped after `REQUEST_TIMEOUT`, and one that goes away mid-answer
is not an error. Each build is shown before its search index is made (see
`live_search.py`).
"""

from __future__ import annotations

import html
import json
import mimetypes
import shutil
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote, urlsplit

from sourcebook.diagnostics import Diagnostic
from sourcebook.publish.site.build import build_site
from sourcebook.publish.site.live_search import LiveSearch
from sourcebook.publish.site.search import FOLDER, SearchJob
from sourcebook.publish.site.urls import normalize_base_path

INTERNAL = "/__sourcebook/"
WAIT_SECONDS = 25.0
REQUEST_TIMEOUT = 30.0
"""Seconds a client may leave the server waiting for the next bytes of a request."""
LISTEN_BACKLOG = 128
"""Connections the system queues while every thread is busy (http.server's is 5)."""
MAX_SEGMENT = 255
"""Bytes in a path's segment: no file name on a common file system is longer."""
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


class LiveSite:
    """The latest build of a record, or why there is none; rebuilt on demand."""

    def __init__(self, root: Path, out: Path | None = None, notify_url: str | None = None):
        self.root = Path(root)
        self.notify_url = notify_url
        """Where the pages' sign-up form posts, instead of `[notify] url`."""
        self._temporary = out is None
        self.out = out if out is not None else Path(tempfile.mkdtemp(prefix="sourcebook-serve-"))
        self.site = self.out / "site"
        self.base_path = ""
        self.version = 0
        self.errors: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []
        self.failure = ""
        self._changed = threading.Condition()
        self._building = threading.Lock()
        self._closed = False
        self.search = LiveSearch(self.out)
        """The search index, made after each build is shown."""

    @property
    def broken(self) -> bool:
        return bool(self.errors or self.failure)

    def rebuild(self) -> None:
        """Check and build; on errors keep them, and the pages will show them."""
        with self._building:
            if self._closed:
                return
            errors: list[Diagnostic] = []
            warnings: list[Diagnostic] = []
            failure = ""
            search_job = None
            try:
                errors, warnings, search_job = self.check_and_build()
            except Exception:  # a broken template or record file must not stop the server
                failure = traceback.format_exc(limit=8)
            with self._changed:
                self.errors, self.warnings, self.failure = errors, warnings, failure
                self.version += 1
                self._changed.notify_all()
            self.search.built(self.version, search_job, self.site)

    def check_and_build(self) -> tuple[list[Diagnostic], list[Diagnostic], SearchJob | None]:
        """Check the record and, where it has no error, build its site, drafts and all,
        without its search index; the errors, the warnings, and the index still to make."""
        from sourcebook.pipeline import check

        checked = check(self.root)
        if checked.record is not None:
            self.base_path = normalize_base_path(checked.record.settings.site.base_path)
        errors, warnings = checked.diagnostics.errors, checked.diagnostics.warnings
        if not errors:
            built = build_site(
                checked, self.site, jobs=1, notify_url=self.notify_url, drafts=True, search=False
            )
            return errors, warnings, built.search_job
        return errors, warnings, None

    def wait(self, version: int, timeout: float = WAIT_SECONDS) -> int:
        """Block until the version differs from `version` (or time runs out)."""
        with self._changed:
            self._changed.wait_for(lambda: self.version != version, timeout=timeout)
            return self.version

    def watch(self, stop: threading.Event, then: Callable[[LiveSite], None] | None = None) -> None:
        """Rebuild on every change to the record's files, until `stop` is set."""
        import watchfiles

        ignored = {"_site", ".sourcebook-cache", ".git", "__pycache__"}

        def wanted(change: watchfiles.Change, path: str) -> bool:
            parts = Path(path).relative_to(self.root.resolve()).parts
            return not any(p in ignored or p.startswith(".") for p in parts)

        for _changes in watchfiles.watch(
            self.root.resolve(), watch_filter=wanted, stop_event=stop, debounce=200
        ):
            self.rebuild()
            if then is not None:
                then(self)

    def close(self, wait: float = 30.0) -> None:
        """Remove the temporary folder, once a build under way (if any) has finished with
        it, or `wait` seconds have passed; no build starts after this."""
        taken = self._building.acquire(timeout=wait)
        try:
            self._closed = True
            self.search.close()
            if self._temporary:
                shutil.rmtree(self.out, ignore_errors=True)
        finally:
            if taken:
                self._building.release()

    def error_page(self) -> bytes:
        items = "".join(_diagnostic_html(d) for d in self.errors)
        if self.failure:
            items += f"<li><pre>{html.escape(self.failure)}</pre></li>"
        count = len(self.errors) or 1
        return ERROR_PAGE.format(
            count=count, plural="s" * (count != 1), items=items, version=self.version
        ).encode("utf-8")


def _diagnostic_html(diagnostic: Diagnostic) -> str:
    hint = f'<br><span class="hint">hint: {html.escape(diagnostic.hint or "")}</span>'
    return (
        f"<li><code>{html.escape(str(diagnostic.pos))}</code>: error "
        f"<code>{html.escape(diagnostic.code)}</code> {html.escape(diagnostic.message)}"
        f"{hint if diagnostic.hint else ''}</li>"
    )


ERROR_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>The record has errors</title>
<style>body{{font:1rem/1.5 Georgia,serif;max-width:48rem;margin:2rem auto;padding:0 1rem;
color:#1f1d1a;background:#fbf9f4}}h1{{color:#7a2e1d}}li{{margin-bottom:.75rem}}
code,pre{{font-size:.9rem}}.hint{{color:#5e5850}}</style></head>
<body><main><h1>The record has {count} error{plural}</h1>
<p>The site is not built while check finds errors. Fix them and this page reloads.</p>
<ol class="diagnostics">{items}</ol></main>
<script src="/__sourcebook/reload.js" data-version="{version}"></script></body></html>
"""


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

    def _search_file(self, live: LiveSite, path: str, send_body: bool) -> None:
        """A file of the newest whole search index, which lives beside the site."""
        folder = live.search.folder
        found = resolve(folder, path) if folder is not None else None
        if found is None:
            self._send(HTTPStatus.NOT_FOUND, b"Not found\n", "text/plain", send_body)
            return
        kind = mimetypes.guess_type(found.name)[0] or "application/octet-stream"
        self._send(HTTPStatus.OK, found.read_bytes(), kind, send_body)

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
        live: LiveSite | None = None,
        base_path: str = "",
        verbose: bool = False,
    ):
        self.directory = Path(directory)
        self.live = live
        self.base_path = base_path
        self.verbose = verbose
        self.wait_seconds = WAIT_SECONDS
        self.request_timeout = REQUEST_TIMEOUT
        super().__init__((host, port), SiteHandler)

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
