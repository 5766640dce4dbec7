"""Every page of the site: where it lives, what it holds, and what the web expects of it."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from selectolax.lexbor import LexborHTMLParser as HTMLParser
from site_fixtures import build, file_for, page, write_record

PAGES = [
    "/vol1/",
    "/vol1/glossary",
    "/vol1/glossary/cluster",
    "/vol1/ledger",
    "/vol1/ledger/colossus-2",
    "/vol1/scorecard",
    "/vol1/sources",
    "/vol1/sources/company",
    "/vol1/sources/press",
    "/vol1/sources/research",
    "/vol1/sources/other",
    "/vol1/notes",
    "/vol1/notes/chapter-1",
    "/vol1/companion",
    "/vol1/people",
    "/vol1/people/patrick-kennedy",
    "/vol1/parties",
    "/vol1/parties/xai",
    "/vol1/tests",
    "/vol1/tests/gigawatt-by-2027",
    "/vol1/corrections",
    "/vol1/corrections/sources",
    "/vol1/consent",
]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(write_record(tmp_path_factory.mktemp("record")))


def tree(site: Path, url: str) -> HTMLParser:
    return HTMLParser(page(site, url))


def text(node) -> str:  # type: ignore[no-untyped-def]
    return " ".join(node.text().split())


@pytest.mark.parametrize("url", PAGES)
def test_every_page_is_whole(site: Path, url: str) -> None:
    doc = tree(site, url)
    assert doc.css_first("html").attributes["lang"] == "en"
    assert doc.css_first("title").text().endswith(" · The AI Compute Race · DRYBURGH")
    assert doc.css_first('meta[name="description"]').attributes["content"]
    assert doc.css_first('link[rel="canonical"]').attributes["href"] == "https://dryburgh.com" + url
    assert doc.css_first('meta[property="og:url"]').attributes["content"] == (
        "https://dryburgh.com" + url
    )
    assert doc.css_first('meta[property="og:title"]').attributes["content"]
    assert doc.css_first('meta[name="viewport"]')
    assert doc.css_first('link[rel="stylesheet"][media="print"]')
    assert doc.css_first("a.skip").attributes["href"] == "#main_"
    assert doc.css_first("main#main_") and doc.css_first("nav.menu-bar") and doc.css_first("footer")
    # The foot lists the navigation in full, but on the front page, whose text lists it.
    assert bool(doc.css_first("nav.site-nav")) is (url != "/vol1/")
    assert len(doc.css("h1")) == 1
    levels = [int(h.tag[1]) for h in doc.css("main h1, main h2, main h3, main h4")]
    assert all(b - a <= 1 for a, b in zip(levels, levels[1:], strict=False)), levels
    for script in doc.css('script[type="application/ld+json"]'):
        assert json.loads(script.text())["@context"] == "https://schema.org"


def test_the_navigation_links_only_pages_that_exist(site: Path, tmp_path: Path) -> None:
    labels = [text(a) for a in tree(site, "/vol1/glossary").css("nav.site-nav a")]
    assert labels == [
        "Campuses",
        "Tests",
        "Scorecard",
        "Chapter by chapter",
        "The machine",
        "Glossary",
        "People",
        "Sources",
        "Notes",
        "Where the book was wrong",
        "Where its sources were wrong",
        "Consent",
        "Who builds and pays",
    ]
    series = tree(site, "/vol1/glossary").css("nav.site-nav a")[10].attributes["href"]
    assert series == "https://dryburgh.com/corrections?book=vol1"
    small = tmp_path / "small"
    small.mkdir()
    (small / "sourcebook.toml").write_text(
        '[book]\ntitle = "T"\nhouse = "H"\ncloses = 2026-01-01\n', encoding="utf-8"
    )
    (small / "terms").mkdir()
    (small / "terms" / "word.md").write_text(
        "---\ntitle: Word\ndefinition: A word.\n---\nA word.\n"
    )
    small_site = build(small)
    hrefs = [a.attributes["href"] for a in tree(small_site, "/consent").css("nav.site-nav a")]
    assert hrefs == ["/glossary", "/corrections", "/corrections/sources", "/consent"]
    assert not (small_site / "ledger.html").exists()
    assert not (small_site / "sitemap.xml").exists()


def test_the_current_page_is_marked_in_the_navigation(site: Path) -> None:
    current = tree(site, "/vol1/glossary").css_first('nav a[aria-current="page"]')
    assert text(current) == "Glossary"


def test_the_ledger_is_a_sortable_table_of_campuses(site: Path) -> None:
    doc = tree(site, "/vol1/ledger")
    headers = [text(th) for th in doc.css("table.ledger thead th")]
    assert headers == [
        "Campus",
        "Place",
        "Who builds and pays",
        "Stage",
        "Evidenced power",
        "Chips running",
    ]
    rows = [[text(c) for c in tr.css("th, td")] for tr in doc.css("table.ledger tbody tr")]
    # its file says under construction; its figure shows it running, and the figure decides
    assert rows[0][:4] == [
        "Colossus 2",
        "Memphis, Tennessee, US",
        "xAI",
        "operating since June 2026",
    ]
    assert rows[0][4].startswith("200 MW as of September 2026")
    assert rows[0][5] == ""  # its 200,000 H100s are claimed, not evidenced
    assert rows[1][0] == "Stargate UAE" and rows[1][4] == ""
    assert doc.css_first("table.ledger tbody td.number").attributes["data-value"] == "200.0"


def test_a_campus_page_shows_its_parties_figures_and_backlinks(site: Path) -> None:
    doc = tree(site, "/vol1/ledger/colossus-2")
    assert text(doc.css_first(".roles li")).startswith("xAI: owner, operator")
    metrics = [text(h) for h in doc.css("section.timeline h3")]
    assert metrics == ["IT power", "Chips"]
    figures = [[text(c) for c in tr.css("th, td")] for tr in doc.css("table.figures tbody tr")]
    assert figures[0][:3] == ["September 2026", "200 MW", "operating"]
    assert figures[0][3].startswith("reported: Hawkins and Fan")
    assert figures[1][1] == "200,000 chips (H100)"
    data = json.loads(doc.css_first('script[type="application/ld+json"]').text())
    assert data["@type"] == "Place"
    assert data["address"]["addressCountry"] == "US"
    headings = [text(h) for h in doc.css("section.backlinks h2")]
    assert headings == ["Where the book uses it", "Where the record uses it"]


def test_the_scorecard_numbers_each_row_with_its_anchor(site: Path) -> None:
    doc = tree(site, "/vol1/scorecard")
    row = doc.css_first("#row-11")
    assert row.attributes["value"] == "11"
    assert text(row.css_first("h2")) == "11 Largest evidenced operating site"
    assert "Term Cluster" not in text(row)


def test_each_source_has_its_anchor_on_its_category_page(site: Path) -> None:
    for category, source in [
        ("company", "supermicro-colossus-case"),
        ("press", "bloomberg-moonshot-alibaba-jul26"),
        ("research", "semianalysis-btm-sep26"),
        ("other", "sa-essay"),
    ]:
        doc = tree(site, f"/vol1/sources/{category}")
        assert doc.css_first(f"li#{source}.source")
        data = json.loads(doc.css_first('script[type="application/ld+json"]').text())
        kinds = {a["@type"] for a in data["@graph"]}
        assert (
            kinds
            == {
                "company": {"Article"},
                "press": {"NewsArticle"},
                "research": {"ScholarlyArticle"},
                "other": {"Article"},
            }[category]
        )
    index = tree(site, "/vol1/sources")
    assert [text(h) for h in index.css("main h2")] == [
        "What the companies say 1",
        "The press 1",
        "Research 1",
        "Books, essays and the rest 1",
    ]
    press = tree(site, "/vol1/sources/company")
    address = press.css_first(".addresses a")
    assert address.attributes["href"].startswith("https://www.servethehome.com/")
    assert text(address) == "www.servethehome.com"


def test_parties_show_their_roles_at_each_campus(site: Path) -> None:
    doc = tree(site, "/vol1/parties")
    assert text(doc.css_first("h1")) == "Who builds and pays"
    xai = [tr for tr in doc.css("tbody tr") if text(tr.css_first("th")) == "xAI"][0]
    assert text(xai.css("td")[1]) == "Colossus 2 (owner, operator)"
    party = tree(site, "/vol1/parties/xai")
    assert text(party.css_first(".roles li")).startswith("Colossus 2: owner, operator")
    assert json.loads(party.css_first('script[type="application/ld+json"]').text())["@type"] == (
        "Organization"
    )
    semianalysis = tree(site, "/vol1/parties/semianalysis")
    assert text(semianalysis.css_first(".disclosure")) == (
        "Disclosure. SemiAnalysis sells subscriptions, consulting and its own models of chip "
        "supply."
    )


def test_notes_companion_people_and_tests(site: Path) -> None:
    notes = tree(site, "/vol1/notes/chapter-1")
    assert text(notes.css_first("h1")) == "Chapter 1 — The Stakes"
    assert notes.css_first('.notes a[href="/vol1/sources/other#sa-essay"]')
    assert text(notes.css_first(".notes h2")) == "What the notes rest on"
    companion = tree(site, "/vol1/companion")
    chapter = companion.css_first("section.companion-chapter")
    groups = {text(h): [text(a) for a in h.next.next.css("a")] for h in chapter.css("h3")}
    assert groups["Terms it introduces"] == ["Cluster"]
    assert groups["Sources its notes cite"] == ["Aschenbrenner, June 2024"]
    assert groups["Campuses in its notes"] == ["Colossus 2"]
    second = companion.css("section.companion-chapter")[1]
    assert [text(a) for a in second.css("h3 + ul a")][-1] == "A gigawatt by 2027"
    people = tree(site, "/vol1/people")
    assert [text(a) for a in people.css("ul.people a")] == [
        "Leopold Aschenbrenner",
        "Haze Fan",
        "Mackenzie Hawkins",
        "Patrick Kennedy",
    ]
    person = tree(site, "/vol1/people/patrick-kennedy")
    assert json.loads(person.css_first('script[type="application/ld+json"]').text())["@type"] == (
        "Person"
    )
    assert "Sources that use it" in [text(h) for h in person.css("h2")]
    test = tree(site, "/vol1/tests/gigawatt-by-2027")
    assert [text(d) for d in test.css(".test-terms dd")][1:] == [
        "31 December 2027",
        "Met when a documented or observed figure says so.",
        "Chapter 2 — The Machine",
    ]


def test_corrections_of_the_book_and_of_its_sources(site: Path) -> None:
    book = tree(site, "/vol1/corrections")
    assert text(book.css_first("h1")) == "Where the book was wrong"
    entry = book.css_first("article#colossus-date")
    assert text(entry.css_first(".logged")).startswith("Logged 1 October 2026 · Chapter 1")
    assert book.css_first('.see-also a[href="/vol1/corrections/sources"]')
    sources = tree(site, "/vol1/corrections/sources")
    assert sources.css_first("article#semianalysis-doubled-word")
    assert "Disputed by Alibaba" in text(sources.css_first("#disputed_ + ul"))


def test_consent_says_what_is_stored(site: Path) -> None:
    doc = tree(site, "/vol1/consent")
    assert text(doc.css_first(".lede")) == (
        "Your privacy, in short: this site keeps nothing about you, so there is nothing to "
        "consent to."
    )
    twin = json.loads((site / "vol1" / "api" / "consent.json").read_text(encoding="utf-8"))
    assert twin["policy"] == {"signup": None, "stored": []}


def test_the_consent_twin_states_what_the_page_and_the_service_do(tmp_path: Path) -> None:
    """With a sign-up service, the twin carries the statement, each table the service
    keeps with its columns, and each period, as the page shows them."""
    from sourcebook.notify.policy import stored_columns

    bundled = Path(__file__).resolve().parent.parent / "examples" / "compute-race"
    out = build(bundled, tmp_path / "site", search=False)
    doc = tree(out, "/vol1/consent")
    twin = json.loads((out / "vol1" / "api" / "consent.json").read_text(encoding="utf-8"))
    signup, stored = twin["policy"]["signup"], twin["policy"]["stored"]
    assert signup["statement"]["sha256"] == text(doc.css_first("code.hash"))
    assert signup["statement"]["text"] == text(doc.css_first("#statement + blockquote"))
    assert {t["table"]: set(t["columns"]) for t in stored} == stored_columns()
    assert [t["table"] for t in stored] == [h.text().strip() for h in doc.css("h3[id^=kept-] code")]
    assert str(signup["unconfirmed_deleted_after_days"]) in text(doc.css_first("#how + p"))


def test_not_found_page_and_sitemap(site: Path) -> None:
    assert "Not found" in page(site, "/404.html")
    assert file_for(site, "/vol1/404") is None
    sitemap = ET.parse(site / "vol1" / "sitemap.xml").getroot()
    namespace = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = [e.text for e in sitemap.findall("s:url/s:loc", namespace)]
    assert "https://dryburgh.com/vol1/glossary/cluster" in locs
    assert "https://dryburgh.com/vol1/sources/press" in locs
    # Every page but the search page, which has nothing to index.
    assert len(locs) == len(set(locs)) == len(list(site.rglob("*/index.html"))) - 1
    assert "https://dryburgh.com/vol1/search" not in locs


def test_pages_are_small_and_load_nothing_from_elsewhere(site: Path) -> None:
    for path in site.rglob("*.html"):
        html = path.read_text(encoding="utf-8")
        doc = HTMLParser(html)
        for node in doc.css("script[src], link[rel=stylesheet], img[src]"):
            ref = node.attributes.get("src") or node.attributes.get("href") or ""
            assert ref.startswith("/vol1/static/"), ref
    static = site / "vol1" / "static"
    every_page = sum(
        (static / name).stat().st_size for name in ("site.css", "print.css", "site.js")
    )
    assert every_page < 40_000
    # the search page's alone, which merges the index's buckets and looks in the lexicon
    assert (static / "search.js").stat().st_size < 16_000
