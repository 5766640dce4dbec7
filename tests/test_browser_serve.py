"""`serve` in the browser: an open page reloads when the record changes, and shows errors."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from site_fixtures import write_record

from sourcebook.live import LiveSite
from sourcebook.publish.site.serving.serve import SiteServer

pytestmark = pytest.mark.browser


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[LiveSite, str]]:
    live = LiveSite(write_record(tmp_path / "record"))
    live.rebuild()
    server = SiteServer(live.site, port=0, live=live)
    stop = threading.Event()
    started = threading.Event()
    threads = [
        threading.Thread(target=server.serve_forever, daemon=True),
        threading.Thread(target=live.watch, args=(stop, None, started), daemon=True),
    ]
    for thread in threads:
        thread.start()
    assert started.wait(60), "the watch is not on"
    try:
        yield live, server.url
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
        threads[1].join(timeout=10)
        live.close()


def test_the_open_page_follows_the_record(browser: Any, served: tuple[LiveSite, str]) -> None:
    live, origin = served
    term = live.root / "terms" / "cluster.md"
    page = browser.new_page()
    page.goto(f"{origin}/vol1/glossary/cluster")
    assert "one machine" in page.locator(".definition dd").inner_text()
    term.write_text(term.read_text().replace("one machine", "one computer"))
    page.wait_for_function(
        "() => document.querySelector('.definition dd').textContent.includes('one computer')",
        timeout=20_000,
    )
    term.write_text(term.read_text().replace("[chapter-1]", "[chapter-9]"))
    page.wait_for_selector("h1:text-is('The record has 1 error')", timeout=20_000)
    error = page.locator("ol.diagnostics li").inner_text()
    assert "terms/cluster.md:4:" in error and "unknown chapter id 'chapter-9'" in error
    term.write_text(term.read_text().replace("[chapter-9]", "[chapter-1]"))
    page.wait_for_selector("h1:text-is('Cluster')", timeout=20_000)
