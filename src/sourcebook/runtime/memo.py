"""Memos of pure functions within one process: a speed trick, not the incremental engine.

A function whose value depends on its arguments alone (a unit parsed, a plural made, a
quote's pattern compiled, a table built once) may remember its values for the life of the
process. Nothing of it is read from or written to the record's state folder: what one
run keeps for the next is `sourcebook.incremental`'s, which may take the answers a pure
function of strings gave (`answered`: the registry of units' dimensions and factors) to
give them to the next run. Every such memo outside the engine is made here
(tests/test_incremental_home.py holds the source to it), so that none can be mistaken for
a cache that decides what a build shows.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


def memoized(
    maxsize: int | None = None,
) -> Callable[[Callable[..., T]], functools._lru_cache_wrapper[T]]:
    """The function it decorates, remembering up to `maxsize` values (None: all) by its
    arguments, the least recently used let go first. For pure functions only."""
    return functools.lru_cache(maxsize=maxsize)


RAISED = "raised"
"""The first of an answer that is an error: (RAISED, its message)."""


class Answered(Generic[T]):
    """A pure function of strings whose answers (its values, plain ones, and the errors of
    type `error` it raises, by their message) can be given to the next run: this process
    answers a question it was given an answer to without calling the function. Where the
    answers live from run to run is the engine's (`incremental.Memos` keeps them in the
    state folder, under sourcebook's code); here they are only held in the process."""

    def __init__(
        self,
        function: Callable[..., T],
        name: str,
        error: type[Exception],
        plain: Callable[[object], bool],
    ) -> None:
        self.function, self.name, self.error, self.plain = function, name, error, plain
        self._given: dict[tuple[str, ...], object] = {}
        self._asked: dict[tuple[str, ...], object] = {}
        functools.update_wrapper(self, function)

    def __call__(self, *question: str) -> T:
        if question in self._asked:
            answer = self._asked[question]
        elif question in self._given:
            answer = self._asked[question] = self._given[question]
        else:
            try:
                answer = self.function(*question)
            except self.error as exc:
                answer = (RAISED, str(exc))
            self._asked[question] = answer
        if isinstance(answer, tuple):
            raise self.error(answer[1])
        return answer  # type: ignore[return-value]

    def give(self, answers: object, asked: bool = False) -> None:
        """Answers made by another run of the same code; those not of the form of this
        function's (strings for the question; a plain value it gives, or an error's
        message) are left out. `asked`: this run's own, made in another process."""
        if not isinstance(answers, dict):
            return
        for question, answer in answers.items():
            if not (isinstance(question, tuple) and all(type(q) is str for q in question)):
                continue
            if isinstance(answer, tuple):
                if not (len(answer) == 2 and answer[0] == RAISED and type(answer[1]) is str):
                    continue
            elif not self.plain(answer):
                continue
            self._given[question] = answer
            if asked:
                self._asked[question] = answer

    def asked(self) -> dict[tuple[str, ...], object]:
        """The answers this process gave, made or given."""
        return dict(self._asked)


_ANSWERED: dict[str, Answered[Any]] = {}
_PENDING: dict[str, object] = {}
"""Answers given for a function not yet made (its module not yet imported)."""


def answered(
    name: str, error: type[Exception], plain: Callable[[object], bool]
) -> Callable[[Callable[..., T]], Answered[T]]:
    """The pure function it decorates, its answers given to the next run (`Answered`),
    under `name`; `plain`: whether a value is one the function gives."""

    def made(function: Callable[..., T]) -> Answered[T]:
        found = Answered(function, name, error, plain)
        _ANSWERED[name] = found
        found.give(_PENDING.pop(name, None))
        return found

    return made


def give_answers(answers: dict[str, object], asked: bool = False) -> None:
    """Answers another run (or, where `asked`, another process of this run) made, by the
    name of the function that made them."""
    for name, given in answers.items():
        found = _ANSWERED.get(name)
        if found is not None:
            found.give(given, asked)
        elif not asked:
            _PENDING[name] = given


def answers_asked() -> dict[str, dict[tuple[str, ...], object]]:
    """The answers this process gave, by function, for the next run."""
    return {name: found.asked() for name, found in _ANSWERED.items() if found.asked()}
