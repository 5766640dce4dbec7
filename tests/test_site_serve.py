"""`serve`: files found as static hosts find them, errors shown in the page, reload on change."""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from site_fixtures import build, write_record

from sourcebook.live import LiveSite
from sourcebook.publish.site.serving.serve import SiteServer, make_server, resolve


def get(url: str) -> tuple[int, str, dict[str, str]]:
    request = urllib.request.Request(url)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
            return response.status, response.read().decode(), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), dict(error.headers)


def running(server: SiteServer) -> Iterator[str]:
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.url
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return build(write_record(tmp_path / "record"))


@pytest.fixture
def static(site: Path) -> Iterator[str]:
    yield from running(make_server(site, port=0, base_path="/vol1"))


def test_pages_are_found_at_their_bare_urls(static: str) -> None:
    status, html, headers = get(static + "/vol1/glossary/cluster")
    assert status == 200 and ">Cluster</h1>" in html
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert get(static + "/vol1/")[0] == 200
    assert get(static + "/vol1/static/site.css")[2]["Content-Type"].startswith("text/css")
    assert "__sourcebook" not in html


def test_the_root_leads_to_the_volume(static: str) -> None:
    status, html, _ = get(static + "/")
    assert status == 200 and "<title>The record ·" in html


def test_a_missing_page_is_the_404_page(static: str) -> None:
    status, html, _ = get(static + "/vol1/no-such-page")
    assert status == 404 and "<h1>Not found</h1>" in html


def test_nothing_outside_the_site_is_served(site: Path) -> None:
    assert resolve(site, "/../../etc/passwd") is None
    assert resolve(site, "/vol1/../../record/sourcebook.toml") is None
    assert resolve(site, "/vol1/glossary/") == (site / "vol1" / "glossary" / "index.html").resolve()
    assert resolve(site, "/vol1/glossary") is None  # a folder: answered by a redirect
    assert resolve(site, "/vol1/") == (site / "vol1" / "index.html").resolve()


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveSite]:
    site = LiveSite(write_record(tmp_path / "record"))
    site.rebuild()
    yield site
    site.close()


def test_a_live_site_injects_the_reload_script_and_answers_waits(live: LiveSite) -> None:
    server = SiteServer(live.site, port=0, live=live)
    server.wait_seconds = 0.2
    for url in running(server):
        status, html, _ = get(url + "/vol1/glossary/cluster")
        assert status == 200
        assert f'<script src="/__sourcebook/reload.js" data-version="{live.version}">' in html
        assert html.index("reload.js") < html.index("</body>")
        assert "location.reload" in get(url + "/__sourcebook/reload.js")[1]
        assert get(url + f"/__sourcebook/wait?version={live.version}")[1] == (
            f'{{"version": {live.version}}}'
        )
        live.rebuild()
        assert get(url + "/__sourcebook/wait?version=1")[1] == '{"version": 2}'


def test_errors_are_shown_in_the_page_with_file_and_line(live: LiveSite) -> None:
    cluster = live.root / "terms" / "cluster.md"
    cluster.write_text(cluster.read_text().replace("[chapter-1]", "[chapter-9]"))
    live.rebuild()
    assert live.errors
    for url in running(SiteServer(live.site, port=0, live=live)):
        status, html, _ = get(url + "/vol1/glossary/cluster")
        assert status == 500
        assert "The record has 1 error" in html
        assert "terms/cluster.md:4:" in html and "L001" in html
        assert "unknown chapter id &#x27;chapter-9&#x27;" in html
        assert get(url + "/vol1/static/site.css")[0] == 200
        cluster.write_text(cluster.read_text().replace("[chapter-9]", "[chapter-1]"))
        live.rebuild()
        status, html, _ = get(url + "/vol1/glossary/cluster")
        assert status == 200 and ">Cluster</h1>" in html


def test_a_broken_template_is_shown_not_raised(live: LiveSite) -> None:
    (live.root / "templates").mkdir()
    (live.root / "templates" / "term.html").write_text("{% broken %}")
    live.rebuild()
    assert "broken" in live.failure
    assert b"broken" in live.error_page()


def test_a_change_to_the_record_rebuilds_the_site(live: LiveSite) -> None:
    stop = threading.Event()
    built: list[int] = []
    started = threading.Event()
    watcher = threading.Thread(
        target=live.watch, args=(stop, lambda s: built.append(s.version), started)
    )
    watcher.start()
    try:
        assert started.wait(60), "the watch is not on"
        term = live.root / "terms" / "cluster.md"
        term.write_text(term.read_text().replace("one machine", "one computer"))
        deadline = time.monotonic() + 60
        while not built and time.monotonic() < deadline:
            time.sleep(0.1)
        assert built, "no rebuild after the change"
        html = (live.site / "vol1" / "glossary" / "cluster" / "index.html").read_text()
        assert "one computer" in html
    finally:
        stop.set()
        watcher.join(timeout=10)


def test_a_save_reads_again_only_the_file_it_changed(live: LiveSite) -> None:
    parsed = live.kept.parsed
    files = len(parsed)
    assert files > 1 and parsed.misses == files  # the first build parsed every file
    term = live.root / "terms" / "cluster.md"
    term.write_text(term.read_text().replace("one machine", "one computer"))
    live.rebuild()
    assert parsed.misses == files + 1 and parsed.hits == files - 1
    html = (live.site / "vol1" / "glossary" / "cluster" / "index.html").read_text()
    assert "one computer" in html
