"""The bundled site read as a reader reads it, from its built pages: where a page sits,
links about the book that stay on the site, the house style against the exemplar, a
source's citation to copy, the sitemap, and none of the developer's leftovers."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from selectolax.lexbor import LexborHTMLParser as HTMLParser
from site_fixtures import build, file_for, write_record

BUNDLED = Path(__file__).resolve().parent.parent / "examples" / "compute-race"

# The exemplar's five citations on /vol1/glossary/cluster, up to each one's annotation.
EXEMPLAR = [
    "Patrick Kennedy, ServeTheHome, “Inside the 100K GPU xAI Colossus Cluster that "
    "Supermicro Helped Build for Elon Musk,” 28 October 2024, reprinted by Supermicro as a "
    "case study, December 2024",
    "Leopold Aschenbrenner, <i>Situational Awareness: The Decade Ahead</i>, June 2024",
    "Mackenzie Hawkins and Haze Fan, “Moonshot’s Kimi Uses 20,000 Nvidia Chip Cluster From "
    "Alibaba,” Bloomberg, 31 July 2026, updated the same day",
    "Ellie Holbrook, Robert Boswall, Jeremie Eliahou Ontiveros, Nicolas Bontigui and Dylan "
    "Patel, “What is So Hard About Behind-The-Meter Power For Datacenters? Part 1,” "
    "<i>SemiAnalysis</i>, 10 September 2026",
    "SemiAnalysis, “The Great GPU Shortage – Rental Capacity – Launching our H100 1 Year "
    "Rental Price Index,” 2 April 2026",
]


def page(site: Path, url: str) -> HTMLParser:
    found = file_for(site, url)
    assert found is not None, url
    return HTMLParser(found.read_text(encoding="utf-8"))


def text(node: object) -> str:
    return " ".join(node.text().split())  # type: ignore[attr-defined]


def visible_text(site: Path) -> dict[str, str]:
    """Every HTML page's body as a reader sees its words (scripts and styles aside)."""
    out = {}
    for path in sorted(site.rglob("*.html")):
        doc = HTMLParser(path.read_text(encoding="utf-8"))
        for node in doc.css("script, style"):
            node.decompose()
        if doc.body is not None:
            out[str(path.relative_to(site))] = doc.body.text(separator="", strip=False)
    return out


@pytest.fixture(scope="module")
def words(bundled_site: Path) -> dict[str, str]:
    return visible_text(bundled_site)


def test_every_page_has_the_menu_and_a_breadcrumb(bundled_site: Path) -> None:
    press = page(bundled_site, "/vol1/sources/press")
    groups = [text(s) for s in press.css("nav.menu-bar summary")]
    assert groups == ["The book", "The buildout", "The evidence", "About"]
    menu = [a.attributes["href"] for a in press.css("nav.menu-bar a")]
    phone = [a.attributes["href"] for a in press.css("details.menu-phone a")]
    foot = [a.attributes["href"] for a in press.css("nav.site-nav a")]
    assert len(foot) == 17 and menu == phone and sorted(menu) == sorted([*foot, "/vol1/about"])
    assert press.css_first("header .site-search")
    crumbs = [(text(a), a.attributes.get("href")) for a in press.css("nav.crumbs li > *")]
    assert crumbs == [
        ("The AI Compute Race", "/vol1/"),
        ("Sources", "/vol1/sources"),
        ("The press", None),
    ]
    source = page(bundled_site, "/vol1/sources/press/bloomberg-moonshot-alibaba-jul26")
    labels = [text(li) for li in source.css("nav.crumbs li")]
    assert labels == [
        "The AI Compute Race",
        "Sources",
        "The press",
        "Moonshot’s Kimi Uses 20,000 Nvidia Chip Cluster From Alibaba",
    ]
    assert source.css_first('nav.crumbs a[href="/vol1/sources/press"]')
    term = page(bundled_site, "/vol1/glossary/cluster")
    assert [text(li) for li in term.css("nav.crumbs li")] == [
        "The AI Compute Race",
        "Glossary",
        "Cluster",
    ]
    assert term.css_first('nav.menu-bar a[aria-current="page"]') is None
    glossary = page(bundled_site, "/vol1/glossary")
    assert text(glossary.css_first('nav.menu-bar a[aria-current="page"]')) == "Glossary"


