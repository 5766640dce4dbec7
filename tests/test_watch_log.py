"""The watch log as a file of the record: its lines read back as written, a line that is
no visit passed over with a warning, a log of no source named, an address's state read
from its visits alone, and `watch --report`, which visits nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from watch_fixtures import FILLER, Cited, article, check_json, watched_record

from sourcebook.model.watch import Failure, Seen, Soft, State, Visit, address_state
from sourcebook.read.watch import line_of, visit_of

QUOTE = "the first hall was energized in the autumn"
URL = "https://news.example/campus"

texts = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40)
visits = st.builds(
    Visit,
    day=st.dates(date(2000, 1, 1), date(2100, 1, 1)),
    url=texts,
    run=st.one_of(st.just(""), texts),
    status=st.one_of(st.none(), st.integers(100, 599)),
    failure=st.one_of(st.none(), st.sampled_from(Failure)),
    note=st.one_of(st.just(""), texts),
    redirects=st.lists(
        st.tuples(texts, st.sampled_from([301, 302, 303, 307, 308])), max_size=3
    ).map(tuple),
    final=st.one_of(st.none(), texts),
    sha256=st.one_of(st.none(), st.text("0123456789abcdef", min_size=64, max_size=64)),
    size=st.integers(0, 2**40),
    soft=st.one_of(st.none(), st.sampled_from(Soft)),
    similarity=st.one_of(st.none(), st.floats(0, 1)),
    quotes=st.lists(st.builds(Seen, texts, st.sampled_from([True, False, None])), max_size=3).map(
        tuple
    ),
    etag=st.one_of(st.none(), texts),
    last_modified=st.one_of(st.none(), texts),
)


@given(visits)
def test_a_visit_reads_back_as_it_was_written(visit: Visit) -> None:
    line = line_of(visit)
    assert line.endswith("\n") and "\n" not in line[:-1]
    assert visit_of(line.rstrip("\n")) == visit


def _record(tmp_path: Path, log: str, name: str = "campus") -> Path:
    record = watched_record(
        tmp_path / "record", [Cited("campus", URL, article("Campus", FILLER), QUOTE)]
    )
    (record / "watch").mkdir()
    (record / "watch" / f"{name}.jsonl").write_text(log, encoding="utf-8")
    return record


def test_a_line_that_is_no_visit_is_passed_over_with_a_warning(tmp_path) -> None:
    good = json.dumps({"day": "2026-11-01", "url": URL, "status": 404})
    later = json.dumps({"day": "2026-11-05", "url": URL, "status": 404})
    log = "\n".join(
        [
            good,
            "<<<<<<< HEAD",
            json.dumps({"day": "2026-11-02", "url": URL, "status": "ok"}),
            "[1, 2]",
            json.dumps({"day": "yesterday", "url": URL}),
            "[" * 100_000,
            later,
        ]
    )
    checked = check_json(_record(tmp_path, log + "\n"))
    bad = [(d["line"], d["code"]) for d in checked["diagnostics"] if d["code"] == "W008"]
    assert bad == [(2, "W008"), (3, "W008"), (4, "W008"), (5, "W008"), (6, "W008")]
    assert checked["errors"] == 0
    # the lines that are visits still count: two failures four days apart
    assert [d["code"] for d in checked["diagnostics"] if d["file"].endswith("campus.md")] == [
        "W001"
    ]


def test_a_log_of_no_source_is_named(tmp_path) -> None:
    record = _record(tmp_path, json.dumps({"day": "2026-11-01", "url": URL}) + "\n", "gone")
    (record / "watch" / "Not_An_Id.jsonl").write_text("", encoding="utf-8")
    found = {
        (d["file"].split("/record/")[-1], d["code"])
        for d in check_json(record)["diagnostics"]
        if d["code"] == "W009"
    }
    assert found == {("watch/gone.jsonl", "W009"), ("watch/Not_An_Id.jsonl", "W009")}


def test_a_watch_writes_nothing_through_a_watch_folder_that_leads_away(tmp_path) -> None:
    record = watched_record(tmp_path / "record", [Cited("campus", URL, b"<p>x</p>", "x")])
    away = tmp_path / "away"
    away.mkdir()
    (record / "watch").symlink_to(away)
    done = subprocess.run(
        [sys.executable, "-m", "sourcebook", "watch", str(record)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert "watch/ is not a folder of the record" in done.stderr
    assert list(away.iterdir()) == []


def _visit(day: int, **fields: object) -> Visit:
    return Visit(day=date(2026, 11, 1) + timedelta(days=day), url=URL, **fields)  # type: ignore[arg-type]


def test_an_address_is_dead_only_after_failures_days_apart() -> None:
    once = [_visit(0, status=200), _visit(1, status=503), _visit(3, status=503)]
    assert address_state(once).state is State.FAILING  # two days apart: not yet
    dead = [*once, _visit(4, failure=Failure.NO_ANSWER)]
    state = address_state(dead)
    assert state.state is State.DEAD and state.since == date(2026, 11, 2)
    assert state.failures == 3
    back = [*dead, _visit(5, status=200)]
    assert address_state(back).state is State.LIVE


def test_moved_follows_the_permanent_redirects_it_starts_with() -> None:
    hops = (("http://a/1", 301), ("https://a/1", 308), ("https://a/2", 302))
    visit = _visit(0, status=200, redirects=hops, final="https://a/3")
    assert visit.moved_to == "https://a/2"
    assert _visit(0, status=200, redirects=(("http://a/1", 302),), final="x").moved_to is None
    assert address_state([visit]).state is State.MOVED


def test_changed_counts_only_the_quotes_the_copy_proves() -> None:
    held = (Seen(QUOTE, True), Seen("not proved anyway", True))
    gone = (Seen(QUOTE, False), Seen("not proved anyway", False))
    found = [
        _visit(0, status=200, quotes=held),
        _visit(7, status=200, quotes=gone),
        _visit(9, status=304, quotes=gone),
    ]
    state = address_state(found, proved={QUOTE})
    assert state.state is State.CHANGED
    assert state.gone == ((QUOTE, date(2026, 11, 8)),)
    assert address_state(found, proved=set()).state is State.LIVE


def test_the_report_counts_the_last_watch_by_category_and_age(tmp_path) -> None:
    record = watched_record(
        tmp_path / "record",
        [
            Cited(
                "old", "https://a.example/old", article("Old", FILLER), QUOTE, "press", "2018-05-01"
            ),
            Cited(
                "new",
                "https://a.example/new",
                article("New", FILLER),
                QUOTE,
                "company",
                "2026-09-01",
            ),
            Cited("never", "https://a.example/never", article("Never", FILLER), QUOTE, "research"),
        ],
    )
    (record / "watch").mkdir()
    lines = {
        "old": [{"day": "2026-11-01", "url": "https://a.example/old", "status": 410},
                {"day": "2026-11-05", "url": "https://a.example/old", "status": 410}],
        "new": [{"day": "2026-11-05", "url": "https://a.example/new", "status": 200,
                 "quotes": [{"quote": QUOTE, "held": True}]}],
    }  # fmt: skip
    for source, visits_of in lines.items():
        text = "".join(json.dumps(v) + "\n" for v in visits_of)
        (record / "watch" / f"{source}.jsonl").write_text(text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "sourcebook", "watch", "--report", str(record), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["day"] == "2026-11-05"
    assert report["total"] == {
        "heading": "all", "live": 1, "moved": 0, "changed": 0, "dead": 1, "unsure": 0, "total": 2,
    }  # fmt: skip
    assert report["unvisited"] == 1
    by_category = {t["heading"]: (t["live"], t["dead"]) for t in report["by_category"]}
    assert by_category == {"company": (1, 0), "press": (0, 1)}
    by_age = {t["heading"]: t["total"] for t in report["by_age"]}
    assert by_age == {"under a year": 1, "5 years or more": 1}
    text = subprocess.run(
        [sys.executable, "-m", "sourcebook", "watch", "--report", str(record)],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert text.splitlines()[0] == "the last watch, 2026-11-05: 2 addresses"
    assert "1 address not yet watched" in text
