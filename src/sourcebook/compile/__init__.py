"""Stage 4, compile: the whole checked record written to one SQLite database.

The database is what the data releases carry, what Datasette serves, and what the
derived stage reads: scorecard rows and test verdicts are queries over it. Its tables
are documented in docs/database.md. The same record always gives the same file.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import replace
from datetime import date
from functools import partial
from pathlib import Path

from sourcebook import __version__
from sourcebook.check.clock import kept_clock
from sourcebook.check.result import Checked
from sourcebook.compile.as_of import restrict
from sourcebook.compile.database import CompiledRecord, Image, open_image
from sourcebook.compile.figures import (
    write_figures,
    write_parameters,
    write_parties,
    write_vocabulary,
)
from sourcebook.compile.rows import (
    Filling,
    ref_rows,
    write_entities,
    write_library,
    write_quotes,
    write_watch,
)
from sourcebook.compile.schema import SCHEMA_VERSION, kind_table, may_read, schema
from sourcebook.incremental import KeptDatabase, Memo
from sourcebook.library.report import QuoteReport
from sourcebook.link import Graph, link_record, without_drafts
from sourcebook.model.kinds import KINDS
from sourcebook.model.known import known
from sourcebook.model.record import Record
from sourcebook.runtime.collector import collector_paused

__all__ = [
    "SCHEMA_VERSION",
    "AsOfError",
    "compile_checked",
    "compile_in_memory",
    "compiled_image",
    "compile_record",
    "published",
    "record_day",
]


QUERY_KINDS = ("indicator", "test", "chart")
"""The kinds whose entities carry SQL over the compiled record."""


class AsOfError(ValueError):
    """An as-of day the record cannot stand at: one after it closes (or, open, after today)."""


def record_day(record: Record, as_of: date | None) -> date:
    """The day the compiled record stands at: `as_of`, or the record's close (today, while
    it is open)."""
    book = record.settings.book
    stands = book.stands_at()
    if as_of is not None and as_of > stands:
        raise AsOfError(f"--as-of {as_of.isoformat()} is after {book.close_said()}")
    return as_of or stands


def compile_checked(checked: Checked, path: Path | str, as_of: date | None = None) -> Path:
    """Write the checked record, with what check proved of its quotes, to a database at
    `path`, as it stood on `as_of` (default: the day it was checked as of)."""
    assert checked.record is not None
    day = as_of or checked.as_of
    return compile_record(checked.record, path, checked.graph, day, checked.proofs)


def published(
    checked: Checked,
    drafts: bool = False,
    linked: tuple[Record, Graph] | None = None,
    kept: Memo | None = None,
) -> Checked:
    """What a build or a release publishes of a checked record: all of it with `drafts`;
    otherwise the record without its drafts (`linked`, where it is already linked), compiled
    again (`kept`: as for `compile_in_memory`), so that nothing made from it (pages,
    backlinks, figures, the database) holds a draft. What check found is kept as it is."""
    if checked.record is None:
        return checked
    record, graph = linked or without_drafts(checked.record, checked.graph, drafts)
    if record is checked.record:
        return checked
    image = compiled_image(record, graph, checked.as_of, checked.proofs, kept)
    return replace(checked, record=record, graph=graph, image=image)


def compile_record(
    record: Record,
    path: Path | str,
    graph: Graph | None = None,
    as_of: date | None = None,
    proofs: QuoteReport | None = None,
) -> Path:
    """Write the record, as it stood on `as_of` (default: its close), to a database at `path`;
    with the Library's verdict on each quote where `proofs` (check's) are given.

    The file is written beside its destination and moved into place, so a reader never
    sees half a database.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.unlink(missing_ok=True)
    db = sqlite3.connect(partial)
    try:
        fill(db, filled(record, graph if graph is not None else link_record(record), as_of, proofs))
        db.commit()
        db.execute("VACUUM")
    except BaseException:
        db.close()
        partial.unlink(missing_ok=True)
        raise
    db.close()
    os.replace(partial, path)
    return path


def compiled_image(
    record: Record,
    graph: Graph,
    as_of: date | None,
    proofs: QuoteReport | None,
    kept: Memo | None = None,
) -> Image:
    """The record compiled in memory, as the bytes of its database (with what each column
    holds, for the queries' memo): what check's queries and derive read.

    The full-text index and the references are for the files Datasette serves and the
    releases carry; each is left out here unless one of the record's queries may read it,
    as together they are a third of the compile and nothing else here reads them. `kept`:
    each entity's columns from earlier runs (`rows._made`); where it holds objects
    (`serve`'s), the last run's database too, of which only the tables whose rows changed
    are written again (`incremental.KeptDatabase`).
    """
    queries = [getattr(e, "query", None) for kind in QUERY_KINDS for e in record.of(kind)]
    search, refs = may_read("search", queries), may_read("refs", queries)
    with collector_paused():
        filling = filled(record, graph, as_of, proofs, search=search, refs=refs, kept=kept)
        # the record with its drafts, and as published without them: each its own database
        name = "with drafts" if any(e.draft for e in record) else "published"
        database = KeptDatabase.held(kept, name, filling.schema)
        image, columns = database.fill(
            filling.tables, partial(restrict, day=filling.day), filling.day.isoformat()
        )
    return Image(image, columns)


def compile_in_memory(
    record: Record,
    graph: Graph,
    as_of: date | None = None,
    proofs: QuoteReport | None = None,
) -> CompiledRecord:
    """The compiled record in memory (as `compiled_image` compiles it), opened read-only for
    queries."""
    return open_image(compiled_image(record, graph, as_of, proofs))


@collector_paused()
def fill(db: sqlite3.Connection, tables: Filled) -> None:
    """Create the tables in an empty database, write the record's rows into them (as
    `filled` makes them) and cut them at their day."""
    db.executescript(tables.schema)
    tables.write(db)
    restrict(db, day=tables.day)


class Filled(Filling):
    """The record's tables as rows (`rows.Filling`), the schema they go into and the day
    the database will stand at."""

    def __init__(self, schema: str, day: date):
        super().__init__()
        self.schema, self.day = schema, day


def filled(
    record: Record,
    graph: Graph,
    as_of: date | None,
    proofs: QuoteReport | None = None,
    search: bool = True,
    refs: bool = True,
    kept: Memo | None = None,
) -> Filled:
    """The record's tables as rows: with the full-text index unless `search` is False, and
    the references (the `refs` table, else left empty) unless `refs` is False; `kept`: each
    entity's rows from earlier runs. Every row is there; the day (`as_of`, or the close)
    cuts them once they are in (`as_of.restrict`)."""
    day = record_day(record, as_of)
    schemas = "\n".join([schema(search), *(kind_table(kind) + ";" for kind in KINDS)])
    tables = Filled(schemas, day)
    tables.add(
        "meta",
        [
            ("schema_version", SCHEMA_VERSION),
            ("sourcebook_version", __version__),
            ("title", record.settings.book.title),
            ("closes", str(record.settings.book.closes or "")),
            ("as_of", day.isoformat()),
            ("query_seconds", str(record.settings.limits.query_seconds)),
        ],
    )
    kept_clock(record, kept)  # the last run's, where what it reads is the same
    clock = known(record)
    write_vocabulary(tables)
    write_entities(tables, record, clock, search, kept)
    tables.add("refs", ref_rows(graph) if refs else [])
    write_library(tables, record)
    write_watch(tables, record, proofs)
    write_quotes(tables, graph, proofs)
    write_figures(tables, record, proofs, clock)
    write_parties(tables, record, proofs, clock)
    write_parameters(tables, record)
    return tables
