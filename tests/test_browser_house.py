"""/corrections?book=… in Chromium: the book's part first with JavaScript; every book's
part, in series order and each under its anchor, without."""

from __future__ import annotations

import re
from typing import Any

import pytest
from house_fixtures import write_house
from site_fixtures import ARTIFACTS, local_only, serving


@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    from sourcebook.pipeline import build_house, check_house

    folder = write_house(tmp_path_factory.mktemp("house") / "house")
    build_house(check_house(folder), folder / "_site")
    with serving(folder / "_site", "") as url:
        yield url


def parts(page) -> list[str]:  # type: ignore[no-untyped-def]
    return page.eval_on_selector_all(".book-part", "els => els.map(e => e.dataset.book)")


def test_the_chosen_books_part_comes_first(browser: Any, origin: str) -> None:
    context = browser.new_context()
    refused = local_only(context, origin)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{origin}/corrections?book=vol2")
    assert parts(page) == ["vol2", "vol1"]
    assert page.is_visible("#book-choice_")
    assert "The Power Race" in page.inner_text("#book-choice_")
    assert page.locator("#book-vol2").get_attribute("class") == "book-part chosen"
    page.goto(f"{origin}/corrections?book=vol1")
    assert parts(page) == ["vol1", "vol2"]
    assert "The AI Compute Race" in page.inner_text("#book-choice_")
    # From volume 2's source page, "corrected in the series" leads to its group.
    page.goto(f"{origin}/vol2/sources/press/abilene-order")
    page.click(".series-corrected a")
    # a static host answers the bare URL with a redirect to its folder's
    page.wait_for_url(re.compile(r".*/corrections/?\?book=vol2#vol2:abilene-order$"))
    assert parts(page) == ["vol2", "vol1"]
    group = page.locator('[id="vol2:abilene-order"]')
    assert "Crusoe misspelt as Cruso" in group.inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "house-corrections-vol2.png"), full_page=False)
    assert errors == [] and refused == []
    context.close()


def test_without_javascript_every_books_part_is_shown_under_its_anchor(
    browser: Any, origin: str
) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{origin}/corrections?book=vol2")
    assert parts(page) == ["vol1", "vol2"]
    assert not page.is_visible("#book-choice_")
    for book in ("vol1", "vol2"):
        assert page.is_visible(f"#book-{book}")
        page.click(f'.book-parts a[href="#book-{book}"]')
        assert page.evaluate("location.hash") == f"#book-{book}"
    assert page.locator('[id="vol1:tomshardware-oracle-gb200-abilene"]').is_visible()
    assert page.locator('[id="vol2:grid-report"]').is_visible()
    context.close()
