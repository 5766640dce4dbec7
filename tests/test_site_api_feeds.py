"""Every page's JSON twin under /api/, and the Atom feed of corrections, as programs and
feed readers meet them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import feedparser
import pytest
from conftest import BUNDLED
from selectolax.lexbor import LexborHTMLParser as HTMLParser

from sourcebook import pipeline

ATOM = "{http://www.w3.org/2005/Atom}"
RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "sourcebook", "build", str(BUNDLED), "--out", str(out), "-q"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def served(site: Path, url: str) -> Path:
    path = site / url.lstrip("/")
    return path if path.suffix else path.with_suffix(".html")


def test_every_page_names_a_json_twin_that_exists(site: Path) -> None:
    # Not the search page: it holds nothing of the record.
    pages = [
        p for p in site.rglob("*/index.html") if "api" not in p.parts and p.parent.name != "search"
    ]
    assert len(pages) > 100
    for page in pages:
        doc = HTMLParser(page.read_text(encoding="utf-8"))
        link = doc.css_first('link[rel="alternate"][type="application/json"]')
        assert link is not None, page
        twin = json.loads(served(site, link.attributes["href"]).read_text(encoding="utf-8"))
        canonical = doc.css_first('link[rel="canonical"]').attributes["href"]
        assert canonical.endswith(twin["url"]), page


def test_a_terms_twin_carries_its_fields_and_backlinks(site: Path) -> None:
    twin = json.loads((site / "vol1/api/glossary/cluster.json").read_text(encoding="utf-8"))
    term = twin["entity"]
    assert (term["kind"], term["id"], term["title"]) == ("term", "cluster", "Cluster")
    assert term["url"] == "/vol1/glossary/cluster"
    record = [(r["kind"], r["title"]) for r in term["backlinks"]["record"]]
    assert record == [
        ("campus", "Colossus 2"),
        ("campus", "Stargate UAE"),
        ("indicator", "Largest evidenced operating site"),
        ("paper", "What the record shows: the compute race at the close"),
    ]
    row = term["backlinks"]["record"][2]
    assert row["url"] == "/vol1/scorecard#row-11" and row["api"] == "/vol1/api/scorecard.json"
    assert len(term["backlinks"]["related"]) == 12


def test_the_scorecards_twin_carries_the_computed_values(site: Path) -> None:
    twin = json.loads((site / "vol1/api/scorecard.json").read_text(encoding="utf-8"))
    rows = {r["row"]: r["computed"]["answer"] for r in twin["rows"]}
    derived = pipeline.derive_checked(pipeline.check(BUNDLED))
    assert {r.row: r.answer.value for r in derived.rows} == {n: a["value"] for n, a in rows.items()}
    assert rows[11]["campus"] == "prometheus" and rows[11]["figures"][0]["grade"] == "reported"


def test_a_campus_twin_carries_its_timelines(site: Path) -> None:
    twin = json.loads((site / "vol1/api/ledger/colossus-1.json").read_text(encoding="utf-8"))
    metrics = [t["metric"] for t in twin["entity"]["timelines"]]
    assert metrics[0] == "facility-power"
    assert twin["entity"]["timelines"][0]["points"][0]["source"]


def test_the_corrections_feed_is_what_feed_readers_expect(site: Path) -> None:
    path = site / "vol1/corrections.atom"
    root = ET.parse(path).getroot()
    assert root.tag == f"{ATOM}feed"
    for name in ("id", "title", "updated", "author"):
        assert root.find(f"{ATOM}{name}") is not None, name
    assert RFC3339.match(root.findtext(f"{ATOM}updated"))
    links = {link.get("rel"): link.get("href") for link in root.findall(f"{ATOM}link")}
    assert links["self"] == "https://dryburgh.com/vol1/corrections.atom"
    assert links["alternate"] == "https://dryburgh.com/vol1/corrections"
    entries = root.findall(f"{ATOM}entry")
    record = pipeline.check(BUNDLED).record
    assert len(entries) == len(record.of("correction"))
    ids = [e.findtext(f"{ATOM}id") for e in entries]
    assert len(set(ids)) == len(ids) and all(i.startswith("https://") for i in ids)
    for entry in entries:
        assert entry.findtext(f"{ATOM}title")
        assert RFC3339.match(entry.findtext(f"{ATOM}updated"))
        assert entry.find(f"{ATOM}link").get("href").startswith("https://dryburgh.com/vol1/")
    parsed = feedparser.parse(path.read_bytes())
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert parsed.version == "atom10"
    titles = {c.title for c in record.of("correction")}
    assert {e.title for e in parsed.entries} == titles
    newest_first = [e.updated for e in parsed.entries]
    assert newest_first == sorted(newest_first, reverse=True)


def test_every_page_links_the_feed(site: Path) -> None:
    doc = HTMLParser((site / "vol1/glossary/cluster/index.html").read_text(encoding="utf-8"))
    links = doc.css('link[rel="alternate"][type="application/atom+xml"]')
    assert {link.attributes["title"]: link.attributes["href"] for link in links} == {
        "Corrections": "/vol1/corrections.atom",
        "Data releases": "/vol1/data/releases.atom",
    }
