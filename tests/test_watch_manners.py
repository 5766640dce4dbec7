"""A watch's manners, counted at the server: never more requests at once to one host than
`--per-host` allows, and requests spread over at least the time `--delay` asks."""

from __future__ import annotations

import threading
import time

import pytest
from library_server import reply, serving
from watch_fixtures import FILLER, Cited, article, watch, watched_record

PAGES = 6
QUOTE = "Construction crews worked through the summer"


@pytest.mark.parametrize(("per_host", "delay"), [(1, "0.3"), (2, "0")])
def test_one_host_is_asked_politely(tmp_path, per_host: int, delay: str) -> None:
    lock = threading.Lock()
    open_now = [0]
    most = [0]
    starts: list[float] = []
    # with two lanes, the first two pages wait for each other (a minute at most): they
    # can meet only if both are asked at once
    together = threading.Barrier(2, timeout=60)

    def slow_page(n: int):
        page = article(f"Page {n}", FILLER, f"Page {n}.")

        def answer(handler) -> None:
            with lock:
                open_now[0] += 1
                most[0] = max(most[0], open_now[0])
                starts.append(time.monotonic())
            if per_host == 2 and n <= 2:
                together.wait()
            else:
                time.sleep(0.05)
            with lock:
                open_now[0] -= 1
            reply(page)(handler)

        return answer, page

    with serving() as server:
        sources = []
        for n in range(1, PAGES + 1):
            answer, page = slow_page(n)
            sources.append(Cited(f"s{n}", server.route(f"/p{n}", answer), page, QUOTE))
        record = watched_record(tmp_path / "record", sources)
        done = watch(record, "--per-host", str(per_host), "--delay", delay)
    assert done.returncode == 0, done.stderr
    assert len(starts) == PAGES
    assert most[0] <= per_host
    if per_host == 2:
        assert most[0] == 2 and not together.broken
    # The watch starts a request to the host no sooner than `delay` after the one before,
    # so the sixth starts five delays after the first at the least. Seen at the server,
    # one request may be late to arrive: a whole delay is left for that.
    assert starts[-1] - starts[0] >= (PAGES - 2) * float(delay)
