"""The search index after an edit: made in buckets, of which a build makes again only those
whose pages' searchable content changed, and searched in the browser as a clean build's.

The bundled record is built with small buckets (a few pages each), so that it is split as
a record of thousands of entities is."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from site_fixtures import local_only, serving

from sourcebook.incremental import Memos
from sourcebook.pipeline import build
from sourcebook.publish.site.search import buckets
from sourcebook.publish.site.search.index import _Service

BUNDLED = Path(__file__).resolve().parent.parent / "examples" / "compute-race"
TERM = (
    "---\ntitle: Zebra quartz\ndefinition: A made-up mineral, quoted nowhere.\n"
    "chapters: [chapter-1]\n---\nZebra quartz is found in no datacenter.\n"
)
QUERIES = [
    "Colossus",
    "Memphis",
    "Stargate",
    "huge power cables",
    "122 days",
    "power purchase agreement",
    "cooling",
    "Colosus",  # a slip
    "Stargte",
    "correction",
    "zebra quartz",
]
"""Entities' names, words and phrases of their prose, and slips."""


@pytest.fixture
def small_buckets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(buckets, "PER_BUCKET", 25)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The URL of every page and record given to Pagefind for a bucket."""
    given: list[str] = []
    ask = _Service.ask

    def noted(service: _Service, payload: dict[str, Any]) -> dict[str, Any]:
        lexicon = "holds" in (payload.get("filters") or {})  # a bucket's words: lexicon.py
        if payload["type"] in ("AddFile", "AddRecord") and not lexicon:
            given.append(payload["url"])
        return ask(service, payload)

    monkeypatch.setattr(_Service, "ask", noted)
    return given


def record(tmp_path: Path) -> Path:
    root = tmp_path / "record"
    shutil.copytree(BUNDLED, root, ignore=shutil.ignore_patterns("_site", ".sourcebook-cache"))
    return root


def made(root: Path, out: Path, clean: bool = False) -> Any:
    """Build the record's site, keeping what the build before kept (none where `clean`);
    what its index was made of."""
    if clean:
        shutil.rmtree(out, ignore_errors=True)
    done = build(root, out, jobs=1, kept=Memos.in_memory() if clean else None)
    assert done.checked.ok, [d.format() for d in done.checked.diagnostics.errors]
    assert done.site is not None
    return done.site.search


def listed(site: Path) -> list[str]:
    return json.loads((site / "vol1" / "pagefind" / "index.json").read_text())["buckets"]


def test_an_edit_to_one_page_sends_only_its_bucket(
    tmp_path: Path, small_buckets: None, sent: list[str]
) -> None:
    root, out = record(tmp_path), tmp_path / "site"
    first = made(root, out)
    assert first.buckets >= 4 and first.made == first.buckets
    assert len(sent) == first.pages + first.records
    before = listed(out)
    sent.clear()
    term = root / "terms" / "122-days.md"
    term.write_text(term.read_text() + "\nIt was counted again in zirconwhistle.\n")
    again = made(root, out)
    assert again is not None and again.made == 1 and again.buckets == first.buckets
    assert "/vol1/glossary/122-days/" in sent  # the page edited, and the pages of its bucket
    assert len(sent) == again.pages + again.records < (first.pages + first.records) / 2
    after = listed(out)
    assert len(set(before) - set(after)) == 1 and len(set(after) - set(before)) == 1
    for name in set(before) & set(after):  # the others kept, not written again
        assert (out / "vol1" / "pagefind" / name / buckets.ENTRY).is_file()
    sent.clear()
    assert made(root, out) is None and sent == []  # nothing changed: no index is made


def test_a_change_outside_what_search_reads_sends_nothing(
    tmp_path: Path, small_buckets: None, sent: list[str]
) -> None:
    """A page's navigation, header and footer are not what Pagefind reads."""
    html = '<html lang="en"><head><title>T</title></head><body><nav>{}</nav>{}</body></html>'
    main = '<main data-pagefind-body data-kind="Term"><h1>T</h1><p>Words.</p></main>'
    assert buckets.readable(html.format("one", main)) == buckets.readable(html.format("two", main))
    assert buckets.readable(html.format("one", "<main><p>Not searched.</p></main>")) == ""


@pytest.mark.browser
def test_the_index_after_edits_is_the_clean_builds(
    tmp_path: Path, small_buckets: None, browser: Any
) -> None:
    root, out, clean = record(tmp_path), tmp_path / "site", tmp_path / "clean"
    made(root, out)
    (root / "terms" / "zebra-quartz.md").write_text(TERM)
    campus = root / "campuses" / "colossus-2.md"
    campus.write_text(campus.read_text() + "\nLater reports speak of zirconwhistle turbines.\n")
    made(root, out)
    made(root, clean, clean=True)
    assert listed(out) == listed(clean)  # each bucket named by what it holds
    kept = searched(browser, out, QUERIES)
    same(kept, searched(browser, clean, QUERIES))
    assert any(url == "/vol1/glossary/zebra-quartz" for url, _ in kept["zebra quartz"])
    assert kept["Colossus"] and kept["huge power cables"] and kept["Colosus"]

    (root / "terms" / "zebra-quartz.md").unlink()
    made(root, out)
    gone = searched(browser, out, QUERIES)
    assert not any("zebra-quartz" in url for hits in gone.values() for url, _ in hits)
    made(root, clean, clean=True)
    same(gone, searched(browser, clean, QUERIES))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from site_fixtures import chromium

    with chromium() as launched:
        yield launched


class opened:
    """A page of Chromium at `width`, refusing all but the site, failing on its errors."""

    def __init__(self, browser: Any, origin: str, width: int = 1280):
        self.context = browser.new_context(viewport={"width": width, "height": 900})
        self.refused = local_only(self.context, origin)
        self.errors: list[str] = []

    def __enter__(self) -> Any:
        page = self.context.new_page()
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        return page

    def __exit__(self, *exc_info: object) -> None:
        self.context.close()
        assert self.errors == [] and self.refused == []


SEARCH = """async (queries) => {
  const status = document.querySelector(".search-status");
  while (status.textContent.startsWith("Loading")) {
    await new Promise((done) => setTimeout(done, 20));
  }
  const found = {};
  for (const query of queries) {
    const results = (await window.sourcebookSearch.find(query)).results;
    const data = await Promise.all(results.slice(0, 60).map((r) => r.data()));
    const urls = data.map((d) => d.meta.url || d.url);
    found[query] = results.map((r, i) => [urls[i] || r.id, r.score]);
  }
  return found;
}"""
"""Each query's hits, in Pagefind's order, with their scores, as the search page finds them
(`search.js`, across the buckets, through the lexicon): the URLs of the first 60 (as many as
the search page ranks), the others by Pagefind's id."""


def searched(browser: Any, site: Path, queries: list[str]) -> dict[str, list[tuple[str, float]]]:
    with serving(site) as origin, opened(browser, origin) as page:
        page.goto(f"{origin}/vol1/search")
        found = page.evaluate(SEARCH, queries)
    return {query: [(url, score) for url, score in hits] for query, hits in found.items()}


def same(
    found: dict[str, list[tuple[str, float]]], clean: dict[str, list[tuple[str, float]]]
) -> None:
    """The same hits in the same order, with the same scores: Pagefind does not make an
    index byte for byte the same from the same pages twice, and its scores may differ in
    their last digits."""
    assert found.keys() == clean.keys()
    for query in found:
        assert [url for url, _ in found[query]] == [url for url, _ in clean[query]], query
        for (_, score), (_, other) in zip(found[query], clean[query], strict=True):
            assert score == pytest.approx(other, rel=1e-4), query
