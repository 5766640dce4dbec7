"""`sourcebook library add --refresh SHELF`: a new copy of a live page beside the old one,
never in its place; and check, which shows which quotes each copy proves."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from datetime import date

from library_server import reply, serving, snapshot
from watch_fixtures import FILLER, Cited, article, changing, watched_record

KEPT = "Construction crews worked through the summer"
LOST = "the first hall was energized in the autumn"
PAGE = article("Campus opens", FILLER)
REWRITTEN = article("Campus opens", FILLER.replace(LOST, "the halls waited for power"))


def _sourcebook(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sourcebook", *args], capture_output=True, text=True, timeout=120
    )


def _days_around(
    act: Callable[[], subprocess.CompletedProcess[str]],
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """What `act` did, and the days it may have been done on (two, where it ran over
    midnight): a copy is dated by the day it was taken."""
    before = date.today()
    done = act()
    return done, {before.isoformat(), date.today().isoformat()}


def test_a_refresh_takes_a_new_copy_beside_the_old_and_check_shows_what_each_proves(
    tmp_path,
) -> None:
    answer, turn = changing([PAGE, REWRITTEN])
    with serving() as server:
        url = server.route("/page", answer)
        record = watched_record(tmp_path / "record", [Cited("campus", url, PAGE, LOST)])
        source = record / "sources" / "campus.md"
        source.write_text(
            source.read_text().replace(
                "annotation: The report", f"annotation: “{KEPT}”; the report"
            )
        )
        held = {k: v for k, v in snapshot(record / "library").items() if k.startswith("S1.")}
        turn(1)
        done, days = _days_around(
            lambda: _sourcebook("library", "add", "--refresh", "S1", str(record))
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() in [
        [
            f"S2 added beside S1: html, page, captured {day}",
            "S2 named in the library of source 'campus'",
        ]
        for day in days
    ]
    after = snapshot(record / "library")
    assert all(after[name] == digest for name, digest in held.items())  # S1 as it was
    assert "refreshes: S1" in (record / "library" / "S2.yaml").read_text()
    assert "library: [S1, S2]" in source.read_text()

    checked = json.loads(
        _sourcebook("check", str(record), "--format", "json", "--quotes", "--list").stdout
    )
    assert checked["errors"] == 0
    [lost] = [d for d in checked["diagnostics"] if d["code"] == "W007"]
    assert LOST in lost["message"] and "S2, the copy taken on" in lost["message"]
    assert lost["file"].endswith("sources/campus.md") and lost["line"] == 6
    proves = {copy["shelf"]: copy["proves"] for copy in checked["copies"]}
    assert sorted(proves["S1"]) == sorted([KEPT, LOST]) and proves["S2"] == [KEPT]
    by_quote = {q["quote"]: q["copies"] for q in checked["quote_list"]}
    assert by_quote[LOST] == [{"shelf": "S1", "holds": True}, {"shelf": "S2", "holds": False}]

    listed = _sourcebook("check", str(record), "--quotes", "--list").stdout
    assert "copies: S1 holds it; S2 does not" in listed
    assert "campus: S2 (taken " in listed and "refreshing S1) proves 1 of 2" in listed


def test_a_refresh_of_a_page_as_it_was_notes_the_copy_read_again(tmp_path) -> None:
    with serving() as server:
        url = server.route("/page", reply(PAGE))
        record = watched_record(tmp_path / "record", [Cited("campus", url, PAGE, LOST)])
        done, days = _days_around(
            lambda: _sourcebook("library", "add", "--refresh", "S1", str(record))
        )
    assert done.returncode == 0, done.stderr
    said = [f"S1 holds the page as it is now: noted as read again on {day}" for day in days]
    assert done.stdout.strip() in said
    today = done.stdout.strip().rsplit(" ", 1)[1]
    assert f"read_again:\n- '{today}'" in (record / "library" / "S1.yaml").read_text()
    assert not (record / "library" / "S2.yaml").exists()


def test_a_refresh_needs_a_copy_taken_from_the_web(tmp_path) -> None:
    record = watched_record(tmp_path / "record", [])
    (tmp_path / "note.txt").write_text("A note.")
    assert _sourcebook("library", "add", str(tmp_path / "note.txt"), str(record)).returncode == 0
    before = snapshot(record / "library"), snapshot(record / "sources")
    no_url = _sourcebook("library", "add", "--refresh", "S1", str(record))
    assert no_url.returncode == 2
    assert no_url.stderr.startswith("error Q108 --refresh S1: S1 was not taken from the web")
    missing = _sourcebook("library", "add", "--refresh", "S9", str(record))
    assert missing.returncode == 2 and "the Library holds no S9" in missing.stderr
    assert (snapshot(record / "library"), snapshot(record / "sources")) == before
