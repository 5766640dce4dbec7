"""The queries' memo: the last run of each job over the compiled record.

A job (check's run of the record's queries and of the campuses' stages, derive's
scorecard, verdicts and history) reads some columns of the compiled record. Its run is
recorded with what it read (the columns, as the caller notes them) and the digests of what
those held; the next build looks it up, and is given the run's value again where the same
columns hold the same digests in its own compiled record.

`serve` keeps it in memory from save to save; `build` and `check` keep it in the record's
state folder (`QueryRuns.open`), so that a build after an edit that changed nothing a job
read (a sentence of prose) does not run it. A value is kept pickled, as the job's child
gave it. On disk the file is sealed with this user's secret (`Store.write_sealed`: one
that another hand wrote or changed is not read), and a value is read back by an
unpickler that makes only sourcebook's own classes and plain values (`_Restricted`): a
kept value can make no other object and call nothing.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import hashlib
import io
import marshal
import pickle
import sys
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from sourcebook.incremental._fingerprint import code
from sourcebook.incremental._store import Store

_PART, _FILE = "queries", "runs.marshal"
_FORMAT = 1

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
    kept: bool = False
    """Read back from the state folder: its value is read by `_Restricted`."""


def version_of(pickled: bytes) -> bytes:
    """A digest of a job's value as pickled: two values of one version are equal, so a
    build that is given the same version as the last need not compare what it holds."""
    return hashlib.sha256(pickled).digest()


def run_key(*inputs: Hashable) -> bytes:
    """The key of a job's run: the job itself (a function and its arguments) and its limits."""
    return pickle.dumps(inputs)


