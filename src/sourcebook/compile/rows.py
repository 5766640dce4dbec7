"""Entities into rows: one table per kind, the union `entities`, aliases, links and search."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from functools import partial
from itertools import chain
from json.encoder import encode_basestring
from typing import Any

from pydantic import BaseModel

from sourcebook.compile.schema import kind_columns
from sourcebook.incremental import COMPILED, Memo, key_of
from sourcebook.library.report import QuoteReport
from sourcebook.link.graph import Graph
from sourcebook.model.base import Entity
from sourcebook.model.kinds import KINDS
from sourcebook.model.known import Known
from sourcebook.model.record import Record
from sourcebook.model.refs import QuoteClaim

_JSON = json.JSONEncoder(ensure_ascii=False)
"""What json.dumps(value, ensure_ascii=False) makes afresh at every call."""

_ROWS_PER_INSERT = 50
"""Rows bound to one INSERT statement by `insert_rows`."""

_AS_IS = frozenset({str, int, float, type(None)})
"""The types SQLite stores as they are: most values, so they are looked for first."""


def sql_value(value: Any) -> Any:
    """A field's value as SQLite stores it: enums by value, lists and objects as JSON."""
    kind = type(value)
    if kind in _AS_IS:
        return value
    if kind is list and all(type(v) is str for v in value):
        return "[" + ", ".join(map(encode_basestring, value)) + "]"  # _JSON's text, made faster
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (BaseModel, list, dict)):
        return _JSON.encode(_plain(value))
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_defaults=True)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def insert_rows(
    db: sqlite3.Connection, into: str, rows: Sequence[tuple], ignore: bool = False
) -> None:
    """INSERT the rows, in their order, INTO a table (its columns named where need be); OR
    IGNORE a row whose key is taken where `ignore`.

    Many rows to a statement: binding their values costs the same, but SQLite runs a
    statement, and Python goes round its loop, once for many rows rather than for each."""
    if not rows:
        return
    one = "(" + ", ".join("?" * len(rows[0])) + ")"
    whole = len(rows) - len(rows) % _ROWS_PER_INSERT
    insert = "INSERT OR IGNORE INTO" if ignore else "INSERT INTO"
    db.executemany(
        f"{insert} {into} VALUES " + ", ".join([one] * _ROWS_PER_INSERT),
        (
            tuple(chain.from_iterable(rows[start : start + _ROWS_PER_INSERT]))
            for start in range(0, whole, _ROWS_PER_INSERT)
        ),
    )
    db.executemany(f"{insert} {into} VALUES {one}", rows[whole:])


MANY, OR_IGNORE, ONE_BY_ONE = "many", "or ignore", "one by one"
"""How a table's rows go in: many to a statement (`insert_rows`); the same, a row whose key
is taken already left out; or a statement a row (the full-text index, whose layout depends
on how its rows come)."""


@dataclass(frozen=True, slots=True)
class TableRows:
    """One table's rows, in the order they go in, and how (`MANY`, `OR_IGNORE`,
    `ONE_BY_ONE`); `into` names the table, with its columns where need be."""

    table: str
    rows: list[tuple]
    into: str
    how: str = MANY

    def write(self, db: sqlite3.Connection) -> None:
        """Insert the rows into the table."""
        if self.how == ONE_BY_ONE:
            if self.rows:
                marks = ", ".join("?" * len(self.rows[0]))
                db.executemany(f"INSERT INTO {self.into} VALUES ({marks})", self.rows)
        else:
            insert_rows(db, self.into, self.rows, ignore=self.how == OR_IGNORE)


class Filling:
    """The compiled record's tables as rows, each in the order its rows go in: what `fill`
    writes into a new database, and a kept one compares with the last run's
    (`incremental.KeptDatabase`)."""

    def __init__(self) -> None:
        self.tables: list[TableRows] = []

    def add(self, table: str, rows: list[tuple], into: str = "", how: str = MANY) -> None:
        """The rows of `table` (named in SQL as `into`, by default as it is)."""
        self.tables.append(TableRows(table, rows, into or table, how))

    def write(self, db: sqlite3.Connection) -> None:
        for table in self.tables:
            table.write(db)


def known_from(clock: Known, key: tuple[str, str]) -> str | None:
    """An entity's `known_from`: the day the record could first have held it (NULL for the
    book's own apparatus, which stands on every day; `model/known.py`)."""
    day = clock.entity(key)
    return day.isoformat() if day is not None else None


def write_entities(
    tables: Filling,
    record: Record,
    clock: Known,
    search: bool = True,
    kept: Memo | None = None,
) -> None:
    """Each kind's table, `entities`, `aliases`, and the full-text index where `search`.
    `kept`: each entity's rows from earlier runs, by what it was read from (see `_made`)."""
    kept = kept if kept is not None else Memo(COMPILED)
    entities: list[tuple] = []
    aliases: list[tuple] = []
    texts: list[tuple] = []
    for kind in KINDS:
        columns = [name for name, _type in kind_columns(kind)]
        names = ", ".join(f'"{c}"' for c in ["id", "title", *columns])
        rows = []
        of_kind = record.of(kind.name)
        well_formed = partial(_well_formed, len(columns))
        made = kept.each(
            _ROWS, of_kind, record.read_as, well_formed, partial(_made, columns=columns)
        )
        for entity, (values, line) in zip(of_kind, made, strict=True):
            known = known_from(clock, entity.key)
            row, listed, its_aliases, text = _rows(entity, values, line, search, known)
            rows.append(row)
            entities.append(listed)
            aliases.extend(its_aliases)
            if text is not None:
                texts.append(text)
        tables.add(kind.folder, rows, f'"{kind.folder}" ({names}, body, file, line, known_from)')
    tables.add("entities", entities)
    tables.add("aliases", aliases)
    if search:
        tables.add("search", texts, how=ONE_BY_ONE)


