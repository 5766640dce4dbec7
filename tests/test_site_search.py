"""The search index and the previews file, as the build writes them and `serve` serves them."""

from __future__ import annotations

import json
import threading
import urllib.request
from pathlib import Path

import pytest
from selectolax.lexbor import LexborHTMLParser as HTMLParser
from site_fixtures import build, page, write_record

from sourcebook.live import LiveSite
from sourcebook.publish.site import BuildError
from sourcebook.publish.site.search.index import SearchError, SearchJob
from sourcebook.publish.site.search.live_index import LiveSearch
from sourcebook.publish.site.serving.serve import SiteServer


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(write_record(tmp_path_factory.mktemp("record")))


def previews(site: Path) -> dict[str, list[str]]:
    return json.loads((site / "vol1" / "previews.json").read_text(encoding="utf-8"))


def buckets(site: Path) -> list[Path]:
    """The folders of the search index's buckets, as its list names them."""
    index = site / "vol1" / "pagefind"
    listed = json.loads((index / "index.json").read_text(encoding="utf-8"))["buckets"]
    return [index / name for name in listed]


def test_the_build_writes_the_index_inside_the_site(site: Path) -> None:
    assert len(buckets(site)) == 1  # a small site is one bucket, searched as one index
    bundle = buckets(site)[0]
    assert (bundle / "pagefind.js").stat().st_size > 1000
    assert (bundle / "pagefind-entry.json").is_file()
    assert list(bundle.glob("wasm.*.pagefind")) and list(bundle.glob("fragment/*"))
    # Only what the site's own search page uses: none of Pagefind's ready-made interfaces.
    assert (
        not list(bundle.glob("pagefind-*ui*")) and not (bundle / "pagefind-highlight.js").exists()
    )
    entry = json.loads((bundle / "pagefind-entry.json").read_text())
    assert entry["languages"]["en"]["page_count"] > 20


def test_each_page_tells_search_its_kind_first_line_and_url(site: Path) -> None:
    main = HTMLParser(page(site, "/vol1/ledger/colossus-2")).css_first("main").attributes
    assert "data-pagefind-body" in main
    assert main["data-kind"] == "Campus" and main["data-url"] == "/vol1/ledger/colossus-2"
    assert main["data-summary"].startswith("Memphis, Tennessee, US · operating")
    listing = HTMLParser(page(site, "/vol1/ledger")).css_first("main").attributes
    assert listing["data-kind"] == "Page" and listing["data-summary"] == ""
    source = HTMLParser(page(site, "/vol1/sources/company/supermicro-colossus-case"))
    assert source.css_first("main").attributes["data-kind"] == "Source"
    assert source.css_first("h1").attributes["data-pagefind-weight"] == "10"
    for url in ("/vol1/search", "/404.html"):
        assert "data-pagefind-body" not in HTMLParser(page(site, url)).css_first("main").attributes


def test_backlinks_are_left_out_of_the_index(site: Path) -> None:
    tree = HTMLParser(page(site, "/vol1/glossary/cluster"))
    sections = tree.css("section.backlinks")
    assert sections and all("data-pagefind-ignore" in s.attributes for s in sections)


def test_only_the_search_page_allows_webassembly(site: Path) -> None:
    def policy(url: str) -> str:
        tree = HTMLParser(page(site, url))
        return tree.css_first('meta[http-equiv="Content-Security-Policy"]').attributes["content"]

    assert "script-src 'self' 'wasm-unsafe-eval';" in policy("/vol1/search")
    for url in ("/vol1/", "/vol1/glossary/cluster", "/vol1/ledger", "/404.html"):
        assert "wasm-unsafe-eval" not in policy(url) and "script-src 'self';" in policy(url)
    assert "unsafe-inline" not in policy("/vol1/search")


def test_the_search_page_says_what_to_use_without_javascript(site: Path) -> None:
    tree = HTMLParser(page(site, "/vol1/search"))
    assert "hidden" in tree.css_first("div.search").attributes
    fallback = tree.css_first(".search-fallback")
    assert "JavaScript" in fallback.text()
    links = {a.attributes["href"] for a in fallback.css("a")}
    assert {"/vol1/glossary", "/vol1/ledger", "/vol1/people", "/vol1/sources"} <= links
    # Every other page has the box, hidden until the script shows it.
    box = HTMLParser(page(site, "/vol1/glossary")).css_first("form.site-search")
    assert "hidden" in box.attributes and box.attributes["action"] == "/vol1/search"
    assert HTMLParser(page(site, "/vol1/search")).css_first("form.site-search") is None


def test_previews_say_what_each_kind_of_entity_is(site: Path) -> None:
    table = previews(site)
    assert table["/vol1/glossary/cluster"][:2] == ["Term", "Cluster"]
    assert table["/vol1/glossary/cluster"][2].startswith("A datacenter’s worth of chips")
    campus = table["/vol1/ledger/colossus-2"]
    assert campus[0] == "Campus"
    assert campus[2] == (
        "Memphis, Tennessee, US · operating · evidenced power 200 MW (as of September 2026)"
    )
    assert table["/vol1/parties/xai"] == [
        "Party",
        "xAI",
        "Owner and operator at Colossus 2",
        ["xAI"],  # its names, which search forgives a slip in
    ]
    assert table["/vol1/parties/alibaba"][:3] == ["Party", "Alibaba", "Company"]
    assert table["/vol1/people/patrick-kennedy"][2] == "Editor of ServeTheHome"
    source = table["/vol1/sources/company#supermicro-colossus-case"]
    assert source[0] == "Source"
    assert source[2].startswith("Patrick Kennedy, ServeTheHome, “Inside the 100K GPU")
    chapter = table["/vol1/notes/chapter-1"]
    assert chapter[2] == (
        "Chapter 1: What the race is for, and what a trillion dollars a year is bet against."
    )
    row = table["/vol1/scorecard#row-11"]
    assert row[0] == "Scorecard indicator" and row[2].startswith("Row 11:")
    assert table["/vol1/tests/gigawatt-by-2027"][2] == (
        "To be judged by 31 December 2027. One campus will run a gigawatt of IT power by the"
        " end of 2027."
    )


