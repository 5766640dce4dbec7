"""A watch killed half-way, or stopped by its budget, is taken up by the next, which visits
again nothing the first wrote down: not a page, not a robots.txt. One watch of a record
runs at a time.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest
from library_server import Server, reply, serving
from watch_fixtures import FILLER, Cited, article, log_of, watch, watched_record

PAGES = 5
QUOTE = "Construction crews worked through the summer"


def _page(n: int) -> bytes:
    return article(f"Page {n}", FILLER, f"This is page {n}.")


@pytest.fixture
def site() -> Iterator[tuple[Server, threading.Event]]:
    """Pages /p1 … /p5 on one host; /p3 holds its answer until the event is set."""
    released = threading.Event()

    def held(handler) -> None:
        released.wait(60)
        reply(_page(3))(handler)

    with serving() as server:
        for n in range(1, PAGES + 1):
            server.route(f"/p{n}", held if n == 3 else reply(_page(n)))
        yield server, released
        released.set()


def _record(tmp_path, server: Server):
    sources = [Cited(f"s{n}", f"{server.url}/p{n}", _page(n), QUOTE) for n in range(1, PAGES + 1)]
    return watched_record(tmp_path / "record", sources)


def _wait_for(server: Server, path: str) -> None:
    """Until the server has been asked for `path` (a minute at most: no race, a bound)."""
    deadline = time.monotonic() + 60
    while not any(seen == path for seen, _host in server.seen):
        assert time.monotonic() < deadline, f"{path} was never asked for"
        time.sleep(0.02)


def _asked(server: Server) -> dict[str, int]:
    counts: dict[str, int] = {}
    for path, _host in server.seen:
        counts[path] = counts.get(path, 0) + 1
    return counts


def test_a_killed_watch_is_taken_up_and_visits_nothing_it_wrote_down_again(tmp_path, site) -> None:
    server, released = site
    record = _record(tmp_path, server)
    first = subprocess.Popen(
        [sys.executable, "-m", "sourcebook", "watch", str(record), "--delay", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for(server, "/p3")  # p1 and p2 are visited and written; p3 is in flight
        meanwhile = watch(record)
        assert meanwhile.returncode == 1
        assert "another watch of this record is running" in meanwhile.stderr
    finally:
        os.kill(first.pid, signal.SIGKILL)
        first.wait(30)
    released.set()
    written = sorted(p.name for p in (record / "watch").iterdir())
    assert written == ["s1.jsonl", "s2.jsonl"]  # whole lines, and no run finished yet

    resumed = watch(record)
    assert resumed.returncode == 0, resumed.stderr
    assert "watched 5 of 5 addresses, 2 of them before the watch was stopped" in resumed.stdout
    asked = _asked(server)
    # robots.txt, p1 and p2 once; p3 again, since nothing of the visit in flight was kept
    assert asked == {"/robots.txt": 1, "/p1": 1, "/p2": 1, "/p3": 2, "/p4": 1, "/p5": 1}
    runs = {line["run"] for n in range(1, PAGES + 1) for line in log_of(record, f"s{n}")}
    assert len(runs) == 1  # one run, taken up where it stopped
    assert all(len(log_of(record, f"s{n}")) == 1 for n in range(1, PAGES + 1))
    assert len((record / "watch" / "_runs.jsonl").read_text().splitlines()) == 1


def test_a_watch_stopped_by_its_budget_is_taken_up_by_the_next(tmp_path) -> None:
    with serving() as server:
        for n in range(1, PAGES + 1):
            server.route(f"/p{n}", reply(_page(n)))
        server.route("/robots.txt", reply(b"", "text/plain"))  # it costs no byte of the budget
        record = _record(tmp_path, server)
        page = len(_page(1))
        stopped = watch(record, "--total-bytes", str(2 * page + page // 2))
        assert stopped.returncode == 0, stopped.stderr
        assert "stopped at the watch's budget" in stopped.stdout
        assert not (record / "watch" / "_runs.jsonl").exists()
        done = sum((record / "watch" / f"s{n}.jsonl").exists() for n in range(1, PAGES + 1))
        assert done == 2
        finished = watch(record)
        assert finished.returncode == 0, finished.stderr
        assert "watched 5 of 5 addresses, 2 of them before" in finished.stdout
        assert all(len(log_of(record, f"s{n}")) == 1 for n in range(1, PAGES + 1))
        asked = _asked(server)
        written_first = [f"/p{n}" for n in (1, 2)]
        assert all(asked[path] == 1 for path in written_first)
        assert asked["/robots.txt"] == 1
        again = watch(record, "--fresh")  # a new run visits every address once more
        assert "watched 5 of 5 addresses on" in again.stdout.replace(",", "")
        assert all(len(log_of(record, f"s{n}")) == 2 for n in range(1, PAGES + 1))
