"""The whole built bundled site, crawled: no broken link or anchor, every page well-formed;
and served as it will be, by `python -m http.server` and by `sourcebook serve`."""

from __future__ import annotations

from pathlib import Path

import pytest
from host_fixtures import crawl_http, fetch, http_server, sourcebook_serve
from site_fixtures import build, crawl, write_record

BUNDLED = Path(__file__).resolve().parent.parent / "examples" / "compute-race"


@pytest.fixture(scope="module")
def bundled_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(BUNDLED, tmp_path_factory.mktemp("bundled") / "site")


def test_the_bundled_site_has_no_broken_link_and_no_malformed_page(bundled_site: Path) -> None:
    reached, problems = crawl(bundled_site, "/vol1/")
    assert problems == []
    pages = {p for p in bundled_site.rglob("*.html") if p.name != "404.html"}
    assert len(reached) >= len(pages) - 1 > 100  # all but the host's root, which leads to /vol1/


def test_every_page_of_the_bundled_site_is_reached_from_the_front_page(bundled_site: Path) -> None:
    reached, _ = crawl(bundled_site, "/vol1/")
    for path in bundled_site.rglob("*.html"):
        if path.name == "404.html" or path.parent == bundled_site:
            continue
        url = "/" + path.relative_to(bundled_site).parent.as_posix()
        assert url in reached or url + "/" in reached, f"{url} is linked from nowhere"


def test_the_small_record_and_the_not_found_page_crawl_clean(tmp_path: Path) -> None:
    site = build(write_record(tmp_path / "r"))
    for start in ("/vol1/", "/404.html"):
        _, problems = crawl(site, start)
        assert problems == []


def test_the_crawler_finds_what_is_broken(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(
        '<!DOCTYPE html><html><body><a href="/gone">x</a><a href="/a#nowhere">y</a>'
        '<p id="p"><b>unclosed</p><i id="p"></i></body></html>'
    )
    (site / "a").mkdir()
    (site / "a" / "index.html").write_text("<!DOCTYPE html><html><body></body></html>")
    _, problems = crawl(site, "/")
    assert "/: broken link /gone" in problems
    assert "/: no #nowhere on /a" in problems
    assert any("does not close" in p for p in problems)
    assert any("ids used twice" in p for p in problems)


def test_a_plain_static_server_serves_every_url_of_the_bundled_site(bundled_site: Path) -> None:
    """`python -m http.server`, with no configuration, as the simplest of static hosts."""
    with http_server(bundled_site) as origin:
        reached, problems = crawl_http(origin, "/vol1/")
        assert problems == []
        for url in ("/vol1/ledger", "/vol1/ledger/colossus-2", "/vol1/glossary/cluster"):
            bare, slashed = fetch(origin + url), fetch(origin + url + "/")
            assert bare.status == slashed.status == 200 and bare.body == slashed.body
        root = fetch(origin + "/")
        assert root.status == 200 and b'content="0; url=/vol1/"' in root.body
    pages = {p for p in bundled_site.rglob("index.html") if p.parent != bundled_site}
    assert len(reached) >= len(pages) > 100


def test_sourcebook_serve_serves_the_same_urls(bundled_site: Path) -> None:
    with sourcebook_serve(BUNDLED, "--no-notify", "--no-watch") as origin:
        reached, problems = crawl_http(origin, "/vol1/")
        assert problems == []
        bare = fetch(origin + "/vol1/ledger/colossus-2")
        assert bare.status == 200 and bare.url.endswith("/vol1/ledger/colossus-2/")
        assert fetch(origin + "/vol1/ledger?sort=power").url.endswith("/vol1/ledger/?sort=power")
    assert len(reached) > 100
