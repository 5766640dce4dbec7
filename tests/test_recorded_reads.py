"""What a page depends on is recorded as it reads, never declared: a page kind added with
no word about caching is kept from save to save and is never stale, and no part of the
site names what it read (the engine notes it: `incremental.Reads`, `incremental.Table`)."""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest
from site_fixtures import FILES, write_record
from test_site_sections import ALMANAC, SITE_CODE

from sourcebook.incremental import READS, Digester, Memos, Table, compared_digests
from sourcebook.live import LiveSite
from sourcebook.model.record import Record
from sourcebook.pipeline import build
from sourcebook.publish.site.kept_site import Snapshot
from sourcebook.publish.site.pages import sections
from sourcebook.publish.site.pages.page import Page
from sourcebook.publish.site.pages.sections import BOOK, SECTIONS, Section
from sourcebook.publish.site.pages.urls import Urls

ALMANAC_TEMPLATE = """\
{% extends "base.html" %}
{% block title %}Almanac{% endblock %}
{% block main %}<h1>Almanac</h1>
{% for term in terms %}<section><h2>{{ term.title }}</h2>
<pre>{{ term.body }}</pre>
<p class="users">{% for kind, url, name in query.used_by(term) %}{{ name }}; {% endfor %}</p>
</section>
{% endfor %}
{% set campus = query.entity("campus", "colossus-2") %}
{% set state = view.computed.campus(campus) %}
<p class="power">{{ view.computed.power(state.power) if state else "none" }}</p>
{% endblock %}
"""
"""A page that shows a term's body as written (no prose renderer between), what uses each
term, and a campus's evidenced power: each read as a template reads, no more."""


@contextmanager
def _served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, section: Section, template: str
) -> Iterator[tuple[Path, LiveSite]]:
    """The small record with `section` added to the sections' table and its template,
    served (`serve`'s rebuilds, each edit seen by its stat): its root and the live site."""
    monkeypatch.setattr(sections, "SECTIONS", (*SECTIONS, section))
    files = {**FILES, f"templates/{section.template}": template}
    root = write_record(tmp_path / "r", files)
    live = LiveSite(root, out=tmp_path / "live")
    assert live.kept.files is not None
    live.kept.files.margin_ns = 0
    try:
        live.rebuild()
        assert not live.broken, live.failure or live.errors
        yield root, live
    finally:
        live.close()


def _page(site: Path) -> str:
    return (site / "vol1/almanac/index.html").read_text(encoding="utf-8")


def _edit(root: Path, path: str, old: str, new: str) -> None:
    target = root / path
    text = target.read_text(encoding="utf-8")
    assert old in text, (path, old)
    target.write_text(text.replace(old, new, 1), encoding="utf-8")


EDITS = [
    # a term's body alone: the page shows it raw, as no built-in page does
    ("terms/one-machine.md", "built to be one machine.", "built to be one single machine."),
    # what uses a term: a chapter's prose that names it now
    ("chapters/chapter-2.md", "of many.\n---\n", "of many.\n---\nA cluster of many machines.\n"),
    # a figure of the campus: its evidenced power
    ("campuses/colossus-2.md", "value: 200", "value: 250"),
    # a title: every list that names the term
    ("terms/cluster.md", "title: Cluster", "title: Compute cluster"),
]


def test_a_page_kind_added_without_a_word_about_caching_is_never_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _served(tmp_path, monkeypatch, ALMANAC, ALMANAC_TEMPLATE) as (root, live):
        shown = [_page(live.site)]
        for path, old, new in EDITS:
            _edit(root, path, old, new)
            live.rebuild()
            assert not live.broken, live.failure or live.errors
            assert live.written is not None and live.written < 40  # kept: few pages written
            clean = tmp_path / f"clean-{len(shown)}"
            build(root, clean, drafts=True, search=False, jobs=1, kept=Memos.in_memory())
            assert _page(live.site) == _page(clean), (path, old, new)
            shown.append(_page(live.site))
    # each edit changed what the page shows, and the page as served showed it
    assert len({hashlib.sha256(page.encode()).digest() for page in shown}) == len(shown)
    assert "one single machine" in shown[1] and "one single machine" not in shown[0]
    assert shown[2].count("Chapter 2; ") == shown[1].count("Chapter 2; ") + 1  # uses Cluster
    assert "250 MW" in shown[3] and "250 MW" not in shown[2]
    assert "<h2>Compute cluster</h2>" in shown[4]


