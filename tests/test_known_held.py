"""The known-day clock held from save to save (`serve`): computed again only where an
entity of a kind it reads, the Library's captures or the record's day changed, and then
what a fresh computation gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from site_fixtures import write_record
from test_serve_equivalence import SEEDED, apply

from sourcebook.incremental import Memos
from sourcebook.model import known as clock_module
from sourcebook.model.known import CLOCKED, Known, known
from sourcebook.model.record import Record
from sourcebook.pipeline import check


def test_the_clock_reads_only_the_kinds_it_says(tmp_path: Path, monkeypatch) -> None:
    """Every kind the computation asks the record for is among `CLOCKED`, so that an edit
    of any other kind cannot change it."""
    root = write_record(tmp_path / "record", SEEDED)
    record = check(root).record
    assert record is not None
    record._once = {}  # nothing computed of it yet: every list it reads is asked for
    asked: list[str] = []
    of = Record.of

    def noted(self: Record, kind: str) -> list:
        asked.append(kind)
        return of(self, kind)

    monkeypatch.setattr(Record, "of", noted)
    monkeypatch.setattr(Record, "__iter__", lambda self: pytest.fail("read every kind"))
    clock = clock_module._known(record)
    assert asked and set(asked) <= set(CLOCKED)
    assert clock.entities  # it dated the record's entities


def _computed(monkeypatch: pytest.MonkeyPatch) -> list[Known]:
    """Each clock computed from now on."""
    made: list[Known] = []
    compute = clock_module._known

    def counted(record: Record) -> Known:
        made.append(compute(record))
        return made[-1]

    monkeypatch.setattr(clock_module, "_known", counted)
    return made


def _clock(root: Path, kept: Memos) -> Known:
    checked = check(root, kept=kept)
    return known(checked.record)


def test_a_save_computes_the_clock_again_only_where_what_it_reads_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_record(tmp_path / "record", SEEDED)
    kept = Memos.in_memory(serving=True)
    _clock(root, kept)
    computed = _computed(monkeypatch)
    apply(root, "terms/one-machine.md", ("Chips as one.", "Chips as one machine."))
    held = _clock(root, kept)
    assert computed == []  # a term is not among what it reads: the last one is given
    apply(root, "sources/extra.md", ("date: 2026-04-02", "date: 2026-05-02"))
    now = _clock(root, kept)
    assert len(computed) == 1 and now is not held
    fresh = _clock(root, Memos.in_memory())
    assert now == fresh and now.sources["extra"] != held.sources["extra"]
    apply(root, "terms/one-machine.md", ("one machine.", "one."))
    assert _clock(root, kept) is now and len(computed) == 2  # the fresh check's own


def test_a_check_that_keeps_nothing_in_memory_computes_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`check` and `build` from the command line hold no objects from run to run."""
    root = write_record(tmp_path / "record", SEEDED)
    computed = _computed(monkeypatch)
    _clock(root, Memos.in_memory())
    _clock(root, Memos.in_memory())
    assert len(computed) == 2


def test_the_kinds_a_day_may_cut_part_of_are_those_with_figures_roles_or_corrections() -> None:
    """The as-of cut looks for later figures and roles only in these kinds (`_WITH_PARTS`):
    a kind given such a list must be among them."""
    from sourcebook.model.kinds import KINDS

    holding = {
        kind.name
        for kind in KINDS
        if {"figures", "parties", "corrects"} & set(kind.model.model_fields)
    }
    assert holding == set(clock_module._WITH_PARTS)
