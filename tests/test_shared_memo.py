"""What pages share, carried from build to build (`incremental.SharedMemo`): a value is
taken again where it read nothing the edit changed, and the carry finds the others by the
tokens changed, not by looking at every value's reads."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sourcebook.incremental import READS, SharedMemo, Token


class Counted(frozenset):  # type: ignore[type-arg]
    """A value's reads that count how often they are looked through."""

    looked = 0

    def __iter__(self) -> Any:
        Counted.looked += 1
        return super().__iter__()

    def isdisjoint(self, other: Any) -> bool:
        Counted.looked += 1
        return super().isdisjoint(other)


def made(memo: SharedMemo, key: Any, read: set[Token]) -> str:
    """The value under `key`, made while a page is open and reading `read`."""

    def make() -> str:
        for token in read:
            READS.note(token)
        return f"made {key}"

    with READS.page():
        return READS.lookup(memo, key, make)


def carried(last: SharedMemo, changed: set[Token]) -> SharedMemo:
    memo = SharedMemo()
    memo.carry(last, changed)
    return memo


def test_a_value_is_carried_where_it_read_nothing_changed() -> None:
    first = SharedMemo()
    made(first, "a", {("entity", "campus", "x")})
    made(first, "b", {("entity", "campus", "y"), ("kind", "party")})
    made(first, "c", set())
    first["outside"] = "made with no page open"  # read nothing noted: not carried
    second = carried(first, {("kind", "party")})
    assert dict(second) == {"a": "made a", "c": "made c"}
    assert second.reads == {"a": frozenset({("entity", "campus", "x")}), "c": frozenset()}
    made(second, "b", {("entity", "campus", "y")})  # made again, reading less
    third = carried(second, {("kind", "party"), ("entity", "campus", "x")})
    assert dict(third) == {"b": "made b", "c": "made c"}


def test_a_carry_looks_only_at_the_values_that_read_what_changed() -> None:
    """10,000 values each reading its own entity: after the first carry (which lists who
    reads what), an edit of one entity looks at that entity's reader alone."""
    last = SharedMemo()
    for n in range(10_000):
        last.note(n, f"value {n}", Counted({("entity", "term", str(n)), ("kind", "campus")}))
    memo = carried(last, {("entity", "term", "7")})
    assert len(memo) == 9_999 and 7 not in memo
    for edited in ("8", "9", "10"):
        Counted.looked = 0
        memo = carried(memo, {("entity", "term", edited)})
        assert Counted.looked <= 1
        assert len(memo) == 9_998 and int(edited) not in memo
        memo.note(int(edited) - 1, "again", Counted({("entity", "term", str(int(edited) - 1))}))
    Counted.looked = 0
    memo = carried(memo, {("kind", "campus")})  # read by all but the three made again
    assert set(memo) == {7, 8, 9}  # most of it stale: the rest taken, its index made again
    assert set(carried(memo, {("entity", "term", "8")})) == {7, 9}


tokens = st.tuples(st.just("entity"), st.sampled_from("abcdef"))


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.dictionaries(st.integers(0, 12), st.frozensets(tokens, max_size=3), max_size=6),
            st.frozensets(tokens, max_size=3),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_carrying_from_build_to_build_keeps_what_looking_at_each_value_keeps(
    builds: list[tuple[dict[int, frozenset[Token]], frozenset[Token]]],
) -> None:
    """Each build makes some values (again), then the next carries with what it changed:
    the values carried are those a comparison of every value's reads with the change
    keeps."""
    memo, expected = SharedMemo(), {}
    for made_now, changed in builds:
        for key, read in made_now.items():
            memo.note(key, (key, read), read)
            expected[key] = read
        memo = carried(memo, set(changed))
        expected = {key: read for key, read in expected.items() if read.isdisjoint(changed)}
        assert memo.reads == expected
        assert dict(memo) == {key: (key, read) for key, read in expected.items()}


def test_values_taken_from_another_process_are_carried_by_what_they_read() -> None:
    mine, theirs = SharedMemo(), SharedMemo()
    made(mine, "a", {("entity", "term", "a")})
    made(theirs, "b", {("entity", "term", "b")})
    mine = carried(mine, set())  # indexed from here on
    mine.take(theirs)
    assert dict(carried(mine, {("entity", "term", "b")})) == {"a": "made a"}
