"""Finding one's way in the bundled site, in headless Chromium at 1280 and 390 px: the
masthead's menu with and without JavaScript, the breadcrumb, no page wider than a phone,
and previews that open where there is room for them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from site_fixtures import ARTIFACTS, landed_at, local_only

pytestmark = pytest.mark.browser

# One page of every kind the bundled site has.
PAGE_KINDS = [
    "/vol1/",
    "/vol1/about",
    "/vol1/glossary",
    "/vol1/glossary/cluster",
    "/vol1/ledger",
    "/vol1/ledger/colossus-2",
    "/vol1/scorecard",
    "/vol1/tests",
    "/vol1/tests/h100-price-above-trough",
    "/vol1/sources",
    "/vol1/sources/press",
    "/vol1/sources/press/bloomberg-moonshot-alibaba-jul26",
    "/vol1/notes",
    "/vol1/notes/chapter-1",
    "/vol1/companion",
    "/vol1/machine",
    "/vol1/people",
    "/vol1/people/elon-musk",
    "/vol1/parties",
    "/vol1/parties/xai",
    "/vol1/observatory",
    "/vol1/paper",
    "/vol1/hyperion",
    "/vol1/corrections",
    "/vol1/corrections/sources",
    "/vol1/consent",
    "/vol1/data/releases",
    "/vol1/search",
    "/404.html",
]
WIDTHS = [1280, 390]


@pytest.fixture(scope="module", params=WIDTHS, ids=lambda w: f"{w}px")
def context(request: pytest.FixtureRequest, browser: Any, origin: str) -> Iterator[Any]:
    width = request.param
    made = browser.new_context(viewport={"width": width, "height": 800})
    made.width = width
    made.refused = local_only(made, origin)
    yield made
    assert made.refused == []
    made.close()


@pytest.mark.parametrize("javascript", [True, False], ids=["javascript", "no-javascript"])
@pytest.mark.parametrize("width", WIDTHS)
def test_the_menu_leads_everywhere_with_or_without_a_script(
    browser: Any, origin: str, width: int, javascript: bool
) -> None:
    context = browser.new_context(
        viewport={"width": width, "height": 800}, java_script_enabled=javascript
    )
    page = context.new_page()
    page.goto(f"{origin}/vol1/sources/press")
    assert page.locator(".site-name a").inner_text().casefold() == "the ai compute race"
    crumbs = page.locator("nav.crumbs li").all_inner_texts()
    assert [c.strip() for c in crumbs] == ["The AI Compute Race", "Sources", "The press"]
    header = page.locator("header.masthead").bounding_box()
    assert header["height"] < (140 if width > 500 else 160)  # compact: the text begins soon
    if width > 500:
        assert page.locator("details.menu-phone").is_hidden()
        page.locator("nav.menu-bar summary", has_text="The buildout").click()
        link = page.locator("nav.menu-bar a", has_text="The machine")
    else:
        assert page.locator("nav.menu-bar").is_hidden()
        menu = page.locator("details.menu-phone")
        assert menu.locator("nav").is_hidden()
        menu.locator("summary").click()
        assert menu.locator("nav a").count() == 18
        link = menu.locator("nav a", has_text="The machine")
    assert link.is_visible()
    box = link.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width
    ARTIFACTS.mkdir(exist_ok=True)
    shown = "js" if javascript else "nojs"
    page.screenshot(path=str(ARTIFACTS / f"menu-{width}-{shown}.png"))
    link.click()
    page.wait_for_url(landed_at(f"{origin}/vol1/machine"))
    assert page.locator("h1").inner_text() == "The machine"
    context.close()


def test_a_menu_closes_on_escape_and_another_closes_it(context: Any, origin: str) -> None:
    page = context.new_page()
    page.goto(f"{origin}/vol1/glossary")
    if context.width < 500:
        page.locator("details.menu-phone summary").click()
        page.keyboard.press("Escape")
        assert not page.locator("details.menu-phone").evaluate("d => d.open")
    else:
        page.locator("nav.menu-bar summary", has_text="The book").click()
        page.locator("nav.menu-bar summary", has_text="About").click()
        page.wait_for_function(
            "() => [...document.querySelectorAll('details.menu-group')].filter(d => d.open)"
            ".map(d => d.querySelector('summary').textContent).join() === 'About'"
        )
        page.keyboard.press("Escape")
        assert page.locator("details.menu-group[open]").count() == 0
    page.close()


@pytest.mark.parametrize("url", PAGE_KINDS)
def test_no_page_scrolls_sideways(context: Any, origin: str, url: str) -> None:
    page = context.new_page()
    assert page.goto(origin + url).status in (200, 404)
    assert page.evaluate("document.documentElement.scrollWidth") <= context.width, url
    page.close()


# Scroll the page so that the first link to an entity in the text below the first screen
# stands `gap` pixels above the viewport's bottom edge; the link's selector.
NEAR_THE_BOTTOM = """(gap) => {
  const links = [...document.querySelectorAll('main .prose a[href^="/vol1/"], main p a.term')];
  const link = links.find(a => a.getBoundingClientRect().height > 0 &&
    a.getBoundingClientRect().top + window.scrollY > window.innerHeight);
  link.id = link.id || 'probe_';
  const box = link.getBoundingClientRect();
  window.scrollBy({top: box.bottom - (window.innerHeight - gap), behavior: 'instant'});
  const now = link.getBoundingClientRect();
  if (Math.abs(now.bottom - (window.innerHeight - gap)) > 2) throw new Error('no room to scroll');
  return '#' + link.id;
}"""


@pytest.mark.parametrize("where", ["bottom", "top"])
def test_a_preview_opens_where_there_is_room_for_it(context: Any, origin: str, where: str) -> None:
    page = context.new_page()
    page.goto(f"{origin}/vol1/paper")
    gap = 30 if where == "bottom" else 700
    selector = page.evaluate(NEAR_THE_BOTTOM, gap)
    link = page.locator(selector)
    link.focus()  # the keyboard's way; hover and a first tap place it alike
    tip = page.locator("#preview_")
    tip.wait_for(state="visible")
    shown, at = tip.bounding_box(), link.bounding_box()
    height = page.evaluate("window.innerHeight")
    if where == "bottom":
        assert shown["y"] + shown["height"] <= at["y"] + 1  # above the link
    else:
        assert shown["y"] >= at["y"] + at["height"] - 1  # below it
    assert shown["y"] >= -0.5 and shown["y"] + shown["height"] <= height + 0.5
    assert shown["x"] >= 0 and shown["x"] + shown["width"] <= context.width + 0.5
    if where == "bottom":
        page.screenshot(path=str(ARTIFACTS / f"preview-above-{context.width}.png"))
    page.close()


def test_a_preview_near_the_bottom_flips_on_hover_and_on_a_tap(browser: Any, origin: str) -> None:
    for touch in (False, True):
        context = browser.new_context(
            viewport={"width": 390 if touch else 1280, "height": 700}, has_touch=touch
        )
        page = context.new_page()
        page.goto(f"{origin}/vol1/paper")
        link = page.locator(page.evaluate(NEAR_THE_BOTTOM, 24))
        if touch:
            link.tap()
        else:
            link.hover()
        tip = page.locator("#preview_")
        tip.wait_for(state="visible")
        shown, at = tip.bounding_box(), link.bounding_box()
        assert shown["y"] + shown["height"] <= at["y"] + 1
        context.close()
