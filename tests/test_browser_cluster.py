"""The bundled site as a reader meets it, in headless Chromium: the Cluster page and on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from site_fixtures import ARTIFACTS, local_only

pytestmark = pytest.mark.browser

BUNDLED = Path(__file__).resolve().parent.parent / "examples" / "compute-race"


@pytest.fixture
def context(browser: Any, origin: str) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    context.refused = local_only(context, origin)
    yield context
    assert context.refused == [], "a page asked for something outside the site"
    context.close()


@pytest.fixture
def page(context: Any) -> Any:
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
    return page


def texts(page: Any, selector: str) -> list[str]:
    return [" ".join(t.split()) for t in page.locator(selector).all_inner_texts()]


def block(page: Any, heading: str) -> Any:
    return page.locator("section.backlinks", has=page.locator(f"h2:text-is('{heading}')"))


def test_the_cluster_page_reads_as_the_exemplar(page: Any, origin: str) -> None:
    page.goto(f"{origin}/vol1/glossary/cluster")
    assert page.title() == "Cluster: what it means · The AI Compute Race · DRYBURGH"
    assert page.locator("h1").inner_text() == "Cluster"
    assert page.locator(".question").inner_text() == "What does “Cluster” mean?"
    assert page.locator(".definition dd em").inner_text() == "Chapter 1."
    assert texts(page, "section.backlinks h2") == [
        "Where the book uses it",
        "Where the record uses it",
        "Sources that use it",
        "Related terms",
    ]
    chapter = block(page, "Where the book uses it").locator("a").first
    assert chapter.inner_text() == "Chapter 1 — The Stakes"
    assert chapter.get_attribute("href") == "/vol1/notes/chapter-1"
    record = block(page, "Where the record uses it")
    items = texts(page, "section.backlinks:has(h2:text-is('Where the record uses it')) li")
    for wanted in (
        "Campus Colossus 2",
        "Campus Stargate UAE",
        "Scorecard indicator Largest evidenced operating site",
    ):
        assert wanted in items
    row = record.locator("a", has_text="Largest evidenced operating site")
    assert row.get_attribute("href") == "/vol1/scorecard#row-11"
    in_sources = block(page, "Sources that use it").locator("a.in-sources")
    hrefs = [in_sources.nth(i).get_attribute("href") for i in range(in_sources.count())]
    for wanted in (
        "/vol1/sources/company#supermicro-colossus-case",
        "/vol1/sources/other#sa-essay",
        "/vol1/sources/press#bloomberg-moonshot-alibaba-jul26",
        "/vol1/sources/research#semianalysis-btm-sep26",
        "/vol1/sources/research#semianalysis-shortage-apr26",
    ):
        assert wanted in hrefs
    citation = block(page, "Sources that use it").locator("li").first.inner_text()
    assert citation.startswith("Patrick Kennedy, ServeTheHome, “Inside the 100K GPU xAI Colossus")
    related = block(page, "Related terms").locator("li")
    assert 1 <= related.count() <= 12
    footer = page.locator(".book-line").inner_text()
    assert footer.endswith("its record closes on 8 November 2026.")
    assert page.errors == []
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "cluster.png"), full_page=True)


def test_in_the_sources_leads_to_the_source_on_its_category_page(page: Any, origin: str) -> None:
    page.goto(f"{origin}/vol1/glossary/cluster")
    link = page.locator("a.in-sources[href='/vol1/sources/press#bloomberg-moonshot-alibaba-jul26']")
    link.click()
    page.wait_for_url(f"{origin}/vol1/sources/press/#bloomberg-moonshot-alibaba-jul26")
    target = page.locator("#bloomberg-moonshot-alibaba-jul26")
    assert target.evaluate("e => e.matches(':target')")
    assert "Moonshot’s Kimi Uses 20,000 Nvidia Chip Cluster From Alibaba" in target.inner_text()
    page.wait_for_function(
        "e => { const top = e.getBoundingClientRect().top; return top >= 0 && top < innerHeight; }",
        arg=target.element_handle(),
    )
    assert page.locator("h1").inner_text() == "The press"


def test_a_term_mention_shows_its_definition_on_hover_and_on_focus(page: Any, origin: str) -> None:
    page.goto(f"{origin}/vol1/glossary/cluster")
    mention = page.locator(".definition a.term").first
    assert mention.inner_text() == "one machine"
    tooltip = page.locator("[role=tooltip]")
    assert not tooltip.is_visible()
    mention.hover()
    tooltip.wait_for(state="visible")
    definition = page.evaluate("fetch('/vol1/previews.json').then(r => r.json())")[
        "/vol1/glossary/one-machine"
    ][2]
    assert tooltip.locator(".preview-kind").inner_text().casefold() == "term"
    assert tooltip.locator(".preview-line").inner_text() == definition
    assert mention.get_attribute("aria-describedby") == tooltip.get_attribute("id")
    page.mouse.move(0, 0)
    tooltip.wait_for(state="hidden")
    for _ in range(200):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('a.term')"):
            break
    else:
        pytest.fail("no term mention is reached with the keyboard")
    tooltip.wait_for(state="visible")
    page.keyboard.press("Escape")
    tooltip.wait_for(state="hidden")
    mention.hover()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "cluster-hover.png"))


def test_without_javascript_a_mention_is_a_plain_link(browser: Any, origin: str) -> None:
    context = browser.new_context(java_script_enabled=False)
    refused = local_only(context, origin)
    page = context.new_page()
    page.goto(f"{origin}/vol1/glossary/cluster")
    assert page.locator("[role=tooltip]").count() == 0
    mention = page.locator(".definition a.term").first
    mention.click()
    page.wait_for_url(f"{origin}/vol1/glossary/one-machine/")
    assert page.locator("h1").inner_text() == "One machine"
    context.close()
    assert refused == []


def test_a_phone_reads_it_without_scrolling_sideways(browser: Any, origin: str) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 740}, device_scale_factor=2)
    refused = local_only(context, origin)
    page = context.new_page()
    pages = ("/vol1/glossary/cluster", "/vol1/ledger", "/vol1/sources/research")
    for url in (*pages, "/vol1/hyperion", "/vol1/ledger/colossus-1", "/vol1/scorecard"):
        page.goto(origin + url)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, f"{url} is {width} px wide"
    page.goto(f"{origin}/vol1/glossary/cluster")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "cluster-phone.png"), full_page=True)
    context.close()
    assert refused == []


def test_the_skip_link_comes_first_and_focus_is_visible(page: Any, origin: str) -> None:
    page.goto(f"{origin}/vol1/glossary/cluster")
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.textContent")
    assert focused == "Skip to the text"
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main_"


def test_the_ledger_sorts_by_a_column(page: Any, origin: str) -> None:
    page.goto(f"{origin}/vol1/ledger")
    header = page.locator("table.ledger th", has_text="Evidenced power")
    header.locator("button").click()
    assert header.get_attribute("aria-sort") == "ascending"
    values = page.locator("table.ledger tbody td:nth-child(5)").evaluate_all(
        "cells => cells.map(c => parseFloat(c.dataset.value)).filter(v => !isNaN(v))"
    )
    assert values == sorted(values) and len(values) > 1
    header.locator("button").click()
    assert header.get_attribute("aria-sort") == "descending"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ledger.png"), full_page=True)


def test_the_site_stores_nothing_about_the_reader(context: Any, page: Any, origin: str) -> None:
    for url in ("/vol1/", "/vol1/glossary/cluster", "/vol1/ledger", "/vol1/consent"):
        page.goto(origin + url)
        page.locator("a.term").first.hover() if page.locator("a.term").count() else None
    assert context.cookies() == []
    assert page.evaluate("localStorage.length + sessionStorage.length") == 0
    assert page.errors == []


def test_charts_are_drawn_without_javascript(browser: Any, origin: str) -> None:
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1100, "height": 900}
    )
    refused = local_only(context, origin)
    page = context.new_page()
    page.goto(f"{origin}/vol1/hyperion")
    charts = page.locator("svg.chart")
    assert charts.count() == 2
    box = charts.first.bounding_box()
    assert box is not None and box["width"] > 500 and box["height"] > 150
    # four futures of revenue; of power, two ramps
    assert page.locator("svg.chart polyline").count() == 6
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "hyperion.png"), full_page=True)
    page.goto(f"{origin}/vol1/scorecard#row-11")
    assert page.locator("#row-11 .answer .value").inner_text() == "500 MW"
    context.close()
    assert refused == []
