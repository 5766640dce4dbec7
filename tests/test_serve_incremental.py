"""`serve` writes again after a save only the files the save changed: which those are, and
why (what each page read), for the edits an author makes most. That the files it keeps
are still what a clean build writes is `test_serve_equivalence.py`'s to show."""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import calls_of
from host_fixtures import fetch, origin_of, serve_process
from site_fixtures import write_record

from sourcebook.diagnostics import Diagnostics
from sourcebook.incremental import KeptDatabase, Memos
from sourcebook.live import LiveSite
from sourcebook.pipeline import read_and_link
from sourcebook.publish.site.kept_site import Snapshot, site_made
from sourcebook.publish.site.pages import render
from sourcebook.publish.site.pages.render import RenderError

TERM_PAGE = "vol1/glossary/one-machine/index.html"
ALIASED = "title: One machine\naliases: [Stakes]\n"
"""The term named again: a word of a chapter's title, and of nothing's prose."""


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveSite]:
    site = LiveSite(write_record(tmp_path / "record"), out=tmp_path / "live")
    site.rebuild()
    assert not site.errors and not site.failure and site.written is None
    yield site
    site.close()


def stamps(site: Path) -> dict[str, tuple[int, int]]:
    """Each file of the site, by the inode and time of its last write."""
    found = {}
    for folder, _, names in os.walk(site):
        for name in names:
            info = os.stat(Path(folder, name))
            found[Path(folder, name).relative_to(site).as_posix()] = (info.st_ino, info.st_mtime_ns)
    return found


def written_by(live: LiveSite, path: str, old: str, new: str) -> set[str]:
    """Edit the record's file and rebuild; the site's files written again."""
    before = stamps(live.site)
    file = live.root / path
    text = file.read_text(encoding="utf-8")
    assert old in text
    file.write_text(text.replace(old, new, 1), encoding="utf-8")
    live.rebuild()
    assert not live.errors and not live.failure
    after = stamps(live.site)
    return {name for name, stamp in after.items() if before.get(name) != stamp}


def test_a_prose_edit_writes_its_page_only(live: LiveSite) -> None:
    """Its JSON twin leaves the body out: nothing else shows it."""
    written = written_by(live, "terms/one-machine.md", "is built to", "is wired to")
    assert written == {TERM_PAGE}
    assert live.written == 1
    assert "is wired to" in (live.site / TERM_PAGE).read_text(encoding="utf-8")


def test_a_definition_edit_writes_the_pages_that_show_it(live: LiveSite) -> None:
    """The glossary lists each term with its definition, a link's preview shows it."""
    written = written_by(live, "terms/cluster.md", "as one machine", "as one computer")
    glossary, cluster = "vol1/glossary/index.html", "vol1/glossary/cluster/index.html"
    assert {cluster, glossary, "vol1/previews.json"} <= written
    assert "as one computer" in (live.site / glossary).read_text(encoding="utf-8")
    assert not any(name.startswith("vol1/people/") for name in written)


def test_a_date_edit_writes_every_page_that_shows_it(live: LiveSite) -> None:
    """A source's date is in every short citation of it: the pages that cite it, its
    author's, and the lists that show it, are written again; no other person's."""
    written = written_by(live, "sources/sa-essay.md", "date: 2024-06", "date: 2024-07")
    chapter = "vol1/notes/chapter-1/index.html"
    assert chapter in written and "July 2024" in (live.site / chapter).read_text()
    assert {"vol1/sources/index.html", "vol1/people/leopold-aschenbrenner/index.html"} <= written
    assert "vol1/people/patrick-kennedy/index.html" not in written
    assert len(written) < len(stamps(live.site)) / 4


def test_a_figure_edit_writes_the_pages_that_show_it(live: LiveSite) -> None:
    """The campus's page and twin, the ledger, the machine (drawn from what derive made of
    the figures), the links' previews; not the scorecard, whose row reads no figure of
    this record, nor any term's page."""
    written = written_by(live, "campuses/colossus-2.md", "value: 200\n", "value: 300\n")
    campus = "vol1/ledger/colossus-2/index.html"
    assert {campus, "vol1/ledger/index.html", "vol1/machine/index.html"} <= written
    assert "300" in (live.site / campus).read_text(encoding="utf-8")
    assert "vol1/scorecard/index.html" not in written
    assert not any(name.startswith("vol1/glossary/") for name in written)
    last = live.kept.site.lookup(site_made)  # type: ignore[union-attr]
    assert last is not None
    assert ("derived", "*") in last.pages["/vol1/machine"].reads
    assert ("derived", "row", "largest-evidenced-operating-site") in last.pages[
        "/vol1/scorecard"
    ].reads


