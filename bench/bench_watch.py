#!/usr/bin/env python3
"""Time `sourcebook watch` over a synthetic record of 1,000 sources served on 127.0.0.1.

    python bench/bench_watch.py [--sources 1000] [--hosts 40] [--delay 0.2]
                                [--at-once 16] [--seed 0]

A record is generated (`generate.py`) with enough entities for `--sources` sources, and
every source's address is pointed at one of `--hosts` web servers on 127.0.0.1 (each a
host of its own, on its own port), which serve what the web does to a record's sources,
drawn at random: most pages as their Library copy holds them, and some dead (404, 410,
500, a host that refuses connections, one that never answers in time), moved (301),
soft-dead (a parked domain, a login wall), changed under their quotes, or forbidden by
robots.txt. Every server sends an ETag and answers 304 to a request that names it.

The record is watched twice, four days apart, as `sourcebook watch` runs for a user (in a
process of its own, `--delay` seconds between two requests to one host, `--at-once` hosts
at once, a 2-second budget per address); each watch's time, requests and bytes are
printed, then the warnings check gives of the log, by code.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from generate import counts, generate
from installed import as_installed

FATES = {
    "live": 0.70,
    "404": 0.04,
    "410": 0.02,
    "500": 0.02,
    "moved": 0.06,
    "parked": 0.03,
    "login": 0.02,
    "changed": 0.06,
    "forbidden": 0.02,
    "refused": 0.02,
    "slow": 0.01,
}
"""What the web does to a source's page, and how often."""
PARKED = (
    b"<!doctype html><title>example.org</title><p>This domain is for sale! Buy this domain.</p>"
)
LOGIN = (
    b"<!doctype html><title>Sign in</title><main><h1>Please sign in to continue</h1>"
    b"<form><input type=password name=p></form></main>"
)
Answer = Callable[[BaseHTTPRequestHandler], None]


@dataclass
class Host:
    """A web server on 127.0.0.1 answering what `routes` say, counting what it is asked."""

    routes: dict[str, Answer]
    url: str = ""
    asked: int = 0
    server: ThreadingHTTPServer | None = None


def _send(body: bytes, status: int = 200, **headers: str) -> Answer:
    tag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'

    def answer(handler: BaseHTTPRequestHandler) -> None:
        if status == 200 and handler.headers.get("If-None-Match") == tag:
            handler.send_response(304)
            handler.send_header("ETag", tag)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        handler.send_response(status)
        html = body[:15].lower().startswith(b"<!doctype") or not body
        kind = "text/html" if html else "text/plain"
        handler.send_header("Content-Type", f"{kind}; charset=utf-8")
        if status == 200:
            handler.send_header("ETag", tag)
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return answer


def _slow(handler: BaseHTTPRequestHandler) -> None:
    time.sleep(5)


