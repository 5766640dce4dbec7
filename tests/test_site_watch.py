"""What a reader sees of a watch: each source's addresses with their state as of the last
watch, sent to the held copy first where the live page is dead or changed; the Library's
page for each copy; the Data page's count; and the JSON twins and the data release, which
carry the log. The record's sources live on a server on 127.0.0.1, watched twice."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from collections.abc import Iterator

import pytest
from library_server import reply, serving
from selectolax.lexbor import LexborHTMLParser
from site_fixtures import file_for
from watch_fixtures import (
    FILLER,
    SETTINGS,
    Cited,
    article,
    changing,
    redirect,
    watch,
    watched_record,
)

QUOTE = "the first hall was energized in the autumn"
PAGE = article("Campus opens", FILLER)
REWRITTEN = article("Campus opens", FILLER.replace(QUOTE, "work went on"))


def _page(name: str) -> bytes:
    return article("Campus opens", FILLER, f"Filed as {name}.")


RELEASABLE = SETTINGS.replace(
    'house = "HOUSE"', 'house = "HOUSE"\nauthor = "A. Tester"\nlicence = "CC0-1.0"'
)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Iterator[dict]:
    changed, turn = changing([PAGE, REWRITTEN])
    with serving() as web:
        web.route("/live", reply(_page("alive")))
        web.route("/dead", reply(b"gone", status=404))
        web.route("/changed", changed)
        web.route("/old", redirect("/new"))
        web.route("/new", reply(_page("moved")))
        sources = [
            Cited("alive", f"{web.url}/live", _page("alive"), QUOTE, "company", "2026-06-01"),
            Cited("dead", f"{web.url}/dead", _page("dead"), QUOTE, "press", "2019-03-01"),
            Cited("changed", f"{web.url}/changed", PAGE, QUOTE, "press", "2024-01-01"),
            Cited("moved", f"{web.url}/old", _page("moved"), QUOTE, "research"),
        ]
        root = tmp_path_factory.mktemp("watched")
        record = watched_record(root / "record", sources, RELEASABLE)
        assert watch(record, "--day", "2026-11-01").returncode == 0
        turn(1)
        assert watch(record, "--day", "2026-11-05").returncode == 0
        site = root / "site"
        for args in (
            ["build", str(record), "--out", str(site)],
            ["release", "2026-11-08", str(record)],
        ):
            done = subprocess.run(
                [sys.executable, "-m", "sourcebook", *args],
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 0, done.stdout + done.stderr
        yield {"record": record, "site": site, "web": web.url}


def _html(built: dict, url: str) -> LexborHTMLParser:
    path = file_for(built["site"], url)
    assert path is not None, url
    return LexborHTMLParser(path.read_text(encoding="utf-8"))


def _address(built: dict, url: str, state: str):
    found = _html(built, url).css_first(f"ul.addresses li.state-{state}")
    assert found is not None, (url, state)
    return found


def test_a_dead_page_sends_the_reader_to_the_held_copy_first(built) -> None:
    item = _address(built, "/vol1/sources/press/dead", "dead")
    text = " ".join(item.text().split())
    assert text == (
        "Read the held copy first: Library S2, held since 1 October 2026. The live page, "
        "127.0.0.1, is dead since 1 November 2026 (as of the watch of 5 November 2026)."
    )
    links = [a.attributes["href"] for a in item.css("a")]
    assert links == ["/vol1/library/S2", f"{built['web']}/dead"]  # the copy before the page


def test_a_changed_page_says_so_on_the_category_page_too(built) -> None:
    page = _html(built, "/vol1/sources/press")
    item = page.css_first("li#changed ul.addresses li.state-changed")
    assert item is not None
    text = " ".join(item.text().split())
    assert text.startswith("Read the held copy first: Library S3")
    assert (
        "is changed since the copy: it no longer carries a quote of it, since 5 November 2026"
        in text
    )
    assert [q.text() for q in item.css("q")] == [QUOTE]  # which words are gone


def test_a_live_and_a_moved_page_are_linked_with_their_state(built) -> None:
    live = _address(built, "/vol1/sources/company/alive", "live")
    assert " ".join(live.text().split()) == "127.0.0.1: live (as of the watch of 5 November 2026)."
    moved = _address(built, "/vol1/sources/research/moved", "moved")
    assert f"moved, to {built['web']}/new" in moved.text()
    assert moved.css("a")[-1].attributes["href"] == f"{built['web']}/new"


def test_each_copy_has_its_page_in_the_library(built) -> None:
    page = _html(built, "/vol1/library/S2")
    assert page.css_first("h1").text() == "Library S2: Campus opens"
    assert "The live page is dead since 1 November 2026" in page.css_first(".live-state").text()
    assert [q.text() for q in page.css(".proved-quotes q")] == [QUOTE]
    assert "Construction crews worked through the summer" in page.css_first(".held-text").text()
    changed = _html(built, "/vol1/library/S3")
    assert [q.text() for q in changed.css(".gone-quotes q")] == [QUOTE]
    listed = _html(built, "/vol1/library")
    assert [a.text() for a in listed.css(".library-copies > li > a:first-child")] == [
        "Library S1",
        "Library S2",
        "Library S3",
        "Library S4",
    ]
    source = _html(built, "/vol1/sources/press/dead").css_first(
        ".held-copies a[href='/vol1/library/S2']"
    )
    assert source is not None


def test_the_data_page_counts_the_watch_by_kind_and_age(built) -> None:
    section = _html(built, "/vol1/data/releases").css_first("section.live-web")
    assert "As of the last watch, on 5 November 2026" in section.text()
    rows = {
        " ".join(r.css_first("th").text().split()): [c.text() for c in r.css("td")]
        for r in section.css("tbody tr")
    }
    assert rows["The press"] == ["0", "0", "1", "1", "0", "2"]
    assert rows["5 years or more"] == ["0", "0", "0", "1", "0", "1"]
    assert rows["Under a year"] == ["1", "0", "0", "0", "0", "1"]


def test_the_json_twins_carry_the_log(built) -> None:
    twin = json.loads(file_for(built["site"], "/vol1/api/sources/press.json").read_text())
    dead = next(source for source in twin["sources"] if source["id"] == "dead")
    assert dead["watch"]["addresses"][0]["state"] == "dead"
    assert [v["day"] for v in dead["watch"]["visits"]] == ["2026-11-01", "2026-11-05"]
    copy = json.loads(file_for(built["site"], "/vol1/api/library/S2.json").read_text())
    assert copy["copy"]["address"]["said"] == "dead since 1 November 2026"


def test_the_release_carries_the_log(built) -> None:
    release = built["record"] / "releases" / "2026-11-08"
    with open(release / "csv" / "watch_visits.csv", encoding="utf-8") as file:
        visits = list(csv.DictReader(file))
    assert len(visits) == 8
    assert {v["source"] for v in visits} == {"alive", "dead", "changed", "moved"}
    with open(release / "csv" / "watch_addresses.csv", encoding="utf-8") as file:
        states = {row["source"]: row["state"] for row in csv.DictReader(file)}
    assert states == {"alive": "live", "dead": "dead", "changed": "changed", "moved": "moved"}
    package = json.loads((release / "datapackage.json").read_text())
    assert {"watch_visits", "watch_addresses"} <= {r["name"] for r in package["resources"]}


def _files(site) -> dict[str, bytes]:
    return {
        path.relative_to(site).as_posix(): path.read_bytes()
        for path in sorted(site.rglob("*"))
        if path.is_file() and "pagefind" not in path.parts
    }


def test_a_build_after_a_watch_writes_what_a_clean_build_writes(built, tmp_path) -> None:
    """Last: it adds a visit to the module's record. The build that keeps the last site
    writes again the pages a new line of the log changes, as a clean build would."""
    record, site = built["record"], built["site"]
    _build(record, "--out", str(site))  # the site as it stands, with the release made since
    again = json.dumps(
        {"day": "2026-11-09", "url": f"{built['web']}/dead", "status": 200,
         "quotes": [{"quote": QUOTE, "held": True}]}
    )  # fmt: skip
    with open(record / "watch" / "dead.jsonl", "a", encoding="utf-8") as log:
        log.write(again + "\n")
    clean = tmp_path / "clean"
    _build(record, "--out", str(site))
    _build(record, "--out", str(clean), "--no-cache")
    assert _files(site) == _files(clean)
    live = _address(built, "/vol1/sources/press/dead", "live")
    assert "live (as of the watch of 9 November 2026)" in live.text()


def _build(record, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "sourcebook", "build", str(record), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout
