"""The bundled site on a phone, 360 px wide, in headless Chromium: nothing wider than the
screen, every table read a row at a time or scrolling in a frame that shows it does, and
no citation chip over the lines around it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from site_fixtures import ARTIFACTS, local_only

pytestmark = pytest.mark.browser

BUNDLED = Path(__file__).resolve().parent.parent / "examples" / "compute-race"
WIDTH = 360
PAGES = [
    "/vol1/",
    "/vol1/ledger",
    "/vol1/ledger/colossus-2",
    "/vol1/ledger/stargate-uae",
    "/vol1/parties",
    "/vol1/parties/xai",
    "/vol1/glossary",
    "/vol1/glossary/cluster",
    "/vol1/scorecard",
    "/vol1/tests",
    "/vol1/sources/press",
    "/vol1/notes/chapter-1",
    "/vol1/hyperion",
    "/vol1/data/releases",
    "/vol1/corrections",
]

# Elements that reach past the screen's right edge, and are not inside a frame that
# scrolls (a table's `.table-wrap`, a `pre`): what a reader would have to pan to see.
TOO_WIDE = """(width) => {
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 0.5) continue;
    if (el.closest(".table-wrap, pre, .tooltip, .skip")) continue;
    const name = el.tagName.toLowerCase() + (el.className ? "." + el.className : "");
    out.push(name + " " + Math.round(box.right));
  }
  return out;
}"""

# A frame that scrolls must show it: the shadows of `.table-wrap` are its background.
SCROLLERS = """() => [...document.querySelectorAll(".table-wrap")]
  .filter(w => w.scrollWidth > w.clientWidth + 1)
  .map(w => ({id: w.getAttribute("aria-labelledby"),
              shadow: getComputedStyle(w).backgroundImage.includes("gradient"),
              focusable: w.tabIndex === 0}))"""

# Stacked tables: every column's cell is on the screen, and an empty one takes no room.
STACKED = """(width) => {
  const out = [];
  for (const cell of document.querySelectorAll("table.stack td, table.stack tbody th")) {
    const box = cell.getBoundingClientRect();
    if (box.right > width + 0.5) out.push("off-screen: " + cell.textContent.trim().slice(0, 40));
    if (!cell.textContent.trim() && box.height > 0) out.push("an empty cell takes room");
  }
  return out;
}"""

# An inline citation chip stays within its line: no box above or below the text.
CHIPS = """() => [...document.querySelectorAll(".prose .citation, p .citation, li .citation")]
  .filter(c => getComputedStyle(c).display === "inline")
  .filter(c => {
    const style = getComputedStyle(c);
    return parseFloat(style.paddingTop) > 0 || parseFloat(style.paddingBottom) > 0
      || parseFloat(style.borderTopWidth) > 0 || style.backgroundColor !== "rgba(0, 0, 0, 0)";
  }).map(c => c.textContent.slice(0, 40))"""


def label(cell: Any) -> str:
    """What a stacked table's cell shows before its text: its column's name."""
    return str(cell.evaluate("c => getComputedStyle(c, '::before').content"))


@pytest.fixture(scope="module")
def phone(browser: Any, origin: str) -> Iterator[tuple[Any, str]]:
    context = browser.new_context(viewport={"width": WIDTH, "height": 760})
    refused = local_only(context, origin)
    yield context.new_page(), origin
    assert refused == []
    context.close()


@pytest.mark.parametrize("url", PAGES)
def test_nothing_is_wider_than_the_phone(phone: tuple[Any, str], url: str) -> None:
    page, origin = phone
    assert page.goto(origin + url).status == 200
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
    assert page.evaluate(TOO_WIDE, WIDTH) == []
    assert page.evaluate(STACKED, WIDTH) == []
    for scroller in page.evaluate(SCROLLERS):
        assert scroller["shadow"] and scroller["focusable"], scroller
    assert page.evaluate(CHIPS) == []


def test_the_ledger_and_the_figures_are_read_a_row_at_a_time(phone: tuple[Any, str]) -> None:
    page, origin = phone
    page.goto(origin + "/vol1/ledger")
    assert page.locator("table.ledger thead").bounding_box()["height"] <= 1  # set aside
    colossus = page.locator("table.ledger tbody tr", has_text="Colossus 2").first
    assert colossus.locator("td").count() == 5
    assert label(colossus.locator("td.number").first) == '"Evidenced power: "'
    assert "200 MW as of September 2025" in colossus.inner_text()
    assert not page.locator(".sort-hint").is_visible()  # sorting needs the headings
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ledger-360.png"), full_page=True)
    page.goto(origin + "/vol1/ledger/colossus-2")
    row = page.locator("table.figures tbody tr").first
    assert label(row.locator("td").last) == '"Evidence: "'
    page.screenshot(path=str(ARTIFACTS / "campus-360.png"), full_page=True)


def test_the_sort_hint_shows_only_where_sorting_works(browser: Any, origin: str) -> None:
    for script in (True, False):
        context = browser.new_context(
            java_script_enabled=script, viewport={"width": 1100, "height": 800}
        )
        page = context.new_page()
        page.goto(origin + "/vol1/ledger")
        assert page.locator(".sort-hint").is_visible() is script
        assert page.locator("table.ledger thead th button").count() == (6 if script else 0)
        context.close()