def test_the_front_page_lists_the_sections_once(bundled_site: Path) -> None:
    home = page(bundled_site, "/vol1/")
    assert len(home.css("main .contents a")) == 17
    assert home.css_first("nav.site-nav") is None
    assert home.css_first("nav.crumbs") is None
    assert text(home.css_first("h1")) == "The AI Compute Race: Five Races, One Machine"


def test_links_about_the_book_stay_on_the_site(bundled_site: Path, words: dict) -> None:
    for path in bundled_site.rglob("*.html"):
        html = path.read_text(encoding="utf-8")
        assert "#buy" not in html, path
        doc = HTMLParser(html)
        for link in doc.css(".book-links a, .from-book a"):
            assert link.attributes["href"].startswith("/"), (path, link.attributes)
    about = page(bundled_site, "/vol1/about")
    facts = dict(zip(map(text, about.css("dt")), map(text, about.css("dd")), strict=True))
    assert text(about.css_first("h1")) == "The AI Compute Race: Five Races, One Machine"
    assert facts["Author"] == "Lee S. Dryburgh"
    assert facts["Published by"] == "Dryburgh, an imprint of Contestra OÜ, Tallinn, Estonia"
    assert facts["Series"] == "The Compute Economy, volume 1"
    assert facts["Its record closes"].startswith("8 November 2026")
    assert facts["Where to buy it"].startswith("It is not on sale yet.")
    assert not any("Buy" in t or "Read the book" in t for t in words.values())


def test_a_buy_link_is_shown_once_the_book_is_on_sale(tmp_path: Path) -> None:
    root = write_record(tmp_path / "record")
    site = build(root)
    about = page(site, "/vol1/about")
    buy = about.css_first("dd a")
    assert buy.attributes["href"] == "https://dryburgh.com/vol1#buy"  # the settings' book_url
    assert text(buy) == "dryburgh.com"
    assert json.loads(about.css_first('script[type="application/ld+json"]').text())["offers"]


def test_the_cluster_page_cites_its_sources_as_the_exemplar_does(bundled_site: Path) -> None:
    cluster = page(bundled_site, "/vol1/glossary/cluster")
    heading = cluster.css_first("#sources_use_")
    items = heading.parent.css("li") if heading is not None else []
    heads = [li.html.split(" (", 1)[0].removeprefix("<li>") for li in items]
    assert heads == EXEMPLAR


def test_the_sources_index_lists_every_source_in_the_house_style(bundled_site: Path) -> None:
    index = page(bundled_site, "/vol1/sources")
    labels = [text(li) for li in index.css("ul.source-index li")]
    assert len(labels) == 28
    for label in labels:
        assert re.search(r"(“.+?,?”|Situational Awareness)", label), label
        assert not re.match(r"^[^,“]+, \d", label), label  # no "Kennedy, 28 October 2024:"
    assert (
        "Mackenzie Hawkins and Haze Fan, “Moonshot’s Kimi Uses 20,000 Nvidia Chip Cluster From "
        "Alibaba,” Bloomberg, 31 July 2026, updated the same day" in labels
    )


