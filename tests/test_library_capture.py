"""Capturing a URL: fetched from a local server on 127.0.0.1, kept as WARC, replayable."""

from __future__ import annotations

import gzip
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import REPO

from sourcebook.library.intake import Details, take_in
from sourcebook.library.refusal import Refused

PAGE = (REPO / "tests" / "corpus" / "library" / "article.html").read_bytes()


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
        if self.path == "/old":
            self.send_response(301)
            self.send_header("Location", "/story.html")
            self.end_headers()
            return
        if self.path != "/story.html":
            self.send_error(404)
            return
        body = gzip.compress(PAGE)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()
    thread.join()


@pytest.fixture
def record(make_record):
    return make_record({"sources/story.md": "---\ntitle: Story\ncategory: press\n---\n"})


def test_url_is_captured_with_its_text_and_a_warc_record(server, record) -> None:
    from warcio.archiveiterator import ArchiveIterator

    intake = take_in(record, f"{server}/old", Details(captured="2026-10-12"), "story")
    item = intake.item
    assert item.kind.value == "html"
    assert item.url == f"{server}/story.html"
    assert item.media_type == "text/html"
    assert item.title and item.title.startswith("Elon Musk’s xAI")
    assert item.warc == "S1.warc.gz"
    assert "doubling it to an insane 200,000" in (record / "library" / "S1.txt").read_text(
        encoding="utf-8"
    )
    seen = {}
    with open(record / "library" / "S1.warc.gz", "rb") as stream:
        for warc in ArchiveIterator(stream):
            uri = warc.rec_headers.get_header("WARC-Target-URI")
            seen[warc.rec_type] = (uri, warc.http_headers, warc.content_stream().read())
    uri, headers, body = seen["response"]
    assert uri == f"{server}/story.html"
    assert headers.get_statuscode() == "200"
    assert body == PAGE
    assert seen["request"][1].statusline == "/story.html HTTP/1.1"


def test_the_same_page_captured_again_is_the_same_item(server, record) -> None:
    first = take_in(record, f"{server}/story.html", Details(), None)
    second = take_in(record, f"{server}/story.html", Details(), None)
    assert (first.item.shelf, second.item.shelf, second.new) == ("S1", "S1", False)


def test_a_missing_page_is_refused(server, record) -> None:
    with pytest.raises(Refused, match="answered 404"):
        take_in(record, f"{server}/gone", Details(), None)
    assert not (record / "library" / "S1.yaml").exists()