@pytest.mark.parametrize(
    ("path", "old", "new"),
    [
        ("sourcebook.toml", "One Machine", "One Engine"),  # the settings
        ("templates/nav.html", "", '{% extends "sourcebook/nav.html" %}'),  # a template
        ("terms/new-term.md", "", "---\ntitle: Rack\ndefinition: A frame.\n---\n"),  # an id
    ],
)
def test_what_every_page_reads_changing_writes_the_whole_site(
    live: LiveSite, path: str, old: str, new: str
) -> None:
    file = live.root / path
    if not file.exists():
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text("", encoding="utf-8")
    written_by(live, path, old, new)
    assert live.written is None


def test_a_new_alias_writes_the_pages_whose_prose_now_names_it(live: LiveSite) -> None:
    """'Stakes', in a chapter's title but in no prose, now names the term: the pages that
    show the term change, and no page whose prose does not say it."""
    written = written_by(live, "terms/one-machine.md", "title: One machine\n", ALIASED)
    assert live.written is not None
    assert "vol1/glossary/one-machine/index.html" in written
    assert "vol1/sources/supermicro-colossus-case/index.html" not in written
    assert "vol1/people/patrick-kennedy/index.html" not in written


def test_a_save_that_fails_half_way_keeps_nothing_for_the_next(
    live: LiveSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where writing the changed pages fails, the site on disk is part old, part new: the
    next save writes it whole, not on the strength of what the last one noted."""
    real = render.Writer.content

    def failing(self: render.Writer, page: object) -> bytes:
        raise RenderError("term.html:1: the disk is full")

    monkeypatch.setattr(render.Writer, "content", failing)
    term = live.root / "terms" / "one-machine.md"
    term.write_text(term.read_text().replace("is built to", "is made to"))
    live.rebuild()
    assert "the disk is full" in live.failure
    assert live.kept.site is not None and not live.kept.site.found
    monkeypatch.setattr(render.Writer, "content", real)
    live.rebuild()
    assert not live.failure and live.written is None
    assert "is made to" in (live.site / TERM_PAGE).read_text(encoding="utf-8")


def test_serve_says_how_much_a_save_wrote_and_serves_it(tmp_path: Path) -> None:
    root = write_record(tmp_path / "record")
    with serve_process(root, "--no-notify") as running:
        origin = origin_of(running)
        term = root / "terms" / "one-machine.md"
        edited = term.read_text().replace("is built to", "is wired to")
        deadline = time.monotonic() + 60
        while "Built version 2" not in running.output and time.monotonic() < deadline:
            term.write_text(edited)  # again, should the watcher have started after the last
            time.sleep(1)
        said = r"Built version 2 \((\d+) files? written, the rest kept\)\."
        line = re.search(said, running.output)
        assert line is not None, running.output
        assert int(line.group(1)) == 1
        page = fetch(f"{origin}/vol1/glossary/one-machine")
        assert page.status == 200 and b"is wired to" in page.body


# What an edit changes, as the tokens pages read.


def changes_of(tmp_path: Path, path: str, old: str, new: str) -> set[tuple[str, ...]] | None:
    """The tokens an edit of the small record changes (None: what all pages read)."""
    root = write_record(tmp_path / "record")
    snapshots = []
    for step in range(2):
        if step:
            file = root / path
            text = file.read_text(encoding="utf-8")
            assert old in text
            file.write_text(text.replace(old, new, 1), encoding="utf-8")
        diagnostics = Diagnostics()
        record, graph = read_and_link(root, None, diagnostics, Memos.in_memory())
        assert record is not None and not diagnostics.errors
        snapshots.append(Snapshot.of(record, graph, [], []))  # the record alone, no tables
    return snapshots[1].changes(snapshots[0])


def test_a_body_edit_changes_the_body_alone(tmp_path: Path) -> None:
    assert changes_of(tmp_path, "terms/one-machine.md", "is built to", "is wired to") == {
        ("body", "term", "one-machine")
    }


def test_a_body_that_comes_or_goes_changes_the_entity(tmp_path: Path) -> None:
    """A page may show a part only where the entity has a body: asking is reading."""
    gone = "---\nA cluster is built to be one machine.\n"
    found = changes_of(tmp_path, "terms/one-machine.md", gone, "---\n")
    assert found is not None
    assert {("body", "term", "one-machine"), ("entity", "term", "one-machine")} <= found
    assert ("in", "term", "cluster") in found  # it no longer mentions the cluster


def test_a_field_edit_changes_the_entity_and_its_kind(tmp_path: Path) -> None:
    found = changes_of(tmp_path, "sources/sa-essay.md", "date: 2024-06", "date: 2024-07")
    assert found == {("entity", "source", "sa-essay"), ("kind", "source")}


def test_a_category_edit_moves_the_links_to_a_source(tmp_path: Path) -> None:
    found = changes_of(tmp_path, "sources/sa-essay.md", "category: other", "category: research")
    assert found is not None and ("url", "source", "sa-essay") in found


def test_a_new_reference_changes_what_is_referred_to(tmp_path: Path) -> None:
    found = changes_of(
        tmp_path, "chapters/chapter-1.md", "See [[colossus-2]]", "See [[stargate-uae]]"
    )
    assert found is not None
    assert {("in", "campus", "colossus-2"), ("in", "campus", "stargate-uae")} <= found
    assert ("out", "chapter", "chapter-1") in found


def test_a_new_name_changes_the_fields_that_now_say_it(tmp_path: Path) -> None:
    """'one machine' stands in the cluster's definition and the second chapter's summary:
    a name of the term no more, they link it no more, and no other field changes."""
    found = changes_of(tmp_path, "terms/one-machine.md", "title: One machine", "title: A unit")
    assert found is not None
    assert {
        ("names",),
        ("entity", "term", "one-machine"),
        ("read", "term", "cluster", "definition"),
    } <= found
    said = {token for token in found if token[0] == "read"}  # the fields that say it
    assert said == {
        ("read", "term", "cluster", "definition"),
        ("read", "chapter", "chapter-2", "summary"),
    }


def test_a_save_that_changes_nothing_changes_nothing(tmp_path: Path) -> None:
    assert changes_of(tmp_path, "terms/cluster.md", "title: Cluster", "title: Cluster") == set()


def _indexes_made(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each index of what a shared value read made from now on (`SharedMemo._index`), by
    the number of values it indexes."""
    from sourcebook.incremental._reads import SharedMemo

    def made(memo: SharedMemo) -> int | None:
        return len(memo.reads) if memo._readers is None else None

    return calls_of(monkeypatch, SharedMemo, "_index", made)


def test_serve_makes_ready_for_the_next_edit_while_it_waits(
    live: LiveSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = _indexes_made(monkeypatch)
    live.ready()
    assert sum(made) > 0  # what the pages shared, indexed by what each read
    databases = [d for d in live.kept.compiled.held_values() if isinstance(d, KeptDatabase)]
    assert databases and all(d._types.keys() == d._filled.keys() for d in databases)
    made.clear()
    live.ready()
    assert made == []  # once a build
    term = live.root / "terms" / "one-machine.md"
    term.write_text(term.read_text(encoding="utf-8") + "\nA sentence more.\n", "utf-8")
    live.rebuild([("modified", str(term.resolve()))])
    assert not live.errors and not live.failure
    assert made == []  # the edit found the indexes made
    assert "A sentence more." in (live.site / TERM_PAGE).read_text(encoding="utf-8")


def test_the_watch_makes_ready_once_nothing_has_changed_for_a_while(live: LiveSite) -> None:
    stop = threading.Event()
    watching = threading.Thread(target=live.watch, args=(stop,), daemon=True)
    try:
        assert live._readied != live.version
        watching.start()
        waited = 0.0
        while live._readied != live.version and waited < 120:  # the wait is two seconds
            time.sleep(0.1)
            waited += 0.1
        assert live._readied == live.version
    finally:
        stop.set()
        watching.join(30)
