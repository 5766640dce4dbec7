"""The known-day clock kept from run to run (`check/clock.py`): read back where nothing it
reads changed, and then the clock computed afresh; computed again where something did; and
a kept clock believed only in its own form."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from conftest import calls_of

from sourcebook.check.clock import kept_clock
from sourcebook.diagnostics import Diagnostics
from sourcebook.incremental import CHECKED, Memo, Memos
from sourcebook.model import known as known_module
from sourcebook.model.known import Known, clock_of_plain, known, plain_clock
from sourcebook.model.record import Record
from sourcebook.pipeline import read_and_link


@pytest.fixture
def record_root(bundled_copy: Path) -> Path:
    return bundled_copy


def _read(root: Path) -> Record:
    record, _ = read_and_link(root, None, Diagnostics(), Memos.in_memory(), done=False)
    assert record is not None
    return record


def _kept(root: Path) -> Memo:
    """A memo that kept the clock of the record at `root` as it is now."""
    memo = Memo(CHECKED)
    kept_clock(_read(root), memo)
    memo.commit()
    return memo


def _computed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each time a clock is computed, not read back, counted."""
    return calls_of(monkeypatch, known_module, "_known")


def test_a_clock_read_back_is_the_clock_computed(
    record_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memo = _kept(record_root)
    fresh = known(_read(record_root))
    made = _computed(monkeypatch)
    again = _read(record_root)
    kept_clock(again, memo)
    assert known(again) == fresh and made == []  # read back, not computed
    assert fresh.figures and fresh.entities and fresh.roles and fresh.items


def test_an_edit_the_clock_does_not_read_keeps_it_and_one_it_reads_does_not(
    record_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memo = _kept(record_root)
    made = _computed(monkeypatch)
    term = next((record_root / "terms").glob("*.md"))
    term.write_text(term.read_text(encoding="utf-8") + "\nA sentence more.\n", "utf-8")
    record = _read(record_root)
    kept_clock(record, memo)
    known(record)
    assert made == []  # a term is the book's apparatus: the clock does not read it
    memo.commit()
    campus = next((record_root / "campuses").glob("*.md"))
    text = campus.read_text(encoding="utf-8")
    campus.write_text(text + "\nA sentence more.\n", "utf-8")
    record = _read(record_root)
    kept_clock(record, memo)
    assert made == [1]  # a campus is clocked: computed again, and equal to a fresh clock
    monkeypatch.undo()
    assert known(record) == known(_read(record_root))


def test_a_clock_is_kept_only_where_its_record_was_read_from_files(
    record_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = _read(record_root)
    record.read_as.clear()  # as a record made in memory: nothing says it is the same
    memo = Memo(CHECKED)
    kept_clock(record, memo)
    memo.commit()
    assert len(memo) == 0


@pytest.mark.parametrize(
    "plain",
    [
        None,
        (),
        [1, {}, {}, {}, {}, {}],
        (739000, {}, {}, {}, {}),
        ("2026-01-01", {}, {}, {}, {}, {}),
        (739000, {"shelf": "day"}, {}, {}, {}, {}),
        (739000, {1: 739000}, {}, {}, {}, {}),
        (739000, {}, {}, {}, {("campus", "0"): 739000}, {}),
        (739000, {}, {}, {}, {}, {"campus": 739000}),
        (739000, {}, {}, {}, {}, {("campus", "x"): 10**12}),
        (0, {}, {}, {}, {}, {}),
    ],
)
def test_a_kept_clock_not_in_its_form_is_not_believed(plain: object) -> None:
    assert clock_of_plain(plain) is None


def test_the_plain_form_of_a_clock_gives_it_back(record_root: Path) -> None:
    clock = known(_read(record_root))
    assert clock_of_plain(plain_clock(clock)) == clock
    empty = Known(date(2026, 11, 8))
    assert clock_of_plain(plain_clock(empty)) == empty
