"""A search across the index's buckets finds the pages one index of the same site finds,
for queries of one word and of several: in the browser, through the search page's own
script, on the bundled record split into buckets of a few pages each, each bucket's words
given to the lexicon in records of a few words.

Pagefind searches each bucket alone: a bucket without a term's words leaves the term out
of the query, or stands a shorter word in for it (see `search/lexicon.py`). The record is
given words that some buckets hold and others do not: "zirconwhistle" in one page,
"zircon" in others, "cooling" in many."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from site_fixtures import local_only, serving

from sourcebook.incremental import Memos
from sourcebook.pipeline import build
from sourcebook.publish.site.search import buckets, lexicon

pytestmark = pytest.mark.browser

BUNDLED = Path(__file__).resolve().parent.parent / "examples" / "compute-race"
TERM = "---\ntitle: {title}\ndefinition: {line}\nchapters: [chapter-1]\n---\n{body}\n"
ADDED = {
    "zircon-whistle": ("Zircon whistle", "A made-up gauge.", "Its zirconwhistle rings."),
    **{
        f"zircon-{name}": (
            f"Zircon {name}",
            "A made-up mineral.",
            f"Zircon {name} is said to aid cooling, by a {name} account.",
        )
        for name in ("amber", "basalt", "cobalt", "dune", "ember", "flint", "garnet")
    },
}
QUERIES = [
    "zirconwhistle",  # one page; other buckets would stand "zircon" in
    "cooling zirconwhistle",  # other buckets would leave the rare word out
    "zirconwhistlez",  # no word begins so: the longest that it begins with
    "cooling quuxlimb",  # a word the site lacks is left out
    "Zirçon cooling",  # an accent, and a word many buckets hold
    "cooling",
    "huge power cables",  # words every bucket may hold some of
    '"built by xAI"',  # a phrase
]


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The record built in small buckets, and built again as one index."""
    folder = tmp_path_factory.mktemp("one-index")
    root = folder / "record"
    shutil.copytree(BUNDLED, root, ignore=shutil.ignore_patterns("_site", ".sourcebook-cache"))
    for slug, (title, line, body) in ADDED.items():
        (root / "terms" / f"{slug}.md").write_text(TERM.format(title=title, line=line, body=body))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(buckets, "PER_BUCKET", 25)
        patch.setattr(lexicon, "RECORD_WORDS", 7)  # each bucket's words in many records
        split = build(root, folder / "buckets", jobs=1, kept=Memos.in_memory())
        patch.setattr(buckets, "MOST_BUCKETS", 1)
        one = build(root, folder / "one", jobs=1, kept=Memos.in_memory())
    assert split.site is not None and split.site.search is not None
    assert one.site is not None and one.site.search is not None
    assert split.site.search.buckets >= 6 and split.site.search.parts > 1
    assert one.site.search.buckets == 1 and one.site.search.parts == 0
    return split.site.out, one.site.out


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from site_fixtures import chromium

    with chromium() as launched:
        yield launched


FOUND = """async ([query, raw]) => {
  const status = document.querySelector(".search-status");
  while (status.textContent.startsWith("Loading")) {
    await new Promise((done) => setTimeout(done, 20));
  }
  let results;
  if (raw) {  // Pagefind's merged search alone, without the lexicon
    const listed = await (await fetch("/vol1/pagefind/index.json")).json();
    const pagefind = await import("/vol1/pagefind/" + listed.buckets[0] + "pagefind.js");
    const slots = listed.slots.map(String);
    results = (await pagefind.search(query, { filters: { bucket: { any: slots } } })).results;
  } else {
    results = (await window.sourcebookSearch.find(query)).results;
  }
  const data = await Promise.all(results.map((r) => r.data()));
  return data.map((d) => d.url);
}"""


def found(
    browser: Any, site: Path, raw: bool = False, queries: list[str] = QUERIES
) -> dict[str, set[str]]:
    """The pages each query finds on `site`, each searched in a page of its own (Pagefind
    keeps the chunks of its index a search loaded, which may change what the next finds;
    a new page starts it afresh, the files it fetches served from the context's cache)."""
    pages = {}
    errors: list[str] = []
    with serving(site) as origin:
        context = browser.new_context()  # its cache shared: each page's Pagefind its own
        refused = local_only(context, origin)
        for query in queries:
            page = context.new_page()
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(f"{origin}/vol1/search")
            pages[query] = set(page.evaluate(FOUND, [query, raw]))
            page.close()
        context.close()
    assert errors == [] and refused == []
    return pages


def test_the_buckets_find_the_pages_one_index_finds(sites: tuple[Path, Path], browser: Any) -> None:
    split, one = sites
    ours, single = found(browser, split), found(browser, one)
    for query in QUERIES:
        assert ours[query] == single[query], query
    assert len(ours["zirconwhistle"]) == 1 and len(ours["Zirçon cooling"]) >= 7
    assert ours["cooling quuxlimb"] == ours["cooling"] and len(ours["cooling"]) >= 7
    assert ours["cooling zirconwhistle"] == set()


def test_without_the_lexicon_the_buckets_find_other_pages(
    sites: tuple[Path, Path], browser: Any
) -> None:
    """What the lexicon is for: Pagefind's merged search alone finds more."""
    split, one = sites
    queries = ["zirconwhistle", "cooling zirconwhistle"]
    merged, single = found(browser, split, True, queries), found(browser, one, False, queries)
    assert merged["zirconwhistle"] > single["zirconwhistle"]  # "zircon" stood in
    assert merged["cooling zirconwhistle"] > single["cooling zirconwhistle"]  # left out


def test_the_search_page_finds_across_buckets_at_1280_px(
    sites: tuple[Path, Path], browser: Any
) -> None:
    split, _ = sites
    errors: list[str] = []
    with serving(split) as origin:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        refused = local_only(context, origin)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{origin}/vol1/search?q=Colossus")
        page.wait_for_function(
            "() => document.querySelector('.search-status').textContent.includes('result')"
        )
        hrefs = [a.get_attribute("href") for a in page.locator("a.search-link").all()]
        assert {hrefs[0], hrefs[1]} == {"/vol1/ledger/colossus-1", "/vol1/ledger/colossus-2"}
        assert len(hrefs) > 5 and page.locator(".search-kinds").is_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280
        context.close()
    assert errors == [] and refused == []
