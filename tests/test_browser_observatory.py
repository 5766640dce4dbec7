"""The record at a glance and The Paper in headless Chromium, screenshots kept."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from site_fixtures import ARTIFACTS, local_only

pytestmark = pytest.mark.browser

BUNDLED = Path(__file__).resolve().parent.parent / "examples" / "compute-race"


@pytest.fixture
def page(browser: Any, origin: str) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    refused = local_only(context, origin)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    assert refused == [] and errors == []
    context.close()


def test_the_charts_are_drawn_titled_and_tabled(page: Any, origin: str) -> None:
    page.goto(f"{origin}/vol1/observatory")
    assert page.title().startswith("The record at a glance")
    charts = page.locator("section.chart-section")
    assert charts.count() == 8
    for index in range(charts.count()):
        section = charts.nth(index)
        svg = section.locator("svg.chart-wide")
        assert svg.locator("title").text_content()
        box = svg.bounding_box()
        assert box and box["width"] > 300 and box["height"] > 50
        section.locator("details summary").click()
        assert section.locator("table.chart-table tbody tr").count() > 0
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "observatory.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= 400, "the page scrolls sideways on a phone"
    page.screenshot(path=str(ARTIFACTS / "observatory-phone.png"), full_page=True)


TEXT_SIZES = """() => [...document.querySelectorAll("svg.chart text")]
  .filter((t) => t.getClientRects().length && t.textContent.trim()
    && getComputedStyle(t).opacity !== "0" && getComputedStyle(t).visibility !== "hidden")
  .map((t) => {
    const m = t.getScreenCTM();
    return [t.textContent, parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b)];
  })"""
"""Every chart text a reader sees, with its size in CSS pixels as drawn on the screen."""


@pytest.mark.parametrize(
    ("width", "shown", "hidden"), [(360, "narrow", "wide"), (1280, "wide", "narrow")]
)
def test_every_charts_text_is_at_least_11_px_on_a_phone_and_on_a_desktop(
    page: Any, origin: str, width: int, shown: str, hidden: str
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    for path in ("/vol1/observatory", "/vol1/paper"):
        page.goto(f"{origin}{path}")
        assert page.locator(f"svg.chart-{shown}").count() >= 2
        assert all(s.is_visible() for s in page.locator(f"svg.chart-{shown}").all())
        assert not any(s.is_visible() for s in page.locator(f"svg.chart-{hidden}").all())
        sizes = page.evaluate(TEXT_SIZES)
        assert len(sizes) > 20
        small = [(text, round(size, 1)) for text, size in sizes if size < 11 - 0.01]
        assert small == [], (path, width)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    ARTIFACTS.mkdir(exist_ok=True)
    page.goto(f"{origin}/vol1/observatory")
    page.screenshot(path=str(ARTIFACTS / f"observatory-{width}.png"), full_page=True)


def test_the_paper_reads_with_its_figures_and_sources(page: Any, origin: str) -> None:
    page.goto(f"{origin}/vol1/paper")
    assert page.locator("h1").inner_text().startswith("What the record shows")
    assert page.locator(".paper-figure svg.chart title").count() >= 2
    assert page.locator(".bibliography li").count() >= 15
    page.locator(".bibliography li a", has_text="In the Sources").first.click()
    assert "/vol1/sources/" in page.url
    page.goto(f"{origin}/vol1/paper")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "paper.png"), full_page=True)
    response = page.request.get(f"{origin}/vol1/paper.pdf")
    assert response.ok and response.body().startswith(b"%PDF")