class QueryRuns:
    """The last run of each job, for the next build to give again where what it read is
    unchanged: in this process (`serve`), or kept in the state folder (`open`)."""

    KEPT = 8
    """Runs kept at most, the least recently used let go: a build runs three jobs (the
    record's queries, derive, the campuses' stages), and each edit of the record's queries
    makes another."""

    def __init__(self, store: Store | None = None) -> None:
        self._runs: dict[bytes, Ran] = {}
        self._outcomes: dict[bytes, dict[Any, Any] | bytes] = {}
        """Each job's last answers to its queries, each by what the query read on its day:
        a job run again gives each answer whose query reads the same as then again (as
        read back from the state folder: pickled)."""
        self.store = store
        """Where the runs are kept from run to run; None in memory alone."""
        self._unread = store is not None and store.on_disk
        self._changed = False
        self.hits = 0
        """Runs given again, not made (for tests and the bench)."""
        self.ran = 0
        """Queries a job's runs ran, rather than giving their last answer again (for tests
        and the bench)."""

    @classmethod
    def open(cls, store: Store) -> QueryRuns:
        """The runs the last `build` or `check` kept in `store`, read when first asked for."""
        return cls(store)

    def _read(self) -> None:
        """The runs kept in the store, where they are whole, sealed by this user and of this
        version of sourcebook; none else."""
        if not self._unread:
            return
        self._unread = False
        assert self.store is not None
        data = self.store.read_sealed(_PART, _FILE)
        try:
            assert data is not None
            header, runs, outcomes = marshal.loads(data)
            assert header == _header()
            self._runs = {
                key: Ran(dict(digests), frozenset(noted), value, version, kept=True)
                for key, (digests, noted, value, version) in runs.items()
            }
            self._outcomes = {key: bytes(kept) for key, kept in outcomes.items()}
        except (AssertionError, EOFError, ValueError, TypeError, AttributeError):
            self._runs, self._outcomes = {}, {}

    def lookup(self, key: bytes, digests: Digests) -> tuple[Any, bytes] | None:
        """The value of the run recorded under `key`, as new objects, with its version,
        where `digests` of the columns it read are the same as then; None where there is
        none."""
        self._read()
        last = self._runs.pop(key, None)
        if last is None:
            return None
        self._runs[key] = last  # the most recently used, last
        if digests(last.noted) != last.digests:
            return None
        try:
            value = _restricted(last.value) if last.kept else pickle.loads(last.value)
        except _UNREADABLE:
            del self._runs[key]
            return None
        self.hits += 1
        return value, last.version

    def outcomes(self, key: bytes) -> dict[Any, Any]:
        """The answers to its queries the last run of the job under `key` kept, by each
        query's key (a fresh dict: the run adds its own)."""
        self._read()
        kept = self._outcomes.get(key, {})
        if isinstance(kept, bytes):
            try:
                kept = _restricted(kept)
            except _UNREADABLE:
                kept = {}
            kept = kept if isinstance(kept, dict) else {}
            self._outcomes[key] = kept
        return dict(kept)

    def keep_outcomes(self, key: bytes, outcomes: dict[Any, Any]) -> None:
        """Keep the answers of this run of the job under `key` for its next run (those of
        the last are let go: a query that read the same then is among them again)."""
        self._read()
        self._outcomes.pop(key, None)
        self._outcomes[key] = outcomes
        while len(self._outcomes) > self.KEPT:
            del self._outcomes[next(iter(self._outcomes))]
        self._changed = True

    def record(self, key: bytes, noted: frozenset[Any], digests: Digests, value: bytes) -> bytes:
        """Record a run under `key`: the columns it read (`noted`), and its pickled value;
        the value's version."""
        self._read()
        self._runs.pop(key, None)
        ran = self._runs[key] = Ran(digests(noted), noted, value, version_of(value))
        while len(self._runs) > self.KEPT:
            del self._runs[next(iter(self._runs))]
        self._changed = True
        return ran.version

    def commit(self) -> None:
        """Keep the runs in the store, sealed, where it is on disk and a run was recorded;
        a job's answers that cannot be pickled are not kept."""
        if self.store is None or not self.store.on_disk or not self._changed:
            return
        runs = {
            key: (ran.digests, ran.noted, ran.value, ran.version) for key, ran in self._runs.items()
        }
        outcomes = {}
        for key, kept in self._outcomes.items():
            try:
                outcomes[key] = kept if isinstance(kept, bytes) else pickle.dumps(kept)
            except (pickle.PicklingError, TypeError, AttributeError):
                continue
        try:
            data = marshal.dumps((_header(), runs, outcomes))
        except ValueError:  # a column's name that marshal cannot hold
            return
        self.store.write_sealed(_PART, _FILE, data)
        self._changed = False


def _header() -> tuple[Any, ...]:
    return (_FORMAT, code(), sys.version_info[:2])


_PLAIN = {
    ("datetime", "date"): datetime.date,
    ("datetime", "datetime"): datetime.datetime,
    ("datetime", "timedelta"): datetime.timedelta,
    ("decimal", "Decimal"): decimal.Decimal,
}
"""The classes besides sourcebook's own that a kept value may hold."""
_UNREADABLE = (
    pickle.UnpicklingError,
    EOFError,
    ValueError,
    TypeError,
    AttributeError,
    KeyError,
    IndexError,
)
"""What reading a kept value that is not one of sourcebook's records raises."""


class _Restricted(pickle.Unpickler):
    """An unpickler that makes plain values and sourcebook's own records alone (its
    dataclasses, named tuples and enumerations, of modules already imported): no function,
    no class that does anything as it is made, and no class of another module can be named
    by what it reads."""

    def find_class(self, module: str, name: str) -> Any:
        plain = _PLAIN.get((module, name))
        if plain is not None:
            return plain
        if module == "sourcebook" or module.startswith("sourcebook."):
            found = getattr(sys.modules.get(module), name, None)
            if isinstance(found, type) and (
                dataclasses.is_dataclass(found) or issubclass(found, (tuple, enum.Enum))
            ):
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not kept")


def _restricted(data: bytes) -> Any:
    return _Restricted(io.BytesIO(data)).load()
