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


# Every label's box (text) and every node's box (rect), in the page's pixels.
BOXES = """() => [...document.querySelectorAll('svg.machine text, svg.machine rect')].map(e => {
  const b = e.getBoundingClientRect();
  const node = e.closest('g.node');
  return {tag: e.tagName, text: e.textContent, owner: node ? node.textContent : e.textContent,
          left: b.left, right: b.right, top: b.top, bottom: b.bottom};
})"""


def test_no_label_overlaps_another_label_or_a_node(browser: Any, origin: str) -> None:
    page = open_page(browser, origin, 1280)
    boxes = page.evaluate(BOXES)
    texts = [b for b in boxes if b["tag"] == "text"]
    assert len(texts) > 30
    clashes = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if a["tag"] == b["tag"] == "rect" or a["owner"] == b["owner"]:
                continue  # a node's own label sits on it
            apart = (
                a["right"] <= b["left"] + 0.5
                or b["right"] <= a["left"] + 0.5
                or a["bottom"] <= b["top"] + 0.5
                or b["bottom"] <= a["top"] + 0.5
            )
            if not apart:
                clashes.append((a["text"], b["text"]))
    assert clashes == []
    sizes = page.evaluate(
        "() => [...document.querySelectorAll('svg.machine .node text')]"
        ".map(t => t.getBoundingClientRect().height)"
    )
    assert min(sizes) >= 11  # drawn at its size, not shrunk to a thumbnail
    layers = page.evaluate(
        "() => [...document.querySelectorAll('svg.machine text.layer')].map(t => t.textContent)"
    )
    assert [t.casefold() for t in layers] == ["money", "builders", "campuses", "chips and power"]
    x = {
        t: page.locator(f'svg.machine a[href="{u}"]').bounding_box()["x"]
        for t, u in (
            ("money", "/vol1/parties/softbank"),
            ("builder", "/vol1/parties/xai"),
            ("campus", "/vol1/ledger/colossus-2"),
            ("power", "/vol1/parties/tva"),
        )
    }
    assert x["money"] < x["builder"] < x["campus"] < x["power"]  # left to right, in layers
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280


def test_on_a_phone_the_machine_is_read_campus_by_campus(browser: Any, origin: str) -> None:
    page = open_page(browser, origin, 360)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert page.evaluate(OVERFLOWING) == []
    assert page.locator("svg.machine").is_hidden()
    narrow = page.locator("ol.machine-narrow > li")
    assert narrow.count() == 10
    colossus = narrow.filter(has_text="Colossus 2")
    assert colossus.locator("dt").all_inner_texts()[0].casefold() in ("builders", "money")
    assert "xAI" in colossus.inner_text() and "Megapack batteries" in colossus.inner_text()
    sizes = page.evaluate(
        "() => [...document.querySelectorAll('ol.machine-narrow a')]"
        ".map(a => parseFloat(getComputedStyle(a).fontSize))"
    )
    assert min(sizes) >= 14
    assert page.locator("table.machine-roles tbody tr").count() == 32
    cells = page.locator("table.machine-roles tbody tr").first.locator("td")
    for i in range(cells.count()):  # a row at a time: no column off the screen
        box = cells.nth(i).bounding_box()
        assert box is None or box["x"] + box["width"] <= 360.5
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
