"""The glossary: a term's page laid out as the exemplar, and the alphabetical index."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser as HTMLParser
from site_fixtures import build, page, write_record

from sourcebook.publish.site.formats import structured


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(write_record(tmp_path_factory.mktemp("record")))


@pytest.fixture(scope="module")
def cluster(site: Path) -> HTMLParser:
    return HTMLParser(page(site, "/vol1/glossary/cluster"))


def texts(tree: HTMLParser, selector: str) -> list[str]:
    return [" ".join(n.text().split()) for n in tree.css(selector)]


def block(tree: HTMLParser, heading: str):  # type: ignore[no-untyped-def]
    for section in tree.css("section.backlinks"):
        if section.css_first("h2").text() == heading:
            return section
    return None


def test_title_description_and_question(cluster: HTMLParser) -> None:
    assert cluster.css_first("title").text() == (
        "Cluster: what it means · The AI Compute Race · DRYBURGH"
    )
    description = cluster.css_first('meta[name="description"]').attributes["content"]
    assert description == (
        "Cluster: A datacenter’s worth of chips wired to work as one machine. Chapter 1."
    )
    assert cluster.css_first("h1").text() == "Cluster"
    assert cluster.css_first(".question").text() == "What does “Cluster” mean?"
    definition = " ".join(cluster.css_first(".definition dd").text().split())
    assert definition == "A datacenter’s worth of chips wired to work as one machine. Chapter 1."
    about = cluster.css_first(".from-book a")
    assert about.text() == "About the book"
    assert about.attributes["href"] == "/vol1/about"  # the site's own page, never away


def test_where_the_book_uses_it(cluster: HTMLParser) -> None:
    section = block(cluster, "Where the book uses it")
    link = section.css_first("li a")
    assert link.text() == "Chapter 1 — The Stakes"
    assert link.attributes["href"] == "/vol1/notes/chapter-1"
    assert "What the race is for" in section.css_first(".summary").text()


def test_where_the_record_uses_it(cluster: HTMLParser) -> None:
    section = block(cluster, "Where the record uses it")
    assert texts(section, "li") == [
        "Campus Colossus 2",
        "Campus Stargate UAE",
        "Scorecard indicator Largest evidenced operating site",
    ]
    hrefs = [a.attributes["href"] for a in section.css("a")]
    assert hrefs == [
        "/vol1/ledger/colossus-2",
        "/vol1/ledger/stargate-uae",
        "/vol1/scorecard#row-11",
    ]


def test_sources_that_use_it_are_cited_in_full(cluster: HTMLParser) -> None:
    section = block(cluster, "Sources that use it")
    items = texts(section, "li")
    assert items[0].startswith(
        "Patrick Kennedy, ServeTheHome, “Inside the 100K GPU xAI Colossus Cluster that "
        "Supermicro Helped Build,” 28 October 2024, reprinted by Supermicro as a case study, "
        "December 2024 (A walk through the site"
    )
    assert "Sponsored by Supermicro, as it says.)" in items[0]
    assert items[1].startswith(
        "Leopold Aschenbrenner, Situational Awareness: The Decade Ahead, June 2024 (Chapter"
    )
    assert items[2].startswith(
        "Mackenzie Hawkins and Haze Fan, “Moonshot’s Kimi Uses 20,000 Nvidia Chip "
        "Cluster From Alibaba,” Bloomberg, 31 July 2026, updated the same day ("
    )
    assert "(SemiAnalysis sells subscriptions" in items[3]
    assert all(item.endswith("In the Sources") for item in items)
    hrefs = [a.attributes["href"] for a in section.css("a.in-sources")]
    assert hrefs == [
        "/vol1/sources/company#supermicro-colossus-case",
        "/vol1/sources/other#sa-essay",
        "/vol1/sources/press#bloomberg-moonshot-alibaba-jul26",
        "/vol1/sources/research#semianalysis-btm-sep26",
    ]
    italic = section.css_first("li:nth-child(2) i")
    assert italic.text() == "Situational Awareness: The Decade Ahead"


def test_the_page_does_not_link_to_itself(cluster: HTMLParser) -> None:
    main = cluster.css_first("main")
    assert not main.css('a[href="/vol1/glossary/cluster"]')
    assert main.css("span.self")


def test_related_terms_and_the_book_line(cluster: HTMLParser) -> None:
    section = block(cluster, "Related terms")
    assert texts(section, "li") == ["One machine"]
    line = " ".join(cluster.css_first(".book-line").text().split())
    assert line == (
        "The AI Compute Race: Five Races, One Machine is a book by Lee S. Dryburgh, the first "
        "volume of THE COMPUTE ECONOMY, published by Dryburgh, an imprint of Contestra OÜ, "
        "Tallinn, Estonia; its record closes on 8 November 2026."
    )
    assert cluster.css_first(".book-line i").text().startswith("The AI Compute Race")


def test_an_empty_block_is_left_out(site: Path) -> None:
    tree = HTMLParser(page(site, "/vol1/glossary/one-machine"))
    headings = texts(tree, "section.backlinks h2")
    assert "Sources that use it" not in headings
    assert "Where the book uses it" in headings


def test_term_mentions_find_their_definitions_in_the_one_previews_file(site: Path) -> None:
    tree = HTMLParser(page(site, "/vol1/glossary/one-machine"))
    link = tree.css_first("main .prose a.term")
    assert link.text() == "cluster" and link.attributes["href"] == "/vol1/glossary/cluster"
    assert tree.css_first("body").attributes["data-previews"] == "/vol1/previews.json"
    assert "A datacenter’s worth of chips" not in tree.css_first("body").html
    table = json.loads((site / "vol1" / "previews.json").read_text(encoding="utf-8"))
    kind, title, line, names = table["/vol1/glossary/cluster"]
    assert (kind, title, names) == ("Term", "Cluster", ["Cluster"])
    assert line.startswith("A datacenter’s worth of chips")


def test_structured_data_is_a_defined_term_in_a_set(cluster: HTMLParser) -> None:
    data = json.loads(cluster.css_first('script[type="application/ld+json"]').text())
    assert data["@type"] == "DefinedTerm"
    assert data["name"] == "Cluster"
    assert data["url"] == "https://dryburgh.com/vol1/glossary/cluster"
    assert data["inDefinedTermSet"]["@type"] == "DefinedTermSet"
    assert data["inDefinedTermSet"]["url"] == "https://dryburgh.com/vol1/glossary"


def test_the_index_is_alphabetical_with_letter_jumps(site: Path) -> None:
    tree = HTMLParser(page(site, "/vol1/glossary"))
    assert texts(tree, "dl.glossary dt") == ["Cluster", "One machine"]
    jumps = {a.text(): a.attributes["href"] for a in tree.css(".letters a")}
    assert jumps == {"C": "#letter_c", "O": "#letter_o"}
    assert tree.css_first("#letter_c").text() == "C"
    data = json.loads(tree.css_first('script[type="application/ld+json"]').text())
    assert data["@type"] == "DefinedTermSet"
    assert [t["name"] for t in data["hasDefinedTerm"]] == ["Cluster", "One machine"]


def test_a_title_that_starts_with_a_figure_is_filed_apart(tmp_path: Path) -> None:
    term = """\
        ---
        title: 122 days
        definition: How long the first Colossus took to build.
        chapters: [chapter-1]
        ---
        """
    site = build(write_record(tmp_path / "r", {"terms/122-days.md": term}))
    tree = HTMLParser(page(site, "/vol1/glossary"))
    assert tree.css_first("#letter_other").text() == "Figures and signs"
    assert [a.text() for a in tree.css(".letters a")][-1] == "#"


def test_a_draft_is_marked_where_drafts_are_built(tmp_path: Path) -> None:
    term = """\
        ---
        title: One machine
        definition: Many chips that train a single model together.
        chapters: [chapter-2]
        draft: true
        ---
        """
    site = build(write_record(tmp_path / "r", {"terms/one-machine.md": term}), drafts=True)
    assert (
        "Draft." in HTMLParser(page(site, "/vol1/glossary/one-machine")).css_first(".draft").text()
    )
    glossary = page(site, "/vol1/glossary")
    assert re.search(r"One machine</a> <span class=\"draft-mark\">\(draft\)</span>", glossary)


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.sampled_from(["", "a", "0"])),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from("abc"), inner, max_size=3)
    ),
    max_leaves=10,
)


@given(JSON_VALUES)
def test_structured_data_leaves_out_every_empty_value_at_every_depth(data: object) -> None:
    def plainly_pruned(value: object) -> object:
        if isinstance(value, dict):
            kept = {k: plainly_pruned(v) for k, v in value.items()}
            return {k: v for k, v in kept.items() if v not in ("", [], {}, None)}
        if isinstance(value, list):
            return [plainly_pruned(v) for v in value]
        return value

    assert structured.pruned(data) == plainly_pruned(data)
