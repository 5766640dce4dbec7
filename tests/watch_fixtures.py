"""Records whose sources live on servers on 127.0.0.1, for `sourcebook watch` tests.

`watched_record` writes a record whose every source has one address on a local server and
a Library copy of what that address first served (taken in through the Library's own
store, as `library add` takes a page), with a curly quote of that copy in its annotation,
so that check proves it. The servers answer whatever each test routes (see
`library_server`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from library_server import Answer

SETTINGS = """\
[book]
title = "A Watched Book"
house = "HOUSE"
closes = 2026-11-08

[site]
base_url = "https://watched.example"
base_path = "/vol1"
"""
CHAPTER = "---\ntitle: The Stakes\nnumber: 1\nsummary: What the race is for.\n---\n"


def article(title: str, *paragraphs: str) -> bytes:
    """An HTML article: its title and paragraphs, as a news site serves one."""
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        f"<!doctype html><html><head><title>{title}</title></head><body>"
        f"<nav>Home · World · Business</nav><article><h1>{title}</h1>{body}</article>"
        "<footer>© The Paper</footer></body></html>"
    ).encode()


FILLER = (
    "The campus sits on a former cotton field beside a substation that the utility built "
    "for it. Construction crews worked through the summer, and the first hall was energized "
    "in the autumn, according to people familiar with the matter. Analysts expect the "
    "operator to add more halls as chips arrive from the foundry in Taiwan."
)


@dataclass(frozen=True)
class Cited:
    """A source of the record: its id, its address, the page its copy was taken from, and
    the quote its annotation makes of that page."""

    id: str
    url: str
    page: bytes
    quote: str
    category: str = "press"
    date: str = "2025-06-01"


def watched_record(root: Path, sources: list[Cited], settings: str = SETTINGS) -> Path:
    """A record at `root` citing `sources`, each with its copy in the Library."""
    from sourcebook.library.attach import attach
    from sourcebook.library.store import Original, add_original

    root.mkdir(parents=True, exist_ok=True)
    (root / "sourcebook.toml").write_text(settings, encoding="utf-8")
    (root / "chapters").mkdir(exist_ok=True)
    (root / "chapters" / "chapter-1.md").write_text(CHAPTER, encoding="utf-8")
    (root / "sources").mkdir(exist_ok=True)
    for cited in sources:
        path = root / "sources" / f"{cited.id}.md"
        path.write_text(
            textwrap.dedent(
                f"""\
                ---
                title: "{cited.id.replace("-", " ").title()}"
                category: {cited.category}
                date: {cited.date}
                urls: [{cited.url}]
                annotation: The report says “{cited.quote}”.
                ---
                """
            ),
            encoding="utf-8",
        )
        original = Original(
            data=cited.page,
            name="index.html",
            media_type="text/html; charset=utf-8",
            url=cited.url,
            captured="2026-10-01",
            by="A. Tester",
            how="taken for the test",
        )
        item, _new = add_original(root, original)
        attach(path, item.shelf)
    return root


def watch(record: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`sourcebook watch RECORD ARGS` as a user runs it, quick manners for a test: no delay
    between requests, two at once per host."""
    return subprocess.run(
        [sys.executable, "-m", "sourcebook", "watch", str(record), "--delay", "0", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "SOURCEBOOK_CURATOR": "A. Tester"},
    )


def check_json(record: Path) -> dict:
    """`sourcebook check --format json` of the record, parsed."""
    done = subprocess.run(
        [sys.executable, "-m", "sourcebook", "check", str(record), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return json.loads(done.stdout)


def diagnostics_of(checked: dict, source: str) -> list[dict]:
    """The diagnostics check gave at one source's file."""
    return [d for d in checked["diagnostics"] if d["file"].endswith(f"sources/{source}.md")]


def log_of(record: Path, source: str) -> list[dict]:
    """The lines of a source's watch log, parsed."""
    path = record / "watch" / f"{source}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def redirect(location: str, status: int = 301) -> Answer:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        handler.send_header("Location", location)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return answer


def changing(pages: list[bytes], etag: bool = False) -> tuple[Answer, Callable[[int], None]]:
    """An answer that serves `pages[i]`, and a function that sets `i`; with `etag`, each
    page has an ETag, and a request that names the one served gets 304."""
    now = [0]

    def answer(handler: BaseHTTPRequestHandler) -> None:
        tag = f'"v{now[0]}"'
        if etag and handler.headers.get("If-None-Match") == tag:
            handler.send_response(304)
            handler.send_header("ETag", tag)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        body = pages[now[0]]
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html; charset=utf-8")
        if etag:
            handler.send_header("ETag", tag)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    def turn(index: int) -> None:
        now[0] = index

    return answer, turn
