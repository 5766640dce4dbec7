"""The queries' memo: the last run of each job over the compiled record, for `serve`.

A job (check's run of the record's queries and of the campuses' stages, derive's
scorecard, verdicts and history) reads some columns of the compiled record. Its run is
recorded with what it read (the columns, as the caller notes them) and the digests of what
those held; the next build in this process looks it up, and is given the run's value again
where the same columns hold the same digests in its own compiled record. In memory only: a
value is pickled, which is safe from this process's own child and from nothing else.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

Digests = Callable[[frozenset[Any]], dict[str, bytes]]
"""What the columns read hold now, by column: the caller's digests of its compiled record."""


@dataclass(frozen=True)
class Ran:
    """A job's run: what it read of its record, what that held, and what it gave."""

    digests: dict[str, bytes]
    noted: frozenset[Any]
    value: bytes
    """The job's value, pickled by this process's own child: given as new objects each
    time, so that no build can change what the next is given."""
    version: bytes
    """A digest of the value (`version_of`)."""


def version_of(pickled: bytes) -> bytes:
    """A digest of a job's value as pickled: two values of one version are equal, so a
    build that is given the same version as the last need not compare what it holds."""
    return hashlib.sha256(pickled).digest()


def run_key(*inputs: Hashable) -> bytes:
    """The key of a job's run: the job itself (a function and its arguments) and its limits."""
    return pickle.dumps(inputs)


class QueryRuns:
    """The last run of each job, for the next build in this process (`serve`'s) to give
    again where what it read is unchanged."""

    KEPT = 8
    """Runs kept at most, the least recently used let go: a build runs three jobs (the
    record's queries, derive, the campuses' stages), and each edit of the record's queries
    makes another."""

    def __init__(self) -> None:
        self._runs: dict[bytes, Ran] = {}
        self._outcomes: dict[bytes, dict[Any, Any]] = {}
        """Each job's last answers to its queries, each by what the query read on its day:
        a job run again gives each answer whose query reads the same as then again."""
        self.hits = 0
        """Runs given again, not made (for tests and the bench)."""
        self.ran = 0
        """Queries a job's runs ran, rather than giving their last answer again (for tests
        and the bench)."""

    def lookup(self, key: bytes, digests: Digests) -> tuple[Any, bytes] | None:
        """The value of the run recorded under `key`, as new objects, with its version,
        where `digests` of the columns it read are the same as then; None where there is
        none."""
        last = self._runs.pop(key, None)
        if last is None:
            return None
        self._runs[key] = last  # the most recently used, last
        if digests(last.noted) != last.digests:
            return None
        self.hits += 1
        return pickle.loads(last.value), last.version

    def outcomes(self, key: bytes) -> dict[Any, Any]:
        """The answers to its queries the last run of the job under `key` kept, by each
        query's key (a fresh dict: the run adds its own)."""
        return dict(self._outcomes.get(key, {}))

    def keep_outcomes(self, key: bytes, outcomes: dict[Any, Any]) -> None:
        """Keep the answers of this run of the job under `key` for its next run (those of
        the last are let go: a query that read the same then is among them again)."""
        self._outcomes.pop(key, None)
        self._outcomes[key] = outcomes
        while len(self._outcomes) > self.KEPT:
            del self._outcomes[next(iter(self._outcomes))]

    def record(self, key: bytes, noted: frozenset[Any], digests: Digests, value: bytes) -> bytes:
        """Record a run under `key`: the columns it read (`noted`), and its pickled value;
        the value's version."""
        self._runs.pop(key, None)
        ran = self._runs[key] = Ran(digests(noted), noted, value, version_of(value))
        while len(self._runs) > self.KEPT:
            del self._runs[next(iter(self._runs))]
        return ran.version
