"""A house of two volumes built as one site: its front page, "Where its sources were
wrong" grouped by book, its twin and feed, "corrected in the series", and the crawl."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from house_fixtures import write_house
from site_fixtures import crawl, page

EXEMPLAR_NAV = [
    ("Campuses", "/vol1/ledger"),
    ("Tests", "/vol1/tests"),
    ("Scorecard", "/vol1/scorecard"),
    ("Data", "/vol1/data/releases"),
    ("Chapter by chapter", "/vol1/companion"),
    ("The record at a glance", "/vol1/observatory"),
    ("The machine", "/vol1/machine"),
    ("One campus, four futures", "/vol1/hyperion"),
    ("Glossary", "/vol1/glossary"),
    ("People", "/vol1/people"),
    ("Sources", "/vol1/sources"),
    ("Notes", "/vol1/notes"),
    ("Where the book was wrong", "/vol1/corrections"),
    ("Where its sources were wrong", "/corrections?book=vol1"),
    ("The Paper", "/vol1/paper"),
    ("Consent", "/vol1/consent"),
    ("Who builds and pays", "/vol1/parties"),
]
"""The exemplar page's seventeen navigation links, as paths of the site."""


@pytest.fixture(scope="module")
def house_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from sourcebook.pipeline import build_house, check_house

    folder = write_house(tmp_path_factory.mktemp("house") / "house")
    checked = check_house(folder)
    assert checked.ok, [d.format() for d in checked.diagnostics.errors]
    out = folder / "_site"
    build_house(checked, out)
    return out


def main_of(html: str) -> str:
    return html.split('<main id="main_"', 1)[1].split("</main>", 1)[0]


def test_the_front_page_lists_each_volume_with_its_close_and_counts(house_site: Path) -> None:
    html = main_of(page(house_site, "/"))
    assert "<h1>The Compute Economy</h1>" in html
    first, second = html.index('href="/vol1/"'), html.index('href="/vol2/"')
    assert first < second
    assert "The AI Compute Race" in html and "The Power Race" in html
    assert "Its record closes on 8 November 2026." in html
    assert "Its record closes on 1 June 2027." in html
    assert "3 sources, 1 correction." in html  # volume 2's counts
    assert re.search(r"\d+ terms, \d+ campuses", html)


def test_the_corrections_page_is_grouped_by_book_then_by_source(house_site: Path) -> None:
    html = main_of(page(house_site, "/corrections"))
    vol1, vol2 = html.index('id="book-vol1"'), html.index('id="book-vol2"')
    assert vol1 < vol2
    part1, part2 = html[vol1:vol2], html[vol2:]
    # Every correction volume 1 logged stands in its part, each at its source.
    for source in (
        "tomshardware-oracle-gb200-abilene",
        "geotv-amazon-rainier-trainium",
        "sfbwmag-xai-colossus2-200mw",
        "tweaktown-xai-colossus-200k",
    ):
        assert f'id="vol1:{source}"' in part1
    # Volume 2 cites the Tom's Hardware article under its own id, found by its address:
    # volume 1's correction of it stands in volume 2's part too, linking volume 2's page.
    group = part2.split('id="vol2:abilene-order"', 1)[1].split("</article>", 1)[0]
    assert "Crusoe misspelt as Cruso" in group
    assert 'href="/vol2/sources/press/abilene-order"' in group
    assert 'href="/vol1/sources/press/tomshardware-oracle-gb200-abilene"' in group
    assert "<dt>The source said</dt>" in group and "<dt>What is right</dt>" in group
    who = group.split('<dd class="who">', 1)[1].split("</dd>", 1)[0]
    assert "Lee S. Dryburgh, <cite>The AI Compute Race: Five Races, One Machine</cite>" in who
    assert 'href="/vol1/corrections/sources#tomshardware-cruso"' in who
    assert 'href="/vol1/sources/press/techrepublic-stargate-abilene"' in who  # the evidence
    # Volume 2's own correction, of a source only it cites.
    assert 'id="vol2:grid-report"' in part2 and "The grid report’s year" in part2
    assert 'id="vol1:grid-report"' not in part1
    # The source shared by same_as was corrected by no one: listed nowhere.
    assert "abilene-owners" not in html
    assert 'id="vol1:techrepublic-stargate-abilene"' not in html


