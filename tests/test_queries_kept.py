"""`build` and `check` keep the queries' runs in the record's state folder (`QueryRuns.open`):
a build after an edit that changed nothing a job read runs none of them, and gives what a
clean build gives. What is kept is sealed with this user's secret, and read back as
sourcebook's own records alone."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest
from site_fixtures import write_record
from test_queries_remembered import INDICATOR, MAX_FIGURE
from test_serve_equivalence import files

from sourcebook.incremental import STATE_FOLDER, Memos, QueryRuns, Store
from sourcebook.live import LiveSite
from sourcebook.pipeline import build

RUNS = Path(STATE_FOLDER, "queries", "runs.marshal")


def record(folder: Path) -> Path:
    """The site's record, with a query of its own: run in a child, query by query."""
    query = INDICATOR.format(query=MAX_FIGURE)
    return write_record(folder, {"indicators/largest-evidenced-operating-site.md": query})


def built(root: Path, out: Path) -> QueryRuns:
    """A `build` as the command runs it, its memos opened from the state folder; its runs."""
    kept = Memos.open(root, site=True)
    done = build(root, out, search=False, kept=kept)
    assert done.checked.ok, done.checked.diagnostics.errors
    assert kept.queries is not None
    return kept.queries


def clean(root: Path, out: Path) -> dict[str, str]:
    build(root, out, search=False, kept=Memos.in_memory())
    return files(out)


def test_a_build_after_a_sentence_runs_no_job_again(tmp_path: Path) -> None:
    root = record(tmp_path / "record")
    out = tmp_path / "site"
    first = built(root, out)
    assert first.hits == 0 and first.ran > 0 and (root / RUNS).is_file()
    term = root / "terms" / "cluster.md"
    term.write_text(term.read_text() + "\nOne more sentence.\n")
    again = built(root, out)
    # the record's queries, the campuses' stages and derive: each given again
    assert again.hits == 3 and again.ran == 0
    assert "One more sentence." in (out / "vol1/glossary/cluster/index.html").read_text()
    assert files(out) == clean(root, tmp_path / "clean")
    campus = root / "campuses" / "colossus-2.md"
    campus.write_text(campus.read_text().replace("value: 200\n", "value: 300\n", 1))
    moved = built(root, out)
    assert moved.hits < 3
    assert files(out) == clean(root, tmp_path / "clean-2")


def test_runs_changed_by_another_hand_are_not_read(tmp_path: Path) -> None:
    root = record(tmp_path / "record")
    out = tmp_path / "site"
    built(root, out)
    kept = root / RUNS
    data = bytearray(kept.read_bytes())
    data[-1] ^= 1
    kept.write_bytes(bytes(data))
    term = root / "terms" / "cluster.md"
    term.write_text(term.read_text() + "\nOne more sentence.\n")
    again = built(root, out)
    assert again.hits == 0 and again.ran > 0
    assert files(out) == clean(root, tmp_path / "clean")


class Runs:
    """What a kept value could name, were it written with this user's secret."""

    def __init__(self, call: object, *args: object) -> None:
        self.call, self.args = call, args

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return self.call, self.args


@pytest.mark.parametrize("named", ["function", "class"])
def test_a_kept_value_makes_only_sourcebook_s_records(tmp_path: Path, named: str) -> None:
    """Even sealed aright, a kept value that names a function, or a class of sourcebook's
    that does something as it is made, is not read: nothing runs, and the job runs."""
    root = write_record(tmp_path / "record")
    marker = tmp_path / "ran"
    value = (
        Runs(os.mkdir, str(marker))
        if named == "function"
        else Runs(LiveSite, str(root), str(marker))  # makes its out folder
    )
    runs = QueryRuns.open(Store.of(root))
    runs.record(b"job", frozenset(), lambda noted: {}, pickle.dumps(value))
    runs.keep_outcomes(b"job", {"query": value})
    runs.commit()
    again = QueryRuns.open(Store.of(root))
    assert again.lookup(b"job", lambda noted: {}) is None
    assert again.outcomes(b"job") == {}
    assert not marker.exists() and again.hits == 0
    if named == "function":  # what an unpickler that is not restricted would have done
        pickle.loads(pickle.dumps(value))
        assert marker.is_dir()


def test_kept_records_are_read_back_equal(tmp_path: Path) -> None:
    from datetime import date
    from decimal import Decimal

    from sourcebook.library.report import Status

    root = write_record(tmp_path / "record")
    value = {"day": date(2026, 12, 7), "share": Decimal("0.25"), "status": Status.VERIFIED}
    runs = QueryRuns.open(Store.of(root))
    version = runs.record(
        b"job", frozenset({("figures", "value")}), lambda n: {"f": b"1"}, pickle.dumps(value)
    )
    runs.commit()
    again = QueryRuns.open(Store.of(root))
    assert again.lookup(b"job", lambda noted: {"f": b"2"}) is None  # what it read changed
    assert again.lookup(b"job", lambda noted: {"f": b"1"}) == (value, version)
