"""What each page of a kept site read is kept as places in one table of tokens
(`kept_site.TokenTable`): a build keeps the table the last one's pages were read back with,
and each page it did not write by its places as they were, adding only what is new; the
table is made afresh once it has grown by half. Whatever is kept, each page reads back
as what it read."""

from __future__ import annotations

import marshal
from array import array
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from site_fixtures import write_record
from test_serve_equivalence import SEEDED, apply

from sourcebook.incremental import STATE_FOLDER, SiteMemo, Store
from sourcebook.pipeline import build
from sourcebook.publish.site.kept_site import (
    GROWTH,
    PageMade,
    SiteMade,
    TokenTable,
    site_made,
    site_plain,
)


def kept(root: Path) -> tuple[list, dict[str, tuple[str, bytes, bytes]]]:
    """The tokens and the pages of the site the state folder keeps, as written."""
    data = (root / STATE_FOLDER / "site" / "site.marshal").read_bytes()
    _, plain = marshal.loads(data)
    _, _, tokens, pages, *_ = plain
    return tokens, pages


def read_back(root: Path) -> SiteMade:
    made = SiteMemo.open(Store.of(root)).lookup(site_made)
    assert made is not None
    return made


def test_a_build_keeps_the_table_and_the_places_of_the_pages_it_did_not_write(
    tmp_path: Path,
) -> None:
    root = write_record(tmp_path / "record", SEEDED)
    out = tmp_path / "site"
    build(root, out, search=False, jobs=1)
    tokens, pages = kept(root)
    reads = {url: page.reads for url, page in read_back(root).pages.items()}
    apply(root, "terms/one-machine.md", ("Chips as one.", "Chips as one, and [[cluster]]."))
    again = build(root, out, search=False, jobs=1)
    assert again.site is not None and 0 < (again.site.written or 0) < len(pages) // 4
    tokens_now, pages_now = kept(root)
    assert tokens_now[: len(tokens)] == tokens  # the table kept, what is new at its end
    assert len(tokens_now) > len(tokens)  # the wiki link is read as it was not before
    kept_as_they_were = [url for url in pages if pages_now[url][2] == pages[url][2]]
    assert len(kept_as_they_were) >= len(pages) - again.site.written
    made = read_back(root)
    for url in kept_as_they_were:
        assert made.pages[url].reads == reads[url]
    assert any(made.pages[url].reads != reads[url] for url in pages)


def test_a_table_grown_by_half_is_made_afresh_of_what_the_pages_read(tmp_path: Path) -> None:
    root = write_record(tmp_path / "record", SEEDED)
    build(root, tmp_path / "site", search=False, jobs=1)
    made = read_back(root)
    reads = {url: page.reads for url, page in made.pages.items()}
    assert made.tokens is not None
    live = set().union(*reads.values())
    assert set(made.tokens.tokens) == live
    # The same table, with as many tokens again that no page reads, and said to have been
    # made with no more than it has now: grown past GROWTH.
    dead = [("entity", "term", f"gone-{i}") for i in range(len(live))]
    grown = TokenTable([*made.tokens.tokens, *dead], len(made.tokens.tokens))
    assert len(grown.tokens) > GROWTH * grown.made_with
    again = SiteMade(made.out, made.snapshot, None, folder=made.folder)
    again.tokens = grown
    for url, page in made.pages.items():
        places = page.places_in(made.tokens)
        assert places is not None
        again.pages[url] = PageMade(page.template, page.context, places=places, table=grown)
    plain = site_plain(again)
    assert set(plain[2]) == live and len(plain[2]) == len(live)  # the dead ones left out
    assert plain[0][3] == len(live)
    back = site_made(plain)
    assert {url: page.reads for url, page in back.pages.items()} == reads
    # Not grown past it: kept whole, dead tokens and all, each page by its places.
    within = TokenTable(grown.tokens, len(grown.tokens))
    for page in again.pages.values():
        page._table = within  # type: ignore[attr-defined]
    again.tokens = within
    plain = site_plain(again)
    assert plain[2] == grown.tokens
    assert all(plain[3][url][2] == made.pages[url].places_in(made.tokens) for url in reads)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 30), max_size=12),
    st.lists(st.integers(0, 40), max_size=8),
)
def test_a_page_read_back_read_what_its_tokens_say(read: list[int], changed: list[int]) -> None:
    tokens = [("entity", "term", f"t{i}") for i in range(31)]
    table = TokenTable(tokens, len(tokens))
    places = array("I", sorted(set(read))).tobytes()
    page = PageMade("t.html", b"", places=places, table=table)
    asked = {("entity", "term", f"t{i}") for i in changed}
    expected = {tokens[i] for i in read}
    assert page.read_any(asked) == (not expected.isdisjoint(asked))
    assert page.reads == expected
    assert page.read_any(asked) == (not expected.isdisjoint(asked))  # as tokens now


def test_a_kept_site_whose_places_leave_the_table_is_not_used(tmp_path: Path) -> None:
    root = write_record(tmp_path / "record", SEEDED)
    out = tmp_path / "site"
    build(root, out, search=False, jobs=1)
    path = root / STATE_FOLDER / "site" / "site.marshal"
    header, plain = marshal.loads(path.read_bytes())
    site, snapshot, tokens, pages, *_ = plain
    url = next(iter(pages))
    template, context, _ = pages[url]
    pages[url] = (template, context, array("I", [len(tokens) + 5]).tobytes())
    Store.of(root).write("site", "site.marshal", marshal.dumps((header, plain)))
    assert SiteMemo.open(Store.of(root)).lookup(site_made) is None
    apply(root, "terms/one-machine.md", ("Chips as one.", "Chips as one, and more."))
    done = build(root, out, search=False, jobs=1)
    assert done.site is not None and done.site.written is None  # the site written whole
