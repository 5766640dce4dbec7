"""The machine as a reader meets it in headless Chromium: on a desk, on a phone, without
JavaScript."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from site_fixtures import ARTIFACTS, landed_at, local_only

pytestmark = pytest.mark.browser

BUNDLED = Path(__file__).resolve().parent.parent / "examples" / "compute-race"

# Elements whose right edge passes the viewport, leaving out those inside a box that
# scrolls sideways (the drawing's, the tables'), which is itself within the viewport.
OVERFLOWING = """() => {
  const width = document.documentElement.clientWidth;
  const scrolls = e => { for (let p = e.parentElement; p; p = p.parentElement) {
    if (['auto', 'scroll'].includes(getComputedStyle(p).overflowX)) return true; } return false; };
  return [...document.body.querySelectorAll('*')].filter(e => {
    const box = e.getBoundingClientRect();
    return box.width > 0 && (box.right > width + 0.5 || box.left < -0.5) && !scrolls(e);
  }).map(e => e.tagName + '.' + e.className);
}"""


def open_page(browser: Any, origin: str, width: int, script: bool = True) -> Any:
    context = browser.new_context(
        viewport={"width": width, "height": 800}, java_script_enabled=script
    )
    context.refused = local_only(context, origin)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(f"{origin}/vol1/machine")
    return page


def test_the_machine_on_a_desk_links_every_node_to_a_page(browser: Any, origin: str) -> None:
    page = open_page(browser, origin, 1100)
    assert page.title() == "The machine · The AI Compute Race · DRYBURGH"
    svg = page.locator("svg.machine")
    assert svg.is_visible()
    title = svg.locator("title#machine-t").text_content()
    assert title.startswith("The machine: 10 campuses and the 20 parties")
    hrefs = [a.get_attribute("href") for a in svg.locator("a").all()]
    assert len(hrefs) == 30
    for href in set(hrefs):
        assert page.request.get(origin + href).status == 200, href
    nvidia = svg.locator('a[href="/vol1/parties/nvidia"]')
    nvidia.click()
    page.wait_for_url(landed_at(f"{origin}/vol1/parties/nvidia"))
    assert page.locator("h1").inner_text() == "NVIDIA"
    page.go_back()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "machine.png"), full_page=True)
    assert page.errors == [] and page.context.refused == []


def test_on_a_phone_nothing_is_wider_than_the_screen(browser: Any, origin: str) -> None:
    page = open_page(browser, origin, 360)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert page.evaluate(OVERFLOWING) == []
    wrap = page.locator(".machine-wrap")
    assert wrap.evaluate("e => e.scrollWidth > e.clientWidth")  # the drawing scrolls
    assert page.locator("table.machine-roles tbody tr").count() == 32
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "machine-360.png"), full_page=True)


def test_without_javascript_and_in_print_the_table_is_all_there(browser: Any, origin: str) -> None:
    page = open_page(browser, origin, 800, script=False)
    assert page.locator("table.machine-roles tbody tr").count() == 32
    assert page.locator("svg.machine a").count() == 30
    page.emulate_media(media="print")
    assert page.locator("nav.site-nav").is_hidden()
    assert page.locator("svg.machine").is_visible()
    assert page.evaluate(OVERFLOWING) == []
    pdf = page.pdf(format="A4")
    assert pdf.startswith(b"%PDF")