Rows = tuple[tuple, tuple, tuple[tuple, ...], tuple | None]
"""An entity's row of its kind's table, of `entities`, of `aliases`, and of `search`."""

Made = tuple[tuple, int]
"""What making an entity's rows costs, kept: its columns' values as SQLite stores them
(lists and objects as JSON), and its line."""


_ROWS = key_of(COMPILED, "each entity's columns")


def _made(entity: Entity, columns: list[str]) -> Made:
    """An entity's columns' values, made from the entity alone: kept under the hash of the
    file it was read from (`Record.read_as`), and made again only where that changed."""
    return tuple(sql_value(getattr(entity, c)) for c in columns), entity.pos().line


def _rows(entity: Entity, values: tuple, line: int, search: bool, known: str | None) -> Rows:
    """The entity's rows, of its columns' `values` (`_made`), its `line` and `known` its
    `known_from`; the rest (its id, title, body, aliases, prose, and the day it is known
    from, which other entities decide) held as it is."""
    kind = entity.KIND
    return (
        (entity.id, entity.title, *values, entity.body, entity.file, line, known),
        (kind, entity.id, entity.title, entity.file, line, int(entity.draft), known),
        tuple((kind, entity.id, alias) for alias in entity.aliases),
        (kind, entity.id, entity.title, _search_text(entity)) if search else None,
    )


def _well_formed(columns: int, found: Any) -> Made | None:
    """What is kept, where it has the shape of `Made`, each value one SQLite stores as it
    is; else None."""
    if not (type(found) is tuple and len(found) == 2):
        return None
    values, line = found
    shaped = (
        type(values) is tuple
        and len(values) == columns
        and all(type(value) in _AS_IS for value in values)
        and type(line) is int
    )
    return found if shaped else None


def _search_text(entity: Entity) -> str:
    return "\n\n".join(t for _name, t in entity.prose() if t != entity.title)


def ref_rows(graph: Graph) -> list[tuple]:
    """The `refs` table's rows: each reference that resolved."""
    return [
        (
            *ref.source,
            *ref.target,
            ref.via,
            ref.field,
            ref.text,
            ref.locator,
            ref.pos.file,
            ref.pos.line,
            ref.pos.col,
        )
        for ref in graph.refs
        if ref.resolved
    ]


def write_library(tables: Filling, record: Record) -> None:
    library = getattr(record, "library", None)
    tables.add(
        "library_items",
        [
            (
                item.shelf,
                sql_value(item.kind),
                item.url,
                item.title,
                item.captured,
                item.holds,
                item.pages,
                json.dumps(item.read_again),
                item.media_type,
                item.size,
                item.sha256,
                item.how,
                item.by,
                None,  # the Library stands whole on every day: see `model.known`
            )
            for item in library or []
        ],
    )
    tables.add(
        "source_library",
        [
            (source.id, shelf, n)
            for source in record.of("source")
            for n, shelf in enumerate(getattr(source, "library", []), 1)
        ],
    )


def write_watch(tables: Filling, record: Record, proofs: QuoteReport | None) -> None:
    """The watch log, a row per visit, and each source's address with its state as of the
    last watch (`check.watched`); what the live web holds now, so never cut to a day."""
    from sourcebook.check.watched import watched

    log = record.watch
    tables.add(
        "watch_visits",
        [
            (
                source,
                visit.url,
                visit.day.isoformat(),
                visit.status,
                sql_value(visit.failure),
                visit.note or None,
                json.dumps([list(hop) for hop in visit.redirects]) if visit.redirects else None,
                visit.final,
                visit.sha256,
                visit.size,
                sql_value(visit.soft),
                visit.similarity,
                json.dumps([{"quote": s.quote, "held": s.held} for s in visit.quotes]),
                visit.run or None,
                visit.line,
            )
            for source in sorted(log.visits)
            if record.get("source", source) is not None
            for visit in log.visits[source]
        ],
    )
    tables.add(
        "watch_addresses",
        [
            (
                found.source.id,
                found.index + 1,
                found.url,
                sql_value(found.state.state) if found.state else None,
                found.state.day.isoformat() if found.state else None,
                found.state.since.isoformat() if found.state else None,
                found.state.moved_to if found.state else None,
                json.dumps([q for q, _ in found.state.gone]) if found.state else None,
            )
            for found in (watched(record, proofs) if log else ())
        ],
    )


def write_quotes(tables: Filling, graph: Graph, proofs: QuoteReport | None) -> None:
    """Each quote claim with what the Library proved of it, where check has run the proof."""
    if proofs is not None:
        rows = [
            _quote_row(p.claim, p.status.value, p.found.shelf if p.found else None, p.locator)
            for p in proofs.proofs
            if p.claim.source
        ]
    else:
        rows = [_quote_row(q, None, None, q.locator) for q in graph.quotes if q.source]
    tables.add("quotes", rows)


def _quote_row(
    claim: QuoteClaim, status: str | None, shelf: str | None, locator: str | None
) -> tuple:
    """A row of the `quotes` table, in its columns' order."""
    file, line, col = claim.pos.file, claim.pos.line, claim.pos.col
    return (
        *claim.owner,
        claim.field,
        claim.source,
        claim.text,
        status,
        shelf,
        locator,
        file,
        line,
        col,
    )


def quote_status(proofs: QuoteReport | None) -> dict[tuple[tuple[str, str], str], str]:
    """(owner, field) → the Library's verdict on that quote, where check has proved it."""
    if proofs is None:
        return {}
    return {(p.claim.owner, p.claim.field): p.status.value for p in proofs.proofs}