def test_each_volume_says_corrected_in_the_series_on_its_source_page(house_site: Path) -> None:
    one = page(house_site, "/vol1/sources/press/tomshardware-oracle-gb200-abilene")
    two = page(house_site, "/vol2/sources/press/abilene-order")
    assert '<a href="/corrections?book=vol1#vol1:tomshardware-oracle-gb200-abilene">' in one
    assert '<a href="/corrections?book=vol2#vol2:abilene-order">' in two
    for html in (one, two):
        assert "Corrected in the series:" in html
    untouched = page(house_site, "/vol2/sources/press/abilene-owners")
    assert "Corrected in the series" not in untouched


def test_each_volume_links_the_house_page_in_its_navigation(house_site: Path) -> None:
    for volume in ("vol1", "vol2"):
        nav = page(house_site, f"/{volume}/consent").split('class="site-nav"', 1)[1]
        assert f'<a href="/corrections?book={volume}">Where its sources were wrong</a>' in nav


def test_the_json_twin_and_the_feed_carry_every_correction(house_site: Path) -> None:
    twin = json.loads((house_site / "api" / "corrections.json").read_text(encoding="utf-8"))
    assert [b["book"] for b in twin["books"]] == ["vol1", "vol2"]
    assert twin["corrections"] == 5
    vol2 = {g["source"]: g for g in twin["books"][1]["sources"]}
    assert set(vol2) == {"abilene-order", "grid-report"}
    cruso = vol2["abilene-order"]["corrections"][0]
    assert cruso["by"]["book"] == "vol1" and cruso["right"].startswith("The company is Crusoe")
    assert [c["book"] for c in vol2["abilene-order"]["cited_by"]] == ["vol1", "vol2"]
    index = json.loads((house_site / "api" / "index.json").read_text(encoding="utf-8"))
    assert [v["closes"] for v in index["volumes"]] == ["2026-11-08", "2027-06-01"]
    atom = "{http://www.w3.org/2005/Atom}"
    feed = ET.parse(house_site / "corrections.atom").getroot()
    entries = feed.findall(f"{atom}entry")
    assert len(entries) == 5
    assert entries[0].findtext(f"{atom}title") == "The grid report’s year"  # newest first
    assert entries[0].findtext(f"{atom}id") == (
        "https://dryburgh.com/vol2/corrections/sources#grid-report-year"
    )
    assert 'href="/corrections.atom"' in page(house_site, "/corrections")


def test_the_built_house_crawls_clean_from_its_front_page(house_site: Path) -> None:
    reached, problems = crawl(house_site, "/")
    assert problems == []
    assert {"/", "/corrections", "/vol1/", "/vol2/", "/vol1/glossary/cluster"} <= reached


def test_the_exemplars_navigation_links_resolve_inside_the_house(house_site: Path) -> None:
    nav = page(house_site, "/vol1/glossary/cluster").split('class="site-nav"', 1)[1]
    nav = nav.split("</nav>", 1)[0]
    links = dict(
        (label, url) for url, label in re.findall(r'<a href="([^"]+)"[^>]*>([^<]+)</a>', nav)
    )
    # Every one of the exemplar's 17 links is there, at the exemplar's path, in its order,
    # and resolves inside the site.
    assert list(links.items()) == list(EXEMPLAR_NAV)
    for url in links.values():
        path = url.split("?", 1)[0]
        assert (house_site / path.lstrip("/") / "index.html").is_file(), url


def test_a_single_record_still_builds_alone(tmp_path: Path) -> None:
    from site_fixtures import build

    site = build(write_house(tmp_path / "h") / "power-race")
    html = page(site, "/vol2/")
    assert 'href="/vol2/corrections/sources">Where its sources were wrong' in html
    assert not (site / "corrections.html").exists()
