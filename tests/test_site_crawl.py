"""The whole built bundled site, crawled: no broken link or anchor, every page well-formed."""

from __future__ import annotations

from pathlib import Path

import pytest
from site_fixtures import build, crawl, write_record

BUNDLED = Path(__file__).resolve().parent.parent / "examples" / "compute-race"


@pytest.fixture(scope="module")
def bundled_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(BUNDLED, tmp_path_factory.mktemp("bundled") / "site")


def test_the_bundled_site_has_no_broken_link_and_no_malformed_page(bundled_site: Path) -> None:
    reached, problems = crawl(bundled_site, "/vol1/")
    assert problems == []
    pages = {p for p in bundled_site.rglob("*.html") if p.name != "404.html"}
    assert len(reached) >= len(pages) > 100


def test_every_page_of_the_bundled_site_is_reached_from_the_front_page(bundled_site: Path) -> None:
    reached, _ = crawl(bundled_site, "/vol1/")
    for path in bundled_site.rglob("*.html"):
        if path.name == "404.html":
            continue
        url = "/" + path.relative_to(bundled_site).as_posix().removesuffix(".html")
        url = url.removesuffix("index")
        assert url in reached, f"{url} is linked from nowhere"


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
    (site / "a.html").write_text("<!DOCTYPE html><html><body></body></html>")
    _, problems = crawl(site, "/")
    assert "/: broken link /gone" in problems
    assert "/: no #nowhere on /a" in problems
    assert any("does not close" in p for p in problems)
    assert any("ids used twice" in p for p in problems)
