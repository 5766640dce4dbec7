"""What `serve` shows after any sequence of edits is what a clean build of the record as
it then stands writes, byte for byte, or the same errors: whatever one save keeps for the
next (the front matter parsed, what linking found, the site written before) never shows."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from site_fixtures import FILES, write_record
from thorough import examples

from sourcebook.incremental import Memos
from sourcebook.live import LiveSite
from sourcebook.pipeline import build

PROSE = [
    "A cluster is built to be one machine.",
    "Colossus 2 runs on the Cluster, one machine.",
    "See [[cluster]] and [[term:one-machine]].",
    "As “The second cluster in Memphis” says [@supermicro-colossus-case, p. 2].",
    "Stargate UAE and xAI, beside SemiAnalysis.",
    "`Cluster` in code, and <https://example.com/cluster>.",
    "An extra source says so [@extra].",
    "",
]
EXTRA = "---\ntitle: An extra source\ncategory: research\ndate: 2026-04-02\n---\n"
TITLES = ["Cluster", "One machine", "Compute cluster", "Machine"]
TERM = (
    "---\ntitle: {title}\n{aliases}definition: {definition}\nchapters: [chapter-1]\n---\n{body}\n"
)


def term_text(title: str, aliases: list[str], definition: str, body: str) -> str:
    said = f"aliases: [{', '.join(aliases)}]\n" if aliases else ""
    return TERM.format(title=title, aliases=said, definition=definition or "A thing.", body=body)


CHAPTER_EDITS = [
    ("one cluster at a time", "one campus at a time"),  # prose alone
    ("[@sa-essay, p. 81]", "[@extra]"),  # another source cited
    ("See [[colossus-2]]", "See [[stargate-uae]]"),  # another campus linked
]
SOURCE_EDITS = [
    ("date: 2024-06", "date: 2024-07"),  # every short citation of it
    ("sets out a ladder", "sets out a ladder of clusters"),  # its annotation
    ("authors: [leopold-aschenbrenner]", "authors: [haze-fan]"),
]
SOURCE_ERRORS = [
    # errors an entity rule finds in the source alone (`check.each`), made and mended
    ("date: 2024-06", "date: 2027-06"),  # dated after the record closes
    ("date: 2027-06", "date: 2024-06"),
    ("annotation:", "urls: [situational-awareness.ai]\nannotation:"),  # not a web address
    ("urls: [situational-awareness.ai]\n", ""),
]
INDICATOR = (
    "---\ntitle: Largest evidenced operating site\nrow: 11\ndescription: The largest.\n{query}---\n"
)
QUERIES = [
    # the record's own SQL: run again only where what it read changed
    "",
    "query: SELECT max(value) AS value, unit FROM figures\n",
    "query: SELECT count(*) AS value FROM campuses WHERE status = 'operating'\n",
    "query: SELECT max(value) AS value FROM figures WHERE quote_status = 'verified'\n",
]
TEST = (
    "---\ntitle: A gigawatt by 2027\nclaim: One campus will run a gigawatt.\n"
    "deadline: {deadline}\nrule: Met when a figure says so.\nchapter: chapter-2\n{query}---\n"
)
TEST_QUERIES = ["", "query: SELECT max(value) >= 250 AS holds FROM figures\n"]
RENAMED = "renamed"
"""A file moved to another name: the entity's id changes, its text does not."""
OWN_NAV = '{% extends "sourcebook/nav.html" %}'
"""A record's own template, over the built-in one."""

