"""A reader of a watched record's site, in headless Chromium at 1280 and 390 px: a dead
source's line sends them to the held copy first, the copy's page opens from it, and
nothing on these pages is wider than a phone."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from site_fixtures import local_only, serving
from test_site_watch import built  # noqa: F401 - the watched record's site, as a fixture

pytestmark = pytest.mark.browser

PAGES = ["/vol1/sources/press/dead", "/vol1/sources/press", "/vol1/library", "/vol1/library/S2",
         "/vol1/data/releases"]  # fmt: skip


@pytest.fixture(scope="module")
def origin(built) -> Iterator[str]:  # noqa: F811 - the fixture imported above
    with serving(built["site"]) as url:
        yield url


@pytest.mark.parametrize("width", [1280, 390])
def test_a_dead_page_leads_the_reader_to_the_held_copy(
    browser: Any, origin: str, width: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 800})
    refused = local_only(context, origin)
    page = context.new_page()
    for url in PAGES:
        assert page.goto(origin + url).status == 200, url
        assert page.evaluate("document.documentElement.scrollWidth") <= width, url
    page.goto(origin + "/vol1/sources/press/dead")
    line = page.locator("ul.addresses li.state-dead")
    first = line.locator("a").first
    assert first.is_visible() and first.inner_text() == "Library S2"
    first.click()
    page.wait_for_url("**/vol1/library/S2**")
    assert page.locator("h1").inner_text() == "Library S2: Campus opens"
    assert page.locator(".live-state").is_visible()
    assert refused == []  # the live page's link is there, but nothing left the test server
    context.close()
