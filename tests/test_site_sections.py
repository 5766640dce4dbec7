"""The site's sections are declared in one table (`pages/sections.py`): a section added
there is built, linked from the menu and listed in the sitemap, and nothing else lists them."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from site_fixtures import build, page, write_record

from sourcebook.model.record import Record
from sourcebook.publish.site.pages import sections
from sourcebook.publish.site.pages.page import Page
from sourcebook.publish.site.pages.render import TEMPLATES
from sourcebook.publish.site.pages.sections import (
    BOOK,
    MENU_HEADINGS,
    PLACES,
    SECTIONS,
    Section,
    paths,
)
from sourcebook.publish.site.pages.urls import Urls

SITE_CODE = Path(sections.__file__).resolve().parent.parent


def _almanac(s: Section, record: Record, urls: Urls, _: Sequence[object]) -> Iterator[Page]:
    yield s.page(urls, {"terms": sections.ordered(record, "term")})


ALMANAC = Section("almanac", "almanac", "Almanac", BOOK, "almanac.html", _almanac, "term")
ALMANAC_TEMPLATE = """\
{% extends "base.html" %}
{% block title %}Almanac{% endblock %}
{% block main %}<h1>Almanac</h1>
<ul>{% for term in terms %}<li>{{ term.title }}</li>{% endfor %}</ul>
{% endblock %}
"""


def test_a_section_added_to_the_table_is_built_linked_and_in_the_sitemap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sections, "SECTIONS", (*SECTIONS, ALMANAC))
    root = write_record(tmp_path / "r", {"templates/almanac.html": ALMANAC_TEMPLATE})
    site = build(root)

    almanac = page(site, "/vol1/almanac")
    assert "<h1>Almanac</h1>" in almanac
    assert "<li>Cluster</li>" in almanac
    home = page(site, "/vol1")
    menu = home.split('<nav class="menu-bar"', 1)[1].split("</nav>", 1)[0]
    book = menu.split("<summary>The book</summary>", 1)[1].split("</details>", 1)[0]
    assert '<a href="/vol1/almanac">Almanac</a>' in book
    assert "https://dryburgh.com/vol1/almanac</loc>" in page(site, "/vol1/sitemap.xml")
    assert (site / "vol1/api/almanac.json").is_file()  # its JSON twin, as every page's


def test_every_section_has_its_url_its_menu_entry_and_its_template() -> None:
    names = [section.name for section in SECTIONS]
    assert len(names) == len(set(names))
    where = paths()
    for section in SECTIONS:
        assert (TEMPLATES / section.template).is_file(), section.name
        if section.path is not None:
            assert where[section.name] == section.path
        assert not section.in_menu or section.heading in MENU_HEADINGS, section.name
        assert section.in_menu or section.name == "library", section.name
        assert set(section.beside) <= set(where), section.name
    assert not set(PLACES) & set(names)
    assert len(set(where.values())) == len(where)  # no two names at one path


SECTION_NAMES = re.compile(r"[\"'](?:scorecard|observatory|source-corrections|companion)[\"']")


def test_no_other_module_of_the_site_lists_the_sections() -> None:
    """A list of sections elsewhere (a menu, a dict of paths) would have to be kept in step
    with the table: the site's code names a section only to ask for its URL."""
    listing = []
    for path in sorted(SITE_CODE.rglob("*.py")):
        if path.name == "sections.py":
            continue
        found = SECTION_NAMES.findall(path.read_text(encoding="utf-8"))
        if len(found) > 1:
            listing.append(f"{path.relative_to(SITE_CODE)}: {found}")
    assert listing == []
