"""Search and link previews on the bundled site, in headless Chromium: as a reader uses them
with a mouse, with the keyboard alone, on a touch screen, and without JavaScript."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from site_fixtures import ARTIFACTS, landed_at, local_only

pytestmark = pytest.mark.browser

BUNDLED = Path(__file__).resolve().parent.parent / "examples" / "compute-race"


@pytest.fixture
def page(browser: Any, origin: str) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    refused = local_only(context, origin)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    yield page
    assert errors == [], "the page logged errors (a refused policy, a failed script)"
    assert refused == [], "a page asked for something outside the site"
    context.close()


def hits(page: Any) -> list[tuple[str, str, str]]:
    """(kind, title, href) of each result shown."""
    page.locator(".search-result").first.wait_for()
    found = []
    for item in page.locator(".search-result").all():
        link = item.locator("a.search-link")
        kind = link.locator(".search-kind").inner_text()
        title = link.locator(".search-title").inner_text()
        found.append((kind.casefold(), title, link.get_attribute("href")))
    return found


def search(page: Any, origin: str, query: str) -> list[tuple[str, str, str]]:
    page.goto(f"{origin}/vol1/search")
    page.locator("#search_query_").fill(query)
    page.wait_for_function(
        "q => new URLSearchParams(location.search).get('q') === q && "
        "document.querySelector('.search-status').textContent.includes('result')",
        arg=query,
    )
    return hits(page)


def test_colossus_finds_the_two_campuses_first(page: Any, origin: str) -> None:
    found = search(page, origin, "Colossus")
    assert {found[0][2], found[1][2]} == {"/vol1/ledger/colossus-1", "/vol1/ledger/colossus-2"}
    assert found[0][0] == found[1][0] == "campus"
    first = page.locator(".search-result").first
    assert "Memphis, Tennessee, US" in first.locator(".search-line").inner_text()
    assert len(found) > 5 and {"source", "correction"} <= {kind for kind, _, _ in found}
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "search-colossus.png"), full_page=True)


def test_a_phrase_inside_a_quote_finds_its_source_first(page: Any, origin: str) -> None:
    # Only inside a quote of ServeTheHome's report, which the record quotes.
    found = search(page, origin, "huge power cables")
    assert found[0][0] == "source"
    assert found[0][2] == "/vol1/sources/company/supermicro-colossus-case"
    excerpt = page.locator(".search-result").first.locator(".search-excerpt")
    marked = [re.sub(r"\W", "", m.inner_text()).casefold() for m in excerpt.locator("mark").all()]
    assert marked == ["huge", "power", "cables"]


def test_hits_are_filtered_by_kind(page: Any, origin: str) -> None:
    everything = search(page, origin, "Colossus")
    kinds = page.locator(".search-kinds")
    assert kinds.is_visible()
    kinds.locator("input[value='Source']").check()
    page.wait_for_function("location.search.includes('kind=Source')")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.search-kind')]"
        ".every(k => k.textContent === 'Source')"
    )
    sources = hits(page)
    assert 0 < len(sources) < len(everything)
    assert {kind for kind, _, _ in sources} == {"source"}
    # The choice is in the address, so that a search can be shared or reloaded.
    page.reload()
    assert page.locator(".search-kinds input[value='Source']").is_checked()
    assert {kind for kind, _, _ in hits(page)} == {"source"}


def test_search_works_from_the_keyboard_alone(page: Any, origin: str) -> None:
    page.goto(f"{origin}/vol1/ledger")
    box = page.locator("form.site-search input")
    assert box.is_visible()
    for _ in range(5):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "site_search_":
            break
    else:
        pytest.fail("the search box is not reached with the keyboard")
    page.keyboard.type("Colossus")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/vol1/search/?\?q=Colossus$"))
    hits(page)
    assert page.evaluate("document.activeElement.id") == "search_query_"
    page.keyboard.press("ArrowDown")
    focused = page.evaluate("document.activeElement.getAttribute('href')")
    assert focused in ("/vol1/ledger/colossus-1", "/vol1/ledger/colossus-2")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowUp")
    assert page.evaluate("document.activeElement.getAttribute('href')") == focused
    page.keyboard.press("Enter")
    page.wait_for_url(landed_at(f"{origin}{focused}"))
    # And "/" leads back to the box from anywhere.
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "site_search_"


def test_without_javascript_no_box_shows_and_the_search_page_says_what_to_use(
    browser: Any, origin: str
) -> None:
    context = browser.new_context(java_script_enabled=False)
    refused = local_only(context, origin)
    page = context.new_page()
    page.goto(f"{origin}/vol1/ledger")
    assert not page.locator("form.site-search").is_visible()
    page.goto(f"{origin}/vol1/search?q=Colossus")
    assert not page.locator("#search_query_").is_visible()
    fallback = page.locator(".search-fallback")
    assert fallback.is_visible() and "JavaScript" in fallback.inner_text()
    fallback.get_by_role("link", name="Glossary").click()
    page.wait_for_url(landed_at(f"{origin}/vol1/glossary"))
    context.close()
    assert refused == []


def preview_of(page: Any) -> tuple[str, str, str]:
    tip = page.locator("#preview_")
    tip.wait_for(state="visible")
    parts = (".preview-kind", ".preview-title", ".preview-line")
    return tuple(tip.locator(part).inner_text() for part in parts)  # type: ignore[return-value]


def test_a_campus_link_previews_on_hover(page: Any, origin: str) -> None:
    page.goto(f"{origin}/vol1/parties/xai")
    link = page.locator("main a[href='/vol1/ledger/colossus-2']").first
    tip = page.locator("#preview_")
    assert not tip.is_visible()
    link.hover()
    kind, title, line = preview_of(page)
    assert (kind.casefold(), title) == ("campus", "Colossus 2")
    assert (
        line == "Memphis, Tennessee, US · operating · evidenced power 200 MW (as of September 2025)"
    )
    assert link.get_attribute("aria-describedby") == "preview_"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "preview-campus.png"))
    page.mouse.move(0, 0)
    tip.wait_for(state="hidden")
    assert link.get_attribute("aria-describedby") is None


def test_a_party_link_previews_on_keyboard_focus_and_escape_closes_it(
    page: Any, origin: str
) -> None:
    page.goto(f"{origin}/vol1/ledger/colossus-2")
    for _ in range(80):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.getAttribute('href')") == "/vol1/parties/xai":
            break
    else:
        pytest.fail("no link to xAI is reached with the keyboard")
    kind, title, line = preview_of(page)
    assert (kind.casefold(), title) == ("party", "xAI")
    assert "owner and operator at Colossus 2" in line
    focused = page.locator(":focus")
    assert focused.get_attribute("aria-describedby") == "preview_"
    # A screen reader reads the preview as the link's description.
    described = page.evaluate(
        "document.getElementById(document.activeElement.getAttribute('aria-describedby'))"
        ".textContent"
    )
    assert "owner and operator at Colossus 2" in described
    page.keyboard.press("Escape")
    page.locator("#preview_").wait_for(state="hidden")
    assert page.evaluate("document.activeElement.getAttribute('href')") == "/vol1/parties/xai"


def test_a_source_link_previews_on_a_first_tap_and_opens_on_the_second(
    browser: Any, origin: str
) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    refused = local_only(context, origin)
    page = context.new_page()
    page.goto(f"{origin}/vol1/ledger/colossus-2")
    link = page.locator("main a[href^='/vol1/sources/'][href*='#']").first
    href = link.get_attribute("href")
    link.scroll_into_view_if_needed()
    link.tap()
    kind, title, line = preview_of(page)
    assert kind.casefold() == "source" and title and line
    assert landed_at(f"{origin}/vol1/ledger/colossus-2").match(page.url), "a first tap previews"
    opener = page.locator("#preview_ a.preview-open")
    assert opener.get_attribute("href") == href and opener.inner_text() == f"Open {title}"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "preview-source-touch.png"))
    # A tap elsewhere closes it; a second tap on the link itself opens the page.
    page.locator("h1").tap()
    page.locator("#preview_").wait_for(state="hidden")
    link.tap()
    preview_of(page)
    link.tap()
    page.wait_for_url(landed_at(f"{origin}{href}"))
    context.close()
    assert refused == []


def test_previews_come_from_one_file_fetched_once(page: Any, origin: str) -> None:
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url) if r.url.endswith(".json") else None)
    page.goto(f"{origin}/vol1/ledger")
    assert fetched == []  # nothing until a reader points at a link
    for name in ("colossus-1", "colossus-2"):
        page.locator(f"main a[href='/vol1/ledger/{name}']").first.hover()
        page.wait_for_function(
            "t => document.querySelector('#preview_ .preview-title')?.textContent === t",
            arg=name.replace("colossus", "Colossus").replace("-", " "),
        )
    assert fetched == [f"{origin}/vol1/previews.json"]


MISSPELT = [
    ("Colosus", {"/vol1/ledger/colossus-1", "/vol1/ledger/colossus-2"}),
    ("hyperian", {"/vol1/ledger/hyperion"}),
    ("Stargte", {"/vol1/ledger/stargate-abilene", "/vol1/ledger/stargate-uae"}),
]


@pytest.mark.parametrize("width", [1280, 390])
def test_a_slip_in_a_name_still_finds_it_first(browser: Any, origin: str, width: int) -> None:
    context = browser.new_context(viewport={"width": width, "height": 800})
    refused = local_only(context, origin)
    page = context.new_page()
    for query, wanted in MISSPELT:
        page.goto(f"{origin}/vol1/search?q={query}")
        page.wait_for_function(
            "() => document.querySelector('.search-status').textContent.includes('result')"
        )
        first = {href for _, _, href in hits(page)[:3]}
        assert wanted <= first, (query, hits(page)[:3])
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=str(ARTIFACTS / f"search-misspelt-{width}.png"))
    page.goto(f"{origin}/vol1/search?q=RaceFive")  # the front page's title is spaced
    assert refused == []
    context.close()


def test_the_edit_distance_is_rapidfuzz_s(page: Any, origin: str) -> None:
    """The search page's distance, run in the browser, against rapidfuzz's OSA distance on
    pairs of words a reader might type, slips and swaps and all."""
    import random

    from rapidfuzz.distance import OSA

    script = (BUNDLED.parent.parent / "src/sourcebook/publish/site/static/search.js").read_text()
    source = re.search(r"  function distance\(a, b, most\) \{.*?\n  \}\n", script, re.S)
    assert source is not None
    page.goto(f"{origin}/vol1/search")
    rng = random.Random(37)
    letters = "abcdeoinrst"
    pairs = []
    for _ in range(300):
        a = "".join(rng.choice(letters) for _ in range(rng.randint(0, 9)))
        b = list(a)
        for _ in range(rng.randint(0, 3)):
            at = rng.randint(0, max(len(b) - 1, 0))
            step = rng.choice("isdt")
            if step == "i":
                b.insert(at, rng.choice(letters))
            elif b and step == "s":
                b[at] = rng.choice(letters)
            elif b and step == "d":
                del b[at]
            elif len(b) > 1 and step == "t" and at + 1 < len(b):
                b[at], b[at + 1] = b[at + 1], b[at]
        pairs.append((a, "".join(b)))
    found = page.evaluate(
        "([source, pairs]) => { const distance = new Function(source + '; return distance;')();"
        " return pairs.map(([a, b]) => distance(a, b, 20)); }",
        [source.group(), pairs],
    )
    assert found == [OSA.distance(a, b) for a, b in pairs]