def test_no_page_carries_the_previews(site: Path) -> None:
    """Editing a definition changes the previews file and the term's page, not every page
    that mentions the term."""
    html = page(site, "/vol1/glossary/one-machine")
    assert "A datacenter’s worth of chips" not in html
    assert 'id="definitions_"' not in html


def test_an_index_that_cannot_be_made_leaves_the_last_site(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_record(tmp_path / "record")
    out = build(root, tmp_path / "site")
    before = (buckets(out)[0] / "pagefind.js").read_bytes()
    monkeypatch.setenv("PAGEFIND_BINARY_PATH", str(tmp_path / "no-such-program"))
    with pytest.raises(BuildError, match=r"Pagefind's program is missing.*pagefind\[bin\]"):
        build(root, out)
    assert (buckets(out)[0] / "pagefind.js").read_bytes() == before


def test_serve_shows_a_build_before_its_index_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    indexing = threading.Event()
    begin = SearchJob.begin

    def slow(job: SearchJob, site: Path, into: Path, kept: object = None) -> object:
        indexing.set()
        assert release.wait(30)
        return begin(job, site, into, kept)  # type: ignore[arg-type]

    monkeypatch.setattr(SearchJob, "begin", slow)
    live = LiveSite(write_record(tmp_path / "record"))
    try:
        live.rebuild()  # returns while the index is still being made
        assert live.version == 1 and not live.broken
        assert (live.site / "vol1" / "glossary" / "cluster" / "index.html").is_file()
        assert indexing.wait(30) and live.search.folder is None
        assert not (live.site / "vol1" / "pagefind").exists()
        release.set()
        assert live.search.wait(1, timeout=60)
        server = SiteServer(live.site, port=0, live=live)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            with urllib.request.urlopen(server.url + "/vol1/pagefind/index.json") as answer:
                first = json.loads(answer.read())["buckets"][0]
            with urllib.request.urlopen(f"{server.url}/vol1/pagefind/{first}pagefind.js") as answer:
                assert answer.status == 200 and b"pagefind" in answer.read()
                assert answer.headers["Content-Type"].startswith("text/javascript")
        finally:
            server.shutdown()
            server.server_close()
    finally:
        release.set()
        live.close()


def test_serve_throws_away_an_index_overtaken_by_a_newer_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    started: list[Path] = []
    begin = SearchJob.begin

    def slow(job: SearchJob, site: Path, into: Path, kept: object = None) -> object:
        started.append(into)
        if len(started) == 1:
            assert release.wait(30)
        return begin(job, site, into, kept)  # type: ignore[arg-type]

    monkeypatch.setattr(SearchJob, "begin", slow)
    record = write_record(tmp_path / "record")
    live = LiveSite(record)
    try:
        live.rebuild()
        term = record / "terms" / "cluster.md"
        term.write_text(term.read_text().replace("wired to work", "joined to work"))
        live.rebuild()
        release.set()
        assert live.search.wait(2, timeout=60)
        assert live.search.indexed == 2 and live.search.folder == live.out / "search-2"
        assert not (live.out / "search-1").exists()
    finally:
        release.set()
        live.close()


class Endless:
    """An index that is made until it is stopped, as Pagefind's of a large site seems to."""

    def __init__(self) -> None:
        self.began = threading.Event()
        self.stopped = threading.Event()

    def begin(self, site: Path, into: Path, kept: object = None) -> Endless:
        self.began.set()
        return self

    def __enter__(self) -> Endless:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def finish(self) -> None:
        assert self.stopped.wait(30)
        raise SearchError("Pagefind stopped while indexing the site")

    def stop(self) -> None:
        self.stopped.set()

    def close(self) -> None:
        self.stopped.set()


def test_a_build_begun_while_the_last_is_indexed_stops_that_index(tmp_path: Path) -> None:
    """Its index would be replaced by the new build's: it is not let take the cores."""
    search = LiveSearch(tmp_path)
    endless = Endless()
    try:
        search.built(1, endless, tmp_path)  # type: ignore[arg-type]
        assert endless.began.wait(10)
        search.superseded()  # as `serve` does as a save's build begins
        assert endless.stopped.wait(10)
        search.built(2, SearchJob("", "en"), write_record(tmp_path / "record"))
        assert search.wait(2, timeout=60)
        assert search.indexed == 2 and not search.failure  # the stopped one is not a failure
        assert not (tmp_path / "search-1").exists()
    finally:
        search.close()


def test_an_index_stopped_for_a_build_that_then_fails_is_not_a_failure(tmp_path: Path) -> None:
    search = LiveSearch(tmp_path)
    endless = Endless()
    try:
        search.built(1, endless, tmp_path)  # type: ignore[arg-type]
        assert endless.began.wait(10)
        search.superseded()
        search.built(2, None, tmp_path)  # the record has errors now: nothing to index
        assert endless.stopped.wait(10)
        assert search.indexed == -1 and not search.failure
        assert not (tmp_path / "search-1").exists()
    finally:
        search.close()
