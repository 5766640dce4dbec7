#!/usr/bin/env python3
"""Sign-ups per second of `sourcebook notify serve`, on SQLite and on PostgreSQL.

    python bench/bench_notify.py [--requests 2000] [--clients 50] [--databases sqlite,postgresql]

For each database the service runs as its own process on 127.0.0.1 (uvicorn, one worker,
with its sender delivering to an SMTP server in this process), and `--clients` concurrent
clients post `--requests` sign-ups (after 200 not counted, to warm the server up), each of
a new address, as the form does. It prints the
sign-ups per second, the median and 99th-percentile latency, how many emails were
delivered meanwhile, and the machine's load average before and after (the machine is
shared: read the figures with it). PostgreSQL is the one named by SOURCEBOOK_BENCH_POSTGRES
or SOURCEBOOK_TEST_POSTGRES (a schema of its own, dropped after). Nothing leaves
127.0.0.1. This is not a test: the suite never runs it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import httpx
from installed import as_installed

SECRET = secrets.token_urlsafe(48)
WARM_UP = 200
"""Sign-ups sent first and not counted: the server's first requests also warm it up."""
SITE = "http://127.0.0.1:8999"
SETTINGS = """\
[book]
title = "The AI Compute Race"
house = "DRYBURGH"
closes = 2026-11-08

[site]
base_url = "{site}"
base_path = "/vol1"

[notify]
url = "http://127.0.0.1:{port}"
sender = "DRYBURGH <news@dryburgh.test>"
smtp_host = "127.0.0.1"
smtp_port = {smtp_port}
smtp_security = "none"
signups_per_client_hour = 1000000
"""


class Sink:
    def __init__(self) -> None:
        self.received = 0

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        self.received += 1
        return "250 OK"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def database(kind: str, folder: Path) -> Iterator[str]:
    if kind == "sqlite":
        yield str(folder / "bench.sqlite3")
        return
    import psycopg

    url = os.environ.get("SOURCEBOOK_BENCH_POSTGRES") or os.environ["SOURCEBOOK_TEST_POSTGRES"]
    schema = f"bench_{secrets.token_hex(4)}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
    try:
        joiner = "&" if "?" in url else "?"
        yield f"{url}{joiner}options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")


@contextmanager
def service(record: Path, target: str, port: int) -> Iterator[str]:
    env = {**os.environ, "SOURCEBOOK_NOTIFY_SECRET": SECRET}
    command = [sys.executable, "-m", "sourcebook", "notify", "serve", str(record)]
    process = subprocess.Popen(
        [*command, "--db", target, "--port", str(port)], env=env, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)


async def load(
    url: str, statement: str, requests: int, clients: int, first: int = 0
) -> tuple[float, list[float]]:
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(first, first + requests):
        queue.put_nowait(i)
    latencies: list[float] = []
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)

    async with httpx.AsyncClient(limits=limits, timeout=30) as client:

        async def worker() -> None:
            while not queue.empty():
                i = queue.get_nowait()
                form = {"email": f"r{i}@example.org", "consent": "yes", "statement": statement}
                started = time.perf_counter()
                answer = await client.post(f"{url}/signup", data=form, headers={"Origin": SITE})
                latencies.append(time.perf_counter() - started)
                assert answer.status_code == 303, answer.status_code

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
    return time.perf_counter() - started, latencies


def run(kind: str, requests: int, clients: int) -> None:
    from aiosmtpd.controller import Controller

    from sourcebook.notify.policy import statement

    sink, smtp_port, port = Sink(), free_port(), free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=smtp_port)
    controller.start()
    try:
        with tempfile.TemporaryDirectory() as folder, database(kind, Path(folder)) as target:
            record = Path(folder) / "record"
            record.mkdir()
            (record / "sourcebook.toml").write_text(
                SETTINGS.format(site=SITE, port=port, smtp_port=smtp_port)
            )
            with service(record, target, port) as url:
                sha256 = statement("The AI Compute Race", "DRYBURGH").sha256
                asyncio.run(load(url, sha256, WARM_UP, clients, first=requests))
                load_before = os.getloadavg()
                seconds, latencies = asyncio.run(load(url, sha256, requests, clients))
                load_after = os.getloadavg()
    finally:
        controller.stop()
    latencies.sort()
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
    print(
        f"{kind:10} {requests} sign-ups, {clients} clients: {requests / seconds:7.1f} /s, "
        f"p50 {p50:6.1f} ms, p99 {p99:6.1f} ms, {sink.received} emails delivered meanwhile; "
        f"load {load_before[0]:.2f} before, {load_after[0]:.2f} after ({os.cpu_count()} cores)"
    )


def main() -> None:
    as_installed()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--databases", default="sqlite,postgresql")
    options = parser.parse_args()
    for kind in options.databases.split(","):
        run(kind, options.requests, options.clients)


if __name__ == "__main__":
    main()