CHART = (
    "---\ntitle: {title}\norder: 1\ndescription: Figures by grade.\n"
    "query: SELECT grade, COUNT(*) AS figures FROM figures GROUP BY grade ORDER BY grade\n"
    "spec:\n  mark: {mark}\n  encoding:\n"
    "    y: {{field: grade, type: nominal}}\n    x: {{field: figures, type: quantitative}}\n"
    "---\nEach grade, counted.\n"
)
CHARTS = [
    CHART.format(title="Figures by grade", mark="bar"),
    CHART.format(title="Figures by grade", mark="point"),
    CHART.format(title="The grades", mark="bar"),
    "",
]
PAPER = (
    "---\ntitle: The record at its close\ndate: 2026-11-08\n"
    "summary: The record shows ![[indicator:largest-evidenced-operating-site]] running.\n"
    "---\n# What runs\n\n{body}\n"
)
PAPERS = [
    PAPER.format(body="Colossus 2 runs [@supermicro-colossus-case]."),
    PAPER.format(body="See [[cluster]]: one machine [@extra]."),
    "",
]
UNIT = "\n            unit: MW\n"
FIGURE_ID = (UNIT, UNIT + "            id: colossus-2-power\n")
"""The small record's power figure, given an id a correction can name."""
CORRECTS = [
    ("scope: book\n", "scope: book\ncorrects: [colossus-2-power]\n"),  # the figure retired
    ("corrects: [colossus-2-power]\n", ""),  # and counted again
    ("date: 2026-10-01", "date: 2027-10-01"),  # a correction dated after the close
    ("date: 2027-10-01", "date: 2026-10-01"),
]

SEEDED = {
    "sources/extra.md": EXTRA,
    "terms/one-machine.md": term_text("One machine", [], "Chips as one.", PROSE[6]),
    "campuses/colossus-2.md": FILES["campuses/colossus-2.md"].replace(*FIGURE_ID, 1),
}
"""The small record of the site's tests, a source its prose cites, and an id for the
figure a correction may name."""


term = st.builds(
    term_text,
    st.sampled_from(TITLES),
    st.lists(st.sampled_from(["GPU farm", "Supercluster", "Machine"]), max_size=2),
    st.sampled_from(PROSE),
    st.sampled_from(PROSE),
)
edit = st.one_of(
    st.tuples(st.just("terms/cluster.md"), term),
    st.tuples(st.just("terms/one-machine.md"), term),
    st.tuples(st.just("terms/new-term.md"), term),  # a new entity, with new names
    st.tuples(st.just("terms/new-term.md"), st.just("")),  # and gone again
    st.tuples(st.just("terms/new-term.md"), st.just(RENAMED)),  # or renamed
    st.tuples(st.just("terms/cluster.md"), st.just("---\ntitle: [\n---\n")),  # broken
    # a source is cited, never mentioned: it comes and goes without a name changing
    st.tuples(st.just("sources/extra.md"), st.sampled_from([EXTRA, ""])),
    # a figure changed: the campus, the scorecard, the charts
    st.tuples(
        st.just("campuses/colossus-2.md"),
        st.sampled_from(["300", "1.2"]).map(lambda v: ("value: 200\n", f"value: {v}\n")),
    ),
    st.tuples(st.just("campuses/stargate-uae.md"), st.just(("announced\n", "operating\n"))),
    st.tuples(
        st.just("indicators/largest-evidenced-operating-site.md"),
        st.sampled_from(QUERIES).map(lambda query: INDICATOR.format(query=query)),
    ),
    st.tuples(
        st.just("tests/gigawatt-by-2027.md"),
        st.builds(
            TEST.format,
            deadline=st.sampled_from(["2027-12-31", "2025-06-30"]),
            query=st.sampled_from(TEST_QUERIES),
        ),
    ),
    # what other pages show of an entity, besides its names
    st.tuples(st.just("chapters/chapter-1.md"), st.sampled_from(CHAPTER_EDITS)),
    st.tuples(st.just("sources/sa-essay.md"), st.sampled_from(SOURCE_EDITS)),
    st.tuples(st.just("sources/sa-essay.md"), st.sampled_from(SOURCE_ERRORS)),
    st.tuples(st.just("parties/semianalysis.md"), st.just(("sells: subscriptions", "sells: data"))),
    st.tuples(st.just("terms/one-machine.md"), st.just(("chapter-1]", "chapter-2]"))),
    # a chart drawn, changed and gone; a paper typeset, changed and gone; a correction
    # that retires a figure from every count, and one dated after the record closes
    st.tuples(st.just("charts/grades.md"), st.sampled_from(CHARTS)),
    st.tuples(st.just("papers/the-close.md"), st.sampled_from(PAPERS)),
    st.tuples(st.just("corrections/colossus-date.md"), st.sampled_from(CORRECTS)),
    # what every page reads: the settings, the record's own templates and static files
    st.tuples(st.just("sourcebook.toml"), st.just(("One Machine", "One Engine"))),
    st.tuples(st.just("templates/nav.html"), st.sampled_from([OWN_NAV, ""])),
    st.tuples(st.just("static/extra.css"), st.sampled_from(["p { margin: 0 }\n", ""])),
)


