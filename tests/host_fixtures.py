"""A built site served for real, by a process of its own, and crawled over HTTP as a
reader's browser would: redirects followed, relative links taken from the final URL."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from site_fixtures import PageReader

SRC = str(Path(__file__).resolve().parent.parent / "src")


@dataclass
class Fetched:
    status: int
    url: str
    """The URL answered, after any redirect."""
    kind: str
    body: bytes


def fetch(url: str, method: str = "GET") -> Fetched:
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=20) as response:  # noqa: S310
            kind = response.headers.get("Content-Type", "")
            return Fetched(response.status, response.url, kind, response.read())
    except urllib.error.HTTPError as error:
        kind = error.headers.get("Content-Type", "")
        return Fetched(error.code, error.url, kind, error.read())


@dataclass
class Running:
    """A process started by `process`: what it has printed so far, and the process."""

    child: subprocess.Popen[str]
    lines: list[str]
    ready: str
    """The line that said it was ready."""

    @property
    def output(self) -> str:
        return "".join(self.lines)


@contextmanager
def process(
    args: Sequence[str],
    cwd: Path | None = None,
    ready: str = r"",
    env: dict[str, str] | None = None,
) -> Iterator[Running]:
    """Run `args` until the block ends (then SIGTERM), once it prints a line matching
    `ready`; its output is read all along, so that it never blocks writing it."""
    env = {**os.environ, "PYTHONPATH": SRC, "PYTHONUNBUFFERED": "1", **(env or {})}
    child = subprocess.Popen(
        args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert child.stdout is not None
    lines: list[str] = []
    said = threading.Event()

    def read() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            lines.append(line)
            if re.search(ready, line):
                said.set()
        said.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        said.wait(timeout=120)
        first = next((line for line in lines if re.search(ready, line)), None)
        assert first is not None, f"{args} stopped before it was ready:\n{''.join(lines)}"
        yield Running(child, lines, first)
    finally:
        stop(child)
        reader.join(timeout=10)
        child.stdout.close()


def stop(child: subprocess.Popen[str]) -> None:
    """SIGTERM, as a service manager stops a process; killed if it does not stop."""
    if child.poll() is None:
        child.send_signal(signal.SIGTERM)
    try:
        child.wait(timeout=20)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


@contextmanager
def http_server(site: Path) -> Iterator[str]:
    """`python -m http.server` serving `site` on 127.0.0.1; yields its origin."""
    args = [sys.executable, "-m", "http.server", "0", "--bind", "127.0.0.1"]
    with process(args, cwd=site, ready=r"Serving HTTP on \S+ port \d+") as running:
        port = re.search(r"port (\d+)", running.ready).group(1)  # type: ignore[union-attr]
        yield f"http://127.0.0.1:{port}"


@contextmanager
def sourcebook_serve(record: Path, *options: str) -> Iterator[str]:
    """`sourcebook serve` on the record at a free port; yields its origin."""
    with serve_process(record, *options) as running:
        yield origin_of(running)


def serve_process(
    record: Path, *options: str, env: dict[str, str] | None = None
) -> contextlib.AbstractContextManager[Running]:
    args = [sys.executable, "-m", "sourcebook", "serve", str(record), "--port", "0", *options]
    return process(args, ready=r"^Serving .* on http://", env=env)


def origin_of(running: Running) -> str:
    return re.search(r"http://[\d.]+:\d+", running.ready).group(0)  # type: ignore[union-attr]


LISTING = re.compile(rb"<title>Directory listing for|<h1>Index of ", re.I)


def crawl_http(origin: str, start: str) -> tuple[set[str], list[str]]:
    """Follow every link from `start` on a served site; (pages reached, problems found).

    A problem is a link that does not answer 200, an anchor not on the page it leads to,
    a folder's listing where a page should be, or a page that does not answer the same
    with and without its trailing slash.
    """
    cache: dict[str, Fetched] = {}
    readers: dict[str, PageReader] = {}
    problems: list[str] = []

    def get(path: str) -> Fetched:
        if path not in cache:
            cache[path] = fetch(origin + path)
        return cache[path]

    def reader(answer: Fetched) -> PageReader:
        if answer.url not in readers:
            readers[answer.url] = PageReader()
            readers[answer.url].feed(answer.body.decode("utf-8"))
        return readers[answer.url]

    pages: set[str] = set()
    queue = [start]
    while queue:
        path = queue.pop()
        if path in pages:
            continue
        pages.add(path)
        answer = get(path)
        if LISTING.search(answer.body):
            problems.append(f"{path}: a folder's listing")
            continue
        problems += _other_form(origin, path, answer)
        for link in reader(answer).links:
            target = urlsplit(urljoin(answer.url, link))
            if (
                target.scheme not in ("http", "https")
                or f"{target.scheme}://{target.netloc}" != origin
            ):
                continue
            found = get(target.path)
            if found.status != 200:
                problems.append(f"{path}: {link} answers {found.status}")
            elif found.kind.startswith("text/html"):
                queue.append(target.path)
                if target.fragment and target.fragment not in reader(found).ids:
                    problems.append(f"{path}: no #{target.fragment} on {target.path}")
    return pages, problems


def _other_form(origin: str, path: str, answer: Fetched) -> list[str]:
    """A page must answer the same at its URL with and without the trailing slash."""
    if not answer.kind.startswith("text/html") or path == "/" or "." in path.rsplit("/", 1)[-1]:
        return []
    other = path.removesuffix("/") if path.endswith("/") else path + "/"
    again = fetch(origin + other)
    if again.status != answer.status or again.body != answer.body:
        return [f"{other} answers {again.status}, not as {path} does ({answer.status})"]
    return []
