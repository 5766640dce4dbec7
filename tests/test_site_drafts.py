"""Drafts: out of every file `build` and `release` write; in, and marked, under
`build --drafts` and `serve`; and a coinage published as a provisional reading."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from host_fixtures import SRC, fetch, sourcebook_serve
from site_fixtures import FILES, build, write_record

# Words that stand only in the drafts: none of them may reach a published file.
DRAFT_WORDS = ("quillfeather", "warm shell", "warm-shell", "zephyrine")

DRAFTS = {
    "terms/cluster.md": FILES["terms/cluster.md"].replace(
        "related: [one-machine]", "related: [one-machine, warm-shell]"
    ),
    "terms/warm-shell.md": """\
        ---
        title: Warm shell
        definition: A built hall with power and cooling that awaits its chips.
        draft: true
        chapters: [chapter-1]
        ---
        Colossus 2 began as one.
        """,
    "campuses/quillfeather-park.md": """\
        ---
        title: Quillfeather Park
        location: Zephyrine, Nevada
        country: US
        status: announced
        draft: true
        parties:
          - party: xai
            roles: [owner]
            source: supermicro-colossus-case
        ---
        A cluster that may never be.
        """,
    "sources/quillfeather-memo.md": """\
        ---
        title: The Quillfeather memo
        category: press
        publisher: bloomberg
        date: 2026-08-01
        draft: true
        annotation: A memo about a cluster in Zephyrine.
        ---
        """,
    "parties/xai.md": """\
        ---
        title: xAI
        type: company
        url: https://x.ai
        ---
        Its next site is [[quillfeather-park|in the desert]].
        """,
}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "sourcebook", *args]
    env = {"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


AUTHORS_OWN = "[[quillfeather-park|in the desert]]"
"""The Markdown of a published entity, as the author wrote it (check warned, U004): a
release holds each entity's Markdown as it stands."""


def leaks(folder: Path) -> list[str]:
    """Every file under `folder` (or name of one) that holds a word of the drafts."""
    found = []
    for path in folder.rglob("*"):
        text = path.relative_to(folder).as_posix().lower()
        if path.is_file():
            text += path.read_bytes().decode("utf-8", "replace").lower().replace(AUTHORS_OWN, "")
        found += [f"{path.relative_to(folder)}: {word}" for word in DRAFT_WORDS if word in text]
    return found


@pytest.fixture
def record(tmp_path: Path) -> Path:
    return write_record(tmp_path / "record", DRAFTS)


def test_check_warns_of_each_draft_and_of_each_published_entity_naming_one(record: Path) -> None:
    checked = run("check", str(record))
    assert checked.returncode == 0, checked.stdout
    assert checked.stdout.count("warning U002") == 3
    assert "terms/cluster.md:5:24: warning U004 term 'cluster' names term 'warm-shell'" in (
        checked.stdout
    )
    assert (
        "parties/xai.md:6:18: warning U004" in checked.stdout
        and "shows the link as plain text" in (checked.stdout)
    )


def test_a_draft_is_in_no_file_that_build_or_release_writes(record: Path) -> None:
    built = run("build", str(record), "-q")
    assert built.returncode == 0, built.stderr
    site = record / "_site"
    assert leaks(site) == []
    assert (site / "vol1" / "glossary" / "cluster" / "index.html").is_file()
    assert not (site / "vol1" / "ledger" / "quillfeather-park").exists()
    # The published entity that named a draft keeps its own words, without the link.
    xai = (site / "vol1" / "parties" / "xai" / "index.html").read_text(encoding="utf-8")
    assert "Its next site is in the desert." in xai
    released = run("release", "2026-11-08", str(record), "-q")
    assert released.returncode == 0, released.stderr
    assert leaks(record / "releases") == []


def test_build_with_drafts_shows_them_marked(record: Path, tmp_path: Path) -> None:
    site = build(record, tmp_path / "site", drafts=True)
    term = (site / "vol1" / "glossary" / "warm-shell" / "index.html").read_text()
    assert '<p class="draft" role="note"><strong>Draft.</strong>' in term
    cluster = (site / "vol1" / "glossary" / "cluster" / "index.html").read_text()
    assert 'href="/vol1/glossary/warm-shell">Warm shell</a> <span class="draft-mark">' in cluster
    ledger = (site / "vol1" / "ledger" / "index.html").read_text()
    assert 'Quillfeather Park</a> <span class="draft-mark">(draft)</span>' in ledger


def test_serve_shows_the_drafts(record: Path) -> None:
    with sourcebook_serve(record, "--no-notify", "--no-watch") as origin:
        page = fetch(origin + "/vol1/ledger/quillfeather-park")
        assert page.status == 200 and b"<strong>Draft.</strong>" in page.body
        assert b"Quillfeather Park" in fetch(origin + "/vol1/parties/xai").body


def test_a_provisional_reading_is_published_and_says_so(tmp_path: Path) -> None:
    coined = FILES["terms/one-machine.md"].replace(
        "chapters:", "provisional: true\n        chapters:"
    )
    site = build(write_record(tmp_path / "r", {"terms/one-machine.md": coined}))
    html = (site / "vol1" / "glossary" / "one-machine" / "index.html").read_text()
    assert "<strong>Our provisional reading.</strong>" in html
    assert "<strong>Draft.</strong>" not in html
    cluster = (site / "vol1" / "glossary" / "cluster" / "index.html").read_text()
    assert "Our provisional reading" not in cluster


def test_the_bundled_coinages_are_provisional_readings_not_drafts() -> None:
    terms = Path(__file__).resolve().parent.parent / "examples" / "compute-race" / "terms"
    for name in ("arsenal-behind-every-arsenal", "clocks-of-diffusion", "exclusive-generation"):
        text = (terms / f"{name}.md").read_text(encoding="utf-8")
        assert "provisional: true" in text and "draft:" not in text
