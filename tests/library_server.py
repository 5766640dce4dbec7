"""A web server on 127.0.0.1 for `library add URL` tests, and the CLI run as a user runs it.

Each test registers what a path answers (`serve.route(path, answer)`); an answer is a
function given the request handler, free to send whatever a hostile server would. The
CLI runs as a subprocess under an address-space limit, so that a run that expands a bomb
fails the test instead of the machine.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import resource
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

MEMORY_LIMIT = 1536 * 1024 * 1024
"""The address space a `library add` run may take: a bomb expanded whole would pass it."""
Answer = Callable[[BaseHTTPRequestHandler], None]


@dataclass
class Server:
    url: str
    routes: dict[str, Answer] = field(default_factory=dict)
    seen: list[tuple[str, str]] = field(default_factory=list)
    """Each request's path and Host header, in order, answered or not."""

    def route(self, path: str, answer: Answer) -> str:
        self.routes[path] = answer
        return self.url + path


def reply(
    body: bytes, content_type: str = "text/html; charset=utf-8", status: int = 200, **headers: str
) -> Answer:
    """An answer that sends `body` whole, with a Content-Length."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        if content_type:
            handler.send_header("Content-Type", content_type)
        for name, value in headers.items():
            handler.send_header(name.replace("_", "-"), value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return answer


@contextlib.contextmanager
def serving() -> Iterator[Server]:
    """A server on 127.0.0.1 (a port of its own) answering the routes given to it."""
    routes: dict[str, Answer] = {}
    seen: list[tuple[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
            seen.append((self.path, self.headers.get("Host", "")))
            answer = routes.get(self.path.split("?")[0])
            if answer is None:
                self.send_error(404)
                return
            # The client hangs up, as it should on a bomb or a drip.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                answer(self)

        def log_message(self, format: str, *args: object) -> None:
            return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield Server(f"http://127.0.0.1:{httpd.server_address[1]}", routes, seen)
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with serving() as started:
        yield started


def bomb(expanded_mib: int, wbits: int = 31) -> bytes:
    """A gzip (wbits 31) or zlib (15) stream of `expanded_mib` MiB of zeros, made in an
    instant: after a full flush, every MiB of zeros compresses to the same bytes."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, wbits)
    zeros = bytes(1 << 20)
    first = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    again = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    return first + again * (expanded_mib - 1) + compressor.flush()


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def add(*args: str) -> Run:
    """`sourcebook library add ARGS` in a process of its own, its memory bounded."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "sourcebook", "library", "add", *args],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_limit_memory,
        env={**os.environ, "SOURCEBOOK_CURATOR": "A. Tester"},
    )
    return Run(done.returncode, done.stdout, done.stderr, time.monotonic() - started)


def snapshot(root: Path) -> dict[str, str]:
    """Every file under `root` and a digest of its bytes, to compare before and after."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    } | {
        path.relative_to(root).as_posix() + "/": "folder"
        for path in root.rglob("*")
        if path.is_dir()
    }