def _line(s: Section, record: Record, urls: Urls, _: Sequence[object]) -> Iterator[Page]:
    yield s.page(urls, {})


LINE = Section("line", "line", "Line", BOOK, "line.html", _line)
LINE_TEMPLATE = """\
{% extends "base.html" %}
{% block title %}Line{% endblock %}
{% block main %}{% set chapter = query.entity("chapter", "chapter-2") %}
<p class="chapter">{{ query.chapter_label(chapter) }}</p>
{% endblock %}
"""
"""A page that hands the view an entity a template found by its id, and shows what the view
reads of it (a chapter's number)."""


def test_what_the_view_reads_of_an_entity_a_template_hands_it_is_noted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _served(tmp_path, monkeypatch, LINE, LINE_TEMPLATE) as (root, live):
        line = live.site / "vol1/line/index.html"
        assert '<p class="chapter">Chapter 2</p>' in line.read_text(encoding="utf-8")
        _edit(root, "chapters/chapter-2.md", "number: 2", "number: 3")
        live.rebuild()
        assert not live.broken, live.failure or live.errors
        assert '<p class="chapter">Chapter 3</p>' in line.read_text(encoding="utf-8")


def test_a_table_notes_each_read_by_its_name_and_key_and_compares_by_entry() -> None:
    rows = Table(("derived", "row"), {"r1": 1, "r2": 2})
    made = Table(("in",), make=lambda key: [key])
    with READS.page() as read:
        assert rows.get("r1") == 1 and rows.get("missing") is None
        assert made[("term", "cluster")] == [("term", "cluster")]
    assert read == {("derived", "row", "r1"), ("derived", "row", "missing"),
                    ("in", "term", "cluster")}  # fmt: skip
    digests = compared_digests([rows, made], Digester())
    assert set(digests) == {("derived", "row", "r1"), ("derived", "row", "r2")}
    again = compared_digests([Table(("derived", "row"), {"r1": 1, "r2": 3})], Digester())
    assert {t for t in digests if digests[t] != again.get(t)} == {("derived", "row", "r2")}


class CountingDigester(Digester):
    def __init__(self) -> None:
        super().__init__()
        self.digested: list[object] = []

    def digest(self, value: object) -> bytes:
        self.digested.append(value)
        return super().digest(value)


def test_a_build_in_the_same_process_digests_no_entry_it_can_compare_by_value() -> None:
    """`serve` holds the last build's values: an entry equal to its value keeps its digest,
    one that differs is changed, and neither is digested (a large one, all that derive
    computed, cost most of a figure's save); a new entry, or one whose last value is not
    held (a build reading the last site's memo from disk), is digested by its content."""
    big = [list(range(50)) for _ in range(20)]
    first: dict = {}
    table = Table(("derived",), {"*": big, "as_of": "2026-09"})
    digests = compared_digests([table], Digester(), values=first)
    later = Table(("derived",), {"*": [*big, [1]], "as_of": "2026-09", "new": 1})
    counting = CountingDigester()
    again = compared_digests([later], counting, first, digests, values={})
    assert counting.digested == [1]  # the new entry alone
    assert again[("derived", "as_of")] == digests[("derived", "as_of")]
    assert again[("derived", "*")] != digests[("derived", "*")]
    assert again[("derived", "*")] != Digester().digest([*big, [1]])  # not by its content
    from_disk = compared_digests([later], Digester(), None, digests)
    assert from_disk[("derived", "*")] == Digester().digest([*big, [1]])
    assert from_disk[("derived", "as_of")] == digests[("derived", "as_of")]