def apply(root: Path, path: str, change: str | tuple[str, str]) -> None:
    target = root / path
    if change == RENAMED:
        if target.is_file():
            target.rename(root / "terms" / "renamed-term.md")
    elif isinstance(change, tuple):  # one piece of the file replaced by another
        if target.is_file():
            old = target.read_text(encoding="utf-8")
            target.write_text(old.replace(*change, 1), encoding="utf-8")
    elif change:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(change, encoding="utf-8")
    else:
        target.unlink(missing_ok=True)


MEMORY = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
"""Where the records and sites of this test go: in memory where the system has a place
for files there, as writing a few hundred sites to some disks takes minutes."""


def files(site: Path) -> dict[str, str]:
    """Every file of a site by its path, as a hash of its bytes."""
    found = {}
    for folder, _, names in os.walk(site):
        for name in names:
            path = Path(folder, name)
            found[path.relative_to(site).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def watched(root: Path, path: str, change: str | tuple[str, str]) -> list[tuple[str, str]]:
    """`apply`, and what a watcher saw of it, as `serve`'s tells a rebuild: each path
    added, modified or deleted, the folders made for a new file first."""
    target = root / path
    said: list[tuple[str, Path]] = []
    if change == RENAMED:
        if target.is_file():
            said = [("deleted", target), ("added", root / "terms" / "renamed-term.md")]
    elif isinstance(change, tuple):
        if target.is_file():
            said = [("modified", target)]
    elif change:
        made = [folder for folder in target.parents if not folder.exists()]
        said = [("added", folder) for folder in reversed(made)]
        said.append(("modified" if target.exists() else "added", target))
    elif target.exists():
        said = [("deleted", target)]
    apply(root, path, change)
    return [(kind, str(where.resolve())) for kind, where in said]


def serve_shows_a_clean_build(edits: list[tuple[str, str | tuple[str, str]]], told: bool) -> None:
    """After each edit, `serve`'s rebuild shows what a clean build writes, byte for byte, or
    the same errors; each rebuild told what changed (as the watcher tells it) where `told`.
    Before every other edit, `serve` had waited long enough to make ready for it
    (`LiveSite.ready`)."""
    with tempfile.TemporaryDirectory(dir=MEMORY) as folder:
        root = write_record(Path(folder) / "record", SEEDED)
        live = LiveSite(root, out=Path(folder) / "live")
        assert live.kept.files is not None
        live.kept.files.margin_ns = 50_000_000  # unchanged files are given again within a run
        try:
            live.rebuild()
            for number, (path, text) in enumerate(edits):
                if number % 2 == 0:
                    live.ready()
                if told:
                    live.rebuild(watched(root, path, text))
                else:
                    apply(root, path, text)
                    live.rebuild()
                clean = Path(folder) / "clean"
                shutil.rmtree(clean, ignore_errors=True)
                done = build(root, clean, drafts=True, search=False, jobs=1, kept=Memos.in_memory())
                errors = [d.format() for d in done.checked.diagnostics.errors]
                assert [d.format() for d in live.errors] == errors
                assert not live.failure
                if done.site is not None:
                    assert files(live.site) == files(clean)
        finally:
            live.close()


@settings(
    max_examples=examples(50),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(edit, min_size=1, max_size=3))
def test_serve_after_any_edits_shows_what_a_clean_build_writes(edits):
    serve_shows_a_clean_build(edits, told=False)
