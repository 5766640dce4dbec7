"""The Data page, the releases feed and each page's link to its rows, on a record released
twice: what a reader who downloads the data meets."""

from __future__ import annotations

import csv
import hashlib
import io
import xml.etree.ElementTree as ET
from pathlib import Path

import feedparser
import pytest
from release_fixtures import copy_bundled, run
from selectolax.lexbor import LexborHTMLParser as HTMLParser

ATOM = "{http://www.w3.org/2005/Atom}"
HOSTILE = "<script>alert('release')</script> Watts"

TERM = """---
title: "{title}"
definition: A term added between two releases.
chapters: [chapter-1]
---
"""


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_bundled(tmp_path_factory.mktemp("data") / "compute-race")
    assert run("release", "v1", str(root), "-q").returncode == 0
    meta = root / "parties" / "meta.md"
    meta.write_text(meta.read_text(encoding="utf-8").replace("value: 319\n", "value: 368\n"))
    (root / "terms" / "hostile-watts.md").write_text(TERM.format(title=HOSTILE.replace('"', "'")))
    assert run("release", "v2", str(root), "-q").returncode == 0
    (root / "terms" / "after-release.md").write_text(TERM.format(title="After release"))
    built = run("build", str(root), "--out", str(root / "_site"), "-q")
    assert built.returncode == 0, built.stdout + built.stderr
    return root


def page(record: Path, path: str) -> HTMLParser:
    return HTMLParser((record / "_site" / path).read_text(encoding="utf-8"))


def served(record: Path, url: str) -> Path:
    return record / "_site" / url.lstrip("/")


def test_the_data_page_lists_every_release_newest_first(record: Path) -> None:
    doc = page(record, "vol1/data/releases/index.html")
    assert [h.text() for h in doc.css("section.release h2")] == ["Release v2", "Release v1"]
    nav = {a.text(): a.attributes["href"] for a in doc.css("nav.site-nav a")}
    assert nav["Data"] == "/vol1/data/releases"
    line = " ".join(doc.css_first("#release-v2 .release-line").text().split())
    assert "record.db. The data package: datapackage.json." in line


def test_every_kind_says_where_it_is_used_in_the_same_words(record: Path) -> None:
    for url in ("vol1/glossary/after-release", "vol1/ledger/colossus-2", "vol1/people/haze-fan"):
        headings = [h.text() for h in page(record, f"{url}/index.html").css("section.backlinks h2")]
        assert headings and set(headings) <= {
            "Where the book uses it",
            "Where the record uses it",
            "Sources that use it",
            "Related terms",
        }, headings


def test_every_listed_file_downloads_with_its_checksum(record: Path) -> None:
    doc = page(record, "vol1/data/releases/index.html")
    rows = doc.css("#release-v2 .release-files tbody tr")
    assert len(rows) > 40
    for row in rows:
        link = row.css_first("a").attributes["href"]
        listed = row.css_first("code.checksum").text()
        body = served(record, link).read_bytes()
        assert hashlib.sha256(body).hexdigest() == listed, link
        assert body == (record / "releases" / "v2" / row.css_first("a").text()).read_bytes()


def test_the_changelog_and_citation_are_on_the_page(record: Path) -> None:
    doc = page(record, "vol1/data/releases/index.html")
    v2 = doc.css_first("#release-v2")
    changes = " ".join(v2.css_first(".changelog").text().split())
    assert "319 MW → 368 MW" in changes
    assert HOSTILE in changes  # shown as text
    assert "<script>alert" not in (record / "_site/vol1/data/releases/index.html").read_text()
    assert "@misc{" in v2.css_first("pre.citation").text()
    v1 = doc.css_first("#release-v1 .changelog").text()
    assert "first release" in v1


def test_an_entity_page_links_its_rows_in_the_latest_release(record: Path) -> None:
    doc = page(record, "vol1/ledger/colossus-2/index.html")
    line = doc.css_first("p.in-data")
    links = [a.attributes["href"] for a in line.css("a")]
    assert "/vol1/data/releases/v2/csv/campuses.csv" in links
    assert "/vol1/data/releases/v2/csv/figures.csv" in links
    rows = csv.DictReader(io.StringIO(served(record, links[0]).read_text(encoding="utf-8")))
    assert "colossus-2" in {row["id"] for row in rows}
    # A term made after the last release has no rows to link to.
    assert page(record, "vol1/glossary/after-release/index.html").css_first("p.in-data") is None


def test_the_releases_feed_has_an_entry_per_release(record: Path) -> None:
    path = record / "_site/vol1/data/releases.atom"
    root = ET.parse(path).getroot()
    assert root.find(f"{ATOM}link[@rel='self']").get("href").endswith("/vol1/data/releases.atom")
    parsed = feedparser.parse(path.read_bytes())
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert [e.title for e in parsed.entries] == [
        "The AI Compute Race: data release v2",
        "The AI Compute Race: data release v1",
    ]
    assert all(
        e.link.startswith("https://dryburgh.com/vol1/data/releases#release-")
        for e in parsed.entries
    )
    assert "319 MW → 368 MW" in parsed.entries[0].summary
