"""A stage's results entity by entity (`incremental.Memo.each`): in `serve`, an entity
read from the same file under the same inputs is given its last result by a lookup of its
key alone, no key hashed or result looked up; elsewhere, each result is kept by its key as
`Memo.made` keeps it, and read back the same."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from sourcebook.incremental import CHECKED, Memo, key_of
from sourcebook.incremental import _memo as memo_module


@dataclass(frozen=True)
class Thing:
    key: tuple[str, str]
    text: str


def made_from(thing: Thing) -> list[str]:
    made.append(thing.key[1])
    return [thing.text.upper()]


def as_read(plain: object) -> list[str] | None:
    return plain if isinstance(plain, list) else None  # type: ignore[return-value]


made: list[str] = []
UNDER = key_of(CHECKED, "a test's rule")


def things(n: int, edited: int | None = None) -> list[Thing]:
    return [Thing(("term", str(i)), f"t{i}" + ("!" if i == edited else "")) for i in range(n)]


def read_as(found: list[Thing]) -> dict[tuple[str, str], bytes]:
    return {thing.key: thing.text.encode() for thing in found if thing.key[1] != "0"}


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each key made from now on."""
    counted: list[int] = []
    make = memo_module.key_of

    def counting(*parts: str | bytes) -> bytes:
        counted.append(1)
        return make(*parts)

    monkeypatch.setattr(memo_module, "key_of", counting)
    made.clear()
    return counted


def test_serve_visits_an_unchanged_entity_s_result_by_its_key_alone(keys: list[int]) -> None:
    memo = Memo(CHECKED, holding=True)
    first = things(1000)
    assert memo.each(UNDER, first, read_as(first), as_read, made_from) == [
        [t.text.upper()] for t in first
    ]
    memo.commit()
    assert len(made) == 1000 and len(keys) == 999  # "0" was read from no file: made only
    made.clear()
    keys.clear()
    edited = things(1000, edited=7)
    found = memo.each(UNDER, edited, read_as(edited), as_read, made_from)
    memo.commit()
    assert found[7] == ["T7!"] and found[8] == ["T8"]
    assert made == ["0", "7"] and len(keys) == 1
    made.clear()
    keys.clear()
    assert memo.each(key_of(CHECKED, "another rule"), edited, read_as(edited), as_read, made_from)
    assert len(made) == 1000  # another rule's inputs: nothing of the first is its


def test_a_run_that_holds_nothing_keeps_each_result_by_its_key(keys: list[int]) -> None:
    """`check` and `build`: the memo kept on disk between runs, as `made` keeps it."""
    memo = Memo(CHECKED)
    first = things(100)
    memo.each(UNDER, first, read_as(first), as_read, made_from)
    memo.commit()
    made.clear()
    again = memo.each(
        UNDER, things(100, edited=3), read_as(things(100, edited=3)), as_read, made_from
    )
    assert made == ["0", "3"] and again[3] == ["T3!"]
    assert memo.hits == 98


def test_one_rule_asked_in_parts_keeps_every_part(keys: list[int]) -> None:
    """Compile asks kind by kind under one key: each kind's results are kept."""
    memo = Memo(CHECKED, holding=True)
    terms, more = things(50), [Thing(("campus", str(i)), f"c{i}") for i in range(50)]
    for part in (terms, more):
        memo.each(UNDER, part, {**read_as(terms), **read_as(more)}, as_read, made_from)
    memo.commit()
    made.clear()
    for part in (terms, more):
        memo.each(UNDER, part, {**read_as(terms), **read_as(more)}, as_read, made_from)
    assert made == ["0", "0"]