def test_a_source_offers_its_citation_to_copy(bundled_site: Path) -> None:
    source = page(bundled_site, "/vol1/sources/press/bloomberg-moonshot-alibaba-jul26")
    assert text(source.css_first("#cite-house")).startswith("Mackenzie Hawkins and Haze Fan, “")
    names = [text(s) for s in source.css(".cite-format summary")]
    assert names == ["BibTeX", "RIS", "CSL-JSON"]
    bibtex = source.css_first("#cite-bibtex").text()
    assert bibtex.startswith("@article{bloomberg-moonshot-alibaba-jul26,")
    assert "author = {Hawkins, Mackenzie and Fan, Haze}" in bibtex
    ris = source.css_first("#cite-ris").text().splitlines()
    assert ris[0] == "TY  - NEWS" and "AU  - Hawkins, Mackenzie" in ris and ris[-1] == "ER  -"
    csl = json.loads(source.css_first("#cite-csl-json").text())
    assert csl[0]["id"] == "bloomberg-moonshot-alibaba-jul26"
    assert csl[0]["container-title"] == "Bloomberg"
    assert csl[0]["issued"] == {"date-parts": [[2026, 7, 31]]}
    for button in source.css("button.copy"):
        assert "hidden" in button.attributes  # shown by the script, which can copy


LEFTOVERS = {
    "a table's name": r"In the data: its row",
    "a field's colon": r"\bsells: ",
    "a count's plural": r"\(1 (rows|campuses)\b",
    "an ISO month in a sentence": r"\$\d+\.\d\d, 20\d\d-\d\d",
    "a citation glued to a quote": r"”\(",
    "parentheses run together": r"\)\.\)",
    "the title run into the subtitle": r"RaceFive",
    "a number twice": r"\b\d\. \d\.\d",
    "a script the Consent page forgets": r"one script the pages carry",
}


@pytest.mark.parametrize("name", sorted(LEFTOVERS))
def test_no_page_shows_a_leftover(words: dict[str, str], name: str) -> None:
    found = [p for p, body in words.items() if re.search(LEFTOVERS[name], body)]
    assert found == [], name


def test_the_paper_is_typeset(bundled_site: Path) -> None:
    paper = page(bundled_site, "/vol1/paper")
    body = text(paper.css_first(".paper-body"))
    assert '"' not in body and "'" not in body
    toc = paper.css_first("nav.toc ul")
    assert toc is not None and text(toc.css_first("li")) == "1 The question"


def test_the_sitemap_covers_the_house_with_days_and_robots_finds_it(tmp_path: Path) -> None:
    from sourcebook.pipeline import build_house, check_house

    site = tmp_path / "site"
    build_house(check_house(BUNDLED.parent / "house.toml"), site)
    robots = (site / "robots.txt").read_text(encoding="utf-8")
    assert "Sitemap: https://dryburgh.com/sitemap.xml" in robots.splitlines()
    index = (site / "sitemap.xml").read_text(encoding="utf-8")
    maps = re.findall(r"<loc>([^<]+)</loc><lastmod>(\d{4}-\d\d-\d\d)</lastmod>", index)
    assert [m[0] for m in maps] == [
        "https://dryburgh.com/house-sitemap.xml",
        "https://dryburgh.com/vol1/sitemap.xml",
    ]
    house = (site / "house-sitemap.xml").read_text(encoding="utf-8")
    assert "<loc>https://dryburgh.com/corrections</loc><lastmod>" in house
    volume = (site / "vol1" / "sitemap.xml").read_text(encoding="utf-8")
    urls = re.findall(r"<url><loc>[^<]+</loc><lastmod>2026-11-08</lastmod></url>", volume)
    assert len(urls) == volume.count("<url>") > 100
    assert not (site / "vol1" / "robots.txt").exists()


def test_charts_label_months_as_a_reader_says_them(bundled_site: Path) -> None:
    for url in ("/vol1/observatory", "/vol1/ledger/colossus-1", "/vol1/hyperion"):
        html = file_for(bundled_site, url).read_text(encoding="utf-8")  # type: ignore[union-attr]
        labels = re.findall(r"<text[^>]*>([^<]*)</text>", html)
        tips = re.findall(r"<title>([^<]*)</title>", html)
        assert labels, url
        assert [t for t in labels + tips if re.search(r"\b20\d\d-\d\d\b", t)] == [], url
    observatory = file_for(bundled_site, "/vol1/observatory").read_text(encoding="utf-8")  # type: ignore[union-attr]
    assert re.search(r"<text[^>]*>(Jan|Jul) 2025</text>", observatory)