@contextlib.contextmanager
def serving(hosts: list[Host]) -> Iterator[None]:
    threads = []
    for host in hosts:

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            mine = host

            def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
                self.mine.asked += 1
                answer = self.mine.routes.get(self.path)
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    if answer is None:
                        self.send_error(404)
                    else:
                        answer(self)

            def log_message(self, format: str, *args: object) -> None:
                return

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        host.server, host.url = server, f"http://127.0.0.1:{server.server_address[1]}"
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        threads.append(thread)
    try:
        yield
    finally:
        for host in hosts:
            assert host.server is not None
            host.server.shutdown()
            host.server.server_close()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def entities_for(sources: int) -> int:
    """The smallest record `generate.py` writes with at least `sources` sources."""
    n = sources
    while counts(n)["source"] < sources:
        n += max(1, (sources - counts(n)["source"]) // 2)
    return n


def place(record: Path, hosts: list[Host], rng: random.Random) -> Counter[str]:
    """Point every source's address at a host, route what its fate says, and write the new
    address into the source and its Library copy; the fates drawn, counted."""
    library = record / "library"
    copies = {}
    for meta in library.glob("S*.yaml"):
        text = meta.read_text(encoding="utf-8")
        url = next(line[5:].strip('" ') for line in text.splitlines() if line.startswith("url: "))
        sha = next(
            line[8:].strip('" ') for line in text.splitlines() if line.startswith("sha256: ")
        )
        copies[url] = (meta, library / "objects" / sha[:2] / sha)
    refused = f"http://127.0.0.1:{_closed_port()}"
    fates: Counter[str] = Counter()
    for source in sorted((record / "sources").glob("*.md")):
        text = source.read_text(encoding="utf-8")
        old = next(line for line in text.splitlines() if line.startswith("urls: "))[7:-1].strip('"')
        fate = rng.choices(list(FATES), weights=list(FATES.values()))[0]
        copy = copies.get(old)
        if copy is None and fate == "changed":
            fate = "live"
        host = hosts[rng.randrange(len(hosts))]
        path = "/" + source.stem
        body = (
            copy[1].read_bytes() if copy else b"<!doctype html><title>A page</title><p>A page.</p>"
        )
        new = _route(host, path, fate, body, record, source.stem)
        if fate == "refused":
            new = refused + path
        fates[fate] += 1
        source.write_text(text.replace(old, new), encoding="utf-8")
        if copy is not None:
            meta = copy[0]
            meta.write_text(meta.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    for host in hosts:
        host.routes["/robots.txt"] = _send(b"User-agent: *\nDisallow: /private/\n")
    return fates


def _route(host: Host, path: str, fate: str, body: bytes, record: Path, stem: str) -> str:
    routes = host.routes
    if fate == "live":
        routes[path] = _send(body)
    elif fate in ("404", "410", "500"):
        routes[path] = _send(b"<p>No.</p>", int(fate))
    elif fate == "moved":
        routes[path] = _send(b"", 301, Location=f"/moved{path}")
        routes[f"/moved{path}"] = _send(body)
    elif fate == "parked":
        routes[path] = _send(PARKED)
    elif fate == "login":
        routes[path] = _send(LOGIN)
    elif fate == "changed":
        routes[path] = _send(_without_quotes(body, record, stem))
    elif fate == "forbidden":
        routes[f"/private{path}"] = _send(body)
        return f"{host.url}/private{path}"
    elif fate == "slow":
        routes[path] = _slow
    return host.url + path


def _without_quotes(body: bytes, record: Path, stem: str) -> bytes:
    """The page with the words of every quote of its source taken out of it."""
    text = (record / "sources" / f"{stem}.md").read_text(encoding="utf-8")
    page = body.decode("utf-8")
    for part in text.split("“")[1:]:
        quote = " ".join(part.split("”", 1)[0].split())
        page = page.replace(quote, "words the page no longer says")
    return page.encode("utf-8")


def watch(record: Path, day: str, args: argparse.Namespace) -> tuple[dict, float]:
    started = time.monotonic()
    done = subprocess.run(
        [
            sys.executable, "-m", "sourcebook", "watch", str(record), "--format", "json",
            "--day", day, "--delay", str(args.delay), "--hosts", str(args.at_once),
            "--timeout", "2",
        ],
        capture_output=True,
        text=True,
        check=True,
    )  # fmt: skip
    return json.loads(done.stdout), time.monotonic() - started


def main() -> None:
    as_installed()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", type=int, default=1000)
    parser.add_argument("--hosts", type=int, default=40)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--at-once", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-watch-"))
    try:
        record = folder / "record"
        n = entities_for(args.sources)
        generate(n, record, args.seed)
        hosts = [Host({}) for _ in range(args.hosts)]
        with serving(hosts):
            fates = place(record, hosts, random.Random(args.seed))
            print(
                f"a record of {n:,} entities, {sum(fates.values()):,} sources on {args.hosts} hosts"
            )
            print(
                "what the web did to them: " + ", ".join(f"{k} {v}" for k, v in fates.most_common())
            )
            print(f"manners: --delay {args.delay} --hosts {args.at_once} --timeout 2")
            for label, day in (
                ("first watch", "2026-11-10"),
                ("second watch, four days on", "2026-11-14"),
            ):
                before = sum(h.asked for h in hosts)
                done, seconds = watch(record, day, args)
                served = sum(h.asked for h in hosts) - before
                print(
                    f"{label}: {done['visited']:,} addresses in {seconds:.1f} s (the watch's "
                    f"own {done['seconds']:.1f} s): {done['requests']:,} requests "
                    f"({served:,} answered by the servers), {done['bytes']:,} bytes"
                )
        checked = subprocess.run(
            [sys.executable, "-m", "sourcebook", "check", str(record), "--format", "json"],
            capture_output=True,
            text=True,
        )
        found = Counter(d["code"] for d in json.loads(checked.stdout)["diagnostics"])
        watch_codes = {code: count for code, count in sorted(found.items()) if code.startswith("W")}
        print(
            "check's warnings of the log: " + ", ".join(f"{c} {n}" for c, n in watch_codes.items())
        )
        report = subprocess.run(
            [sys.executable, "-m", "sourcebook", "watch", "--report", str(record)],
            capture_output=True,
            text=True,
        )
        print(report.stdout, end="")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
