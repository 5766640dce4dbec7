"""The incremental engine: what one run of sourcebook keeps for the next, in one place.

Every stage may import this package (it imports only the model, `files`, `runtime` and
libraries, as `runtime` does); the stages call the names below and never know how a
value is kept: none builds a path into the state folder, opens a kept file, or hashes
for a key by itself. Modules here whose names start with `_` are the engine's own.

The vocabulary, used alike in the code, its docstrings and docs/architecture.md:

- **store** (`Store`): where kept values live from run to run. `Store.of(root)` is the
  record's state folder, `.sourcebook-cache/`, sealed by this user (a folder that came
  with the record is emptied, never trusted); `Store.memory()` is nowhere but in the
  process (`serve`, from save to save; `--no-cache`, for one run). A store holds parts,
  one for each memo: `parsed`, `linked`, `checked`, `compiled`, `site`, `check`,
  `queries`, and `answers` (pure functions' answers, `runtime.memo.answered`). The
  parts that keep a format of their own (the Library's texts and items, the charts'
  drawings, a watch's note) ask the store for their sealed `folder`.
- **key** (`key_of`): the hash of everything a value depends on, with sourcebook's own
  code (`code`); an entity's key starts from its fingerprint, the hash of the file it was
  read from (`Record.read_as`). A record's **fingerprint** (`fingerprint`) is the hash of
  every file of it.
- **memo** (`Memo`): one stage's values by key, in one part of a store. A value is
  plain (`marshal`: read back without running anything, into fresh objects). In memory
  a memo may also **hold** the objects made of a value (`hold`, `held`), given as they
  are to the next run in the process.
- **lookup**: find the value under a key (None where there is none); **record**: keep
  a value under its key; **made**: the value under a key, or made, recorded and held
  where there is none (what a stage does of each entity); **carry**: keep for the next
  run a value this run had in hand without looking it up; **commit**: the run is over,
  what it looked up, recorded or carried is what the next run finds (written to the
  store, whole or not at all), and the rest is let go.
- **memos** (`Memos`): the memos of one run, opened from a store or made in memory.
- **reads** (`Reads`, `READS`): what a page of the site read while it rendered, noted as
  **tokens** (`Token`) by the reading itself: the pages read the record through a
  `TracedRecord`, an entity's fields through `read_field` (a template's `a.b` included),
  and every other input through a `Table`, which notes each entry read by the table's
  name and the entry's key, and gives the next build its entries to compare
  (`compared_digests`); a `SharedMemo` holds what many pages share, with what making it
  read. The site's memo (`SiteMemo`) keeps the last site written and each page's tokens;
  its values are compared by **digest** (`Digester`).
- The other memos: `QueryRuns` (the last run of each job over the compiled record, by
  the digests of what it read), `FilesSeen` (the last read of each file, by its stat),
  `FileDigests` (each file's hash, by its stat, as git's index keeps them),
  `RecordMemo` (one value for a whole record, by its fingerprint: `check`'s result).
- **kept database** (`KeptDatabase`): a database filled from tables of rows and changed in
  place from run to run, only the tables whose rows changed (and those their settling
  read) written again; what each column holds said by digest (`Columns`), and each table's
  rows known by each day (`Days`).
- **told** (`FilesSeen.told`): what `serve`'s watcher saw change since the last read began,
  each path **named** with how (`ADDED`, `MODIFIED`, `DELETED`). A read told it gives each
  file not named again without a stat (`unnamed`), and what it made of each folder in
  which nothing was named (`lookup_folder`, `record_folder`); where the watcher may have
  missed something, or was not asked, every stat is taken.

A kept value is **sealed** by where it lives (the state folder's seal, an HMAC of the
folder's own place made with a secret outside every record) and **invalidated** by its
key: whatever it depends on, sourcebook's code included, is in the key, so a changed
input finds nothing and is made anew. A kept file that cannot be read is ignored.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sourcebook.incremental._database import Columns, Days, KeptDatabase
    from sourcebook.incremental._digests import Digester
    from sourcebook.incremental._fingerprint import (
        NOT_RECORD,
        FileDigests,
        code,
        fingerprint,
        not_record,
    )
    from sourcebook.incremental._memo import Memo, key_of
    from sourcebook.incremental._memos import CHECKED, COMPILED, LINKED, PARSED, Memos
    from sourcebook.incremental._reads import READS, Reads, SharedMemo, Token
    from sourcebook.incremental._runs import QueryRuns, run_key, version_of
    from sourcebook.incremental._seen import (
        ADDED,
        DELETED,
        MARGIN_NS,
        MODIFIED,
        TOLD_MAX,
        FilesSeen,
        Stat,
        settled_since,
        stat_of,
    )
    from sourcebook.incremental._site import SiteMemo
    from sourcebook.incremental._store import STATE_FOLDER, Store
    from sourcebook.incremental._traced import (
        UNCOMPARED,
        Table,
        TracedRecord,
        Versioned,
        compared_digests,
        note_attribute,
        read_field,
        read_fields,
    )
    from sourcebook.incremental._whole import RecordMemo

_HOME = {
    "Columns": "_database",
    "Days": "_database",
    "KeptDatabase": "_database",
    "Digester": "_digests",
    "NOT_RECORD": "_fingerprint",
    "FileDigests": "_fingerprint",
    "code": "_fingerprint",
    "fingerprint": "_fingerprint",
    "not_record": "_fingerprint",
    "Memo": "_memo",
    "key_of": "_memo",
    "CHECKED": "_memos",
    "COMPILED": "_memos",
    "LINKED": "_memos",
    "PARSED": "_memos",
    "Memos": "_memos",
    "READS": "_reads",
    "Reads": "_reads",
    "SharedMemo": "_reads",
    "Token": "_reads",
    "QueryRuns": "_runs",
    "run_key": "_runs",
    "version_of": "_runs",
    "ADDED": "_seen",
    "DELETED": "_seen",
    "MARGIN_NS": "_seen",
    "MODIFIED": "_seen",
    "TOLD_MAX": "_seen",
    "FilesSeen": "_seen",
    "Stat": "_seen",
    "settled_since": "_seen",
    "stat_of": "_seen",
    "SiteMemo": "_site",
    "STATE_FOLDER": "_store",
    "Store": "_store",
    "RecordMemo": "_whole",
    "Table": "_traced",
    "TracedRecord": "_traced",
    "UNCOMPARED": "_traced",
    "compared_digests": "_traced",
    "Versioned": "_traced",
    "note_attribute": "_traced",
    "read_field": "_traced",
    "read_fields": "_traced",
}
"""Where each name of the interface lives: a module is loaded when a name of it is first
asked for, so that `check` of an unchanged record loads neither the model nor pydantic."""


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "ADDED",
    "CHECKED",
    "COMPILED",
    "DELETED",
    "LINKED",
    "MARGIN_NS",
    "MODIFIED",
    "NOT_RECORD",
    "PARSED",
    "READS",
    "STATE_FOLDER",
    "TOLD_MAX",
    "Columns",
    "Days",
    "Digester",
    "FileDigests",
    "FilesSeen",
    "KeptDatabase",
    "Memo",
    "Memos",
    "QueryRuns",
    "Reads",
    "RecordMemo",
    "SharedMemo",
    "SiteMemo",
    "Stat",
    "Store",
    "Table",
    "Token",
    "TracedRecord",
    "UNCOMPARED",
    "code",
    "compared_digests",
    "Versioned",
    "fingerprint",
    "key_of",
    "not_record",
    "note_attribute",
    "read_field",
    "read_fields",
    "run_key",
    "version_of",
    "settled_since",
    "stat_of",
]