class Compared:
    """A value that counts how often it is compared."""

    compared = 0

    def __init__(self, n: int):
        self.n = n

    def __eq__(self, other: object) -> bool:
        Compared.compared += 1
        return isinstance(other, Compared) and other.n == self.n

    __hash__ = None  # type: ignore[assignment]


def test_a_table_of_the_version_the_last_build_had_is_not_compared() -> None:
    """What derive gave again (its version the same: `Derived.version`) keeps every
    digest without listing or comparing one value; another version compares them, and
    finds which changed; a table of no version compares as before."""
    first: dict = {}
    listed: list[int] = []

    def entries(change: int | None = None) -> dict[int, Compared]:
        listed.append(change or 0)
        return {n: Compared(n if n != change else -1) for n in range(1000)}

    table = Table(("derived", "campus"), entries, version=b"v1")
    versions: dict = {}
    digests = compared_digests([table], Digester(), None, None, first, None, versions)
    assert versions[table.name].version == b"v1" and len(versions[table.name].tokens) == 1000

    def again(version: bytes, change: int | None = None) -> dict:
        later = Table(("derived", "campus"), lambda: entries(change), version=version)
        Compared.compared = 0
        listed.clear()
        return compared_digests([later], Digester(), first, digests, {}, versions, {})

    assert again(b"v1") == digests and Compared.compared == 0 and listed == []
    changed = again(b"v2", change=7)
    assert Compared.compared == 1000 and listed == [7]
    assert {t for t in changed if changed[t] != digests[t]} == {("derived", "campus", 7)}
    unversioned = again(b"", change=7)
    assert Compared.compared == 1000
    assert unversioned[("derived", "campus", 7)] != digests[("derived", "campus", 7)]


class CountedDigester(Digester):
    digested = 0

    def digest(self, value: object) -> bytes:
        CountedDigester.digested += 1
        return super().digest(value)


def test_a_table_of_the_version_a_build_read_back_had_is_not_digested() -> None:
    """A `build` reads the last build's digests and versions back from the state folder,
    without its values: a table of the same version takes the digests as they were, none
    taken again, and lists its values only for the next build in the process; another
    version digests every entry."""
    table = Table(("derived", "campus"), lambda: {n: n * 2 for n in range(1000)}, version=b"v1")
    versions: dict = {}
    digests = compared_digests([table], Digester(), None, None, {}, None, versions)
    read_back = Snapshot.from_plain(
        Snapshot(b"", "", {}, {}, {}, digests, {("derived", "campus", 0): 0}, versions).plain()
    )
    assert read_back.versions == versions and read_back.values == {}

    def again(version: bytes, values: dict | None) -> dict:
        later = Table(
            ("derived", "campus"), lambda: {n: n * 2 for n in range(1000)}, version=version
        )
        CountedDigester.digested = 0
        return compared_digests(
            [later], CountedDigester(), None, read_back.compared, values, read_back.versions, {}
        )

    listed: dict = {}
    assert again(b"v1", listed) == digests and CountedDigester.digested == 0
    assert listed == {("derived", "campus", n): n * 2 for n in range(1000)}
    assert again(b"v1", None) == digests and CountedDigester.digested == 0
    assert again(b"v2", {}) == digests and CountedDigester.digested == 1000


NOTING = {"note", "note_all", "entity"}


def test_no_part_of_the_site_names_what_it_read() -> None:
    """The site reads through the engine (the record, an entity's fields, its tables); no
    module of it notes a token by hand."""
    found = []
    for path in sorted(SITE_CODE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in NOTING
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "READS"
            ):
                found.append(f"{path.relative_to(SITE_CODE)}:{node.lineno}")
    assert found == []
