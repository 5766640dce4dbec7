"""A run's memos: what read, link, check and compile made of each entity, the site, the
queries' runs, the files last read and each entity file's hash, kept from run to run.

`build` and `check` open them from the record's state folder and commit what the run used;
`serve` keeps them in memory from save to save, holding the objects made too; `--no-cache`
gives empty ones in memory that are let go with the run.
"""

from __future__ import annotations

import marshal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sourcebook.incremental._database import KeptDatabase
from sourcebook.incremental._fingerprint import FileDigests, code
from sourcebook.incremental._memo import Memo
from sourcebook.incremental._runs import QueryRuns
from sourcebook.incremental._seen import FilesSeen
from sourcebook.incremental._site import SiteMemo
from sourcebook.incremental._store import Store
from sourcebook.runtime.memo import answers_asked, give_answers

PARSED = "parsed"
"""The part of the state folder that keeps front matter parsed (read's memo), and the
entity files' hashes it is kept by."""
LINKED = "linked"
"""What link found in each entity's prose, and the record's names (link's memo)."""
CHECKED = "checked"
"""What the entity rules found of each entity (check's memo)."""
COMPILED = "compiled"
"""Each entity's rows of the compiled record (compile's memo)."""


@dataclass(frozen=True)
class Memos:
    """The memos of one run: each stage's (`Memo`), the site's (`SiteMemo`), the queries'
    runs (`QueryRuns`) and the files last read (`FilesSeen`), all in one `store`."""

    parsed: Memo
    linked: Memo
    checked: Memo
    compiled: Memo
    store: Store
    site: SiteMemo[Any] | None = None
    """The last site written and what each of its pages read (`serve` holds it in memory,
    from save to save; `build` keeps it in the state folder): the next writes only what
    changed."""
    queries: QueryRuns | None = None
    """The last run of the record's queries and of derive, and what each read of the
    compiled record (`serve`'s in memory; `build`'s and `check`'s in the state folder):
    run again only where that changed."""
    files: FilesSeen | None = None
    """The last read of each file (`serve`'s, in memory): read again only where changed."""
    digests: FileDigests | None = None
    """Each entity file's hash by its stat (`build`'s and `check`'s, in the state folder):
    a file whose hash and front matter are kept is not read."""

    @property
    def on_disk(self) -> bool:
        return self.store.on_disk

    @classmethod
    def in_memory(cls, serving: bool = False) -> Memos:
        """Kept in this process only (an empty one, not committed anywhere, makes every run
        read the record afresh: `--no-cache`); holding the objects made, the last site
        written, the last queries run and the files read where `serving` (from save to
        save)."""
        store = Store.memory()
        if not serving:
            return cls(Memo(PARSED), Memo(LINKED), Memo(CHECKED), Memo(COMPILED), store)
        return cls(
            Memo(PARSED),
            Memo(LINKED, holding=True),
            Memo(CHECKED, holding=True),
            Memo(COMPILED, holding=True),
            store,
            site=SiteMemo(),
            queries=QueryRuns(),
            files=FilesSeen(),
        )

    @classmethod
    def open(cls, root: Path, site: bool = False) -> Memos:
        """What earlier runs kept in the state folder of the record at `root`; with the
        last site `build` wrote where `site`."""
        store = Store.of(root)
        parsed, linked, checked, compiled = (
            Memo.open(store, part) for part in (PARSED, LINKED, CHECKED, COMPILED)
        )
        last_site: SiteMemo[Any] | None = SiteMemo.open(store) if site else None
        queries = QueryRuns.open(store)
        digests = FileDigests(store, PARSED)
        give_answers(_answers_kept(store))
        return cls(
            parsed,
            linked,
            checked,
            compiled,
            store,
            site=last_site,
            queries=queries,
            digests=digests,
        )

    def ready(self) -> None:
        """Make now what the next run would first make of what this one left: the types of
        the kept databases' values, and the last site's indexes of what its pages shared
        read (`serve`, while it waits for an edit, so that the first edit waits for less)."""
        for held in self.compiled.held_values():
            if isinstance(held, KeptDatabase):
                held.ready()
        if self.site is not None:
            self.site.ready()

    def commit(self, site: bool = False) -> None:
        """The run is over: what it used is what the next finds; the site's memo too where
        `site` (a site was written, and the memo tells it)."""
        for memo in (self.parsed, self.linked, self.checked, self.compiled):
            memo.commit()
        if self.queries is not None:
            self.queries.commit()
        if self.digests is not None:
            self.digests.save()
        if self.on_disk:
            _keep_answers(self.store)
        if site and self.site is not None:
            self.site.commit()


ANSWERS, _ANSWERS = "answers", "answers.marshal"
"""Where the answers of pure functions of strings are kept (`runtime.memo.answered`: the
registry of units' dimensions and factors)."""
ANSWERS_MAX = 4096
"""The most answers of one function kept: a record uses a few dozen units."""


def _answers_kept(store: Store) -> dict[str, object]:
    """The answers that a run of this code kept, by function; none else (each function
    takes only what has the form of its answers)."""
    data = store.read(ANSWERS, _ANSWERS)
    try:
        kept_code, answers = marshal.loads(data) if data is not None else ("", {})
    except (ValueError, EOFError, TypeError):
        return {}
    if kept_code != code() or not isinstance(answers, dict):
        return {}
    return {name: given for name, given in answers.items() if isinstance(name, str)}


def _keep_answers(store: Store) -> None:
    """Keep the answers this process gave with those kept before, where that adds any: an
    answer depends on its question and sourcebook's code alone, so a `check` (which asks
    fewer) lets go of none a `build` made. Past `ANSWERS_MAX` answers of one function,
    only this run's are kept."""
    asked = answers_asked()
    kept = _answers_kept(store)
    merged: dict[str, object] = {}
    for name in sorted(set(asked) | set(kept)):
        before, ours = kept.get(name), asked.get(name, {})
        now = {**before, **ours} if isinstance(before, dict) else ours
        merged[name] = now if len(now) <= ANSWERS_MAX else ours
    if merged and merged != kept:
        store.write(ANSWERS, _ANSWERS, marshal.dumps((code(), merged)))
