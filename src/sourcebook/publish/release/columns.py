"""What each column of the compiled record holds beyond its SQLite type: its description,
allowed values, unit, and the keys that tie the tables together.

A kind's table takes most of this from the kind's model, and the fixed tables
(docs/database.md) from the models they mirror (FIXED_TABLE_MODELS); what no model says
is said here. fields.py builds each table's Table Schema from it.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from sourcebook.library.report import Status
from sourcebook.model.base import DAY_PATTERN
from sourcebook.model.kinds import KINDS, CampusParty, Figure, Grade, Parameter, Role
from sourcebook.model.library import Item
from sourcebook.model.units import DIMENSIONS
from sourcebook.model.watch import Failure, Soft, State


@dataclass(frozen=True)
class Column:
    """What a column holds, beyond its SQLite type."""

    description: str = ""
    type: str | None = None
    """Table Schema type; None: from the SQLite type (INTEGER, REAL or TEXT)."""
    enum: tuple[str, ...] = ()
    unit: str | None = None
    """The unit of every value of the column."""
    unit_field: str | None = None
    """The column that holds each row's unit, where it varies from row to row."""
    pattern: str | None = None


SQL_TYPES = {"INTEGER": "integer", "REAL": "number", "TEXT": "string"}
KIND_NAMES = tuple(kind.name for kind in KINDS)
QUOTE_STATUSES = tuple(status.value for status in Status)
DAY = DAY_PATTERN.pattern

WHERE = {
    "file": Column("The file it is written in, relative to the record's folder."),
    "line": Column("The line it is written on, from 1."),
    "col": Column("The column it starts in, from 1."),
}

KIND_TABLE_COLUMNS = {
    "id": Column("The entity's id: its file's stem."),
    **WHERE,
    "known_from": Column(
        "The first day the record could hold it (docs/database.md, 'Two clocks'); empty for "
        "the book's own apparatus, which stands on every day.",
        type="date",
    ),
}

FIXED_TABLE_MODELS: dict[str, type[BaseModel]] = {
    "figures": Figure,
    "scenario_parameters": Parameter,
    "campus_parties": CampusParty,
    "library_items": Item,
}

COLUMNS: dict[str, dict[str, Column]] = {
    "meta": {
        "key": Column(
            "schema_version, sourcebook_version, title (the book's), closes (the day the "
            "record closes), as_of (the day the data stands at) or query_seconds."
        ),
        "value": Column("Its value, as text."),
    },
    "entities": {
        "kind": Column("The entity's kind.", enum=KIND_NAMES),
        "id": Column("Its id, unique within its kind."),
        "title": Column("Its name or title."),
        "draft": Column("True for a draft.", type="boolean"),
        **KIND_TABLE_COLUMNS,
    },
    "aliases": {
        "kind": Column("The entity's kind.", enum=KIND_NAMES),
        "id": Column("The entity's id."),
        "alias": Column("Another name of the entity."),
    },
    "refs": {
        "from_kind": Column("The kind of the entity that refers.", enum=KIND_NAMES),
        "from_id": Column("The id of the entity that refers."),
        "to_kind": Column("The kind of the entity referred to.", enum=KIND_NAMES),
        "to_id": Column("The id of the entity referred to."),
        "via": Column(
            "field (front matter), wiki ([[id]]), cite ([@id]) or mention (a name in prose).",
            enum=("field", "wiki", "cite", "mention"),
        ),
        "field": Column("The field the reference is in."),
        "text": Column("The words that refer."),
        "locator": Column("A citation's locator, such as p. 81."),
        **WHERE,
    },
    "grades": {
        "grade": Column("An evidence grade.", enum=tuple(g.value for g in Grade)),
        "rank": Column("Its rank: 1 documented … 5 estimated."),
        "evidenced": Column("True for documented, observed and reported.", type="boolean"),
    },
    "metrics": {
        "metric": Column("A metric sourcebook knows."),
        "label": Column("The name the site gives it."),
        "dimension": Column("What kind of quantity it is.", enum=tuple(DIMENSIONS)),
        "unit": Column("The unit the site shows it in."),
    },
    "figures": {
        "id": Column(
            "The figure's id, or kind:owner:n (n from 1, in the owner's list) where it has none."
        ),
        "owner_kind": Column("The kind of the entity that holds it.", enum=("campus", "party")),
        "owner_id": Column("The id of the campus or party that holds it."),
        "campus": Column("The owner's id where it is a campus."),
        "party": Column("The owner's id where it is a party."),
        "position": Column("Its place in the owner's list, from 1."),
        "metric_label": Column("The name the site gives the metric."),
        "dimension": Column(
            "What kind of quantity it is; empty for a unit that does not parse.",
            enum=tuple(DIMENSIONS),
        ),
        "value": Column("The number, in unit.", unit_field="unit"),
        "base_value": Column("The value in its dimension's base unit.", unit_field="base_unit"),
        "base_unit": Column(
            "The base unit of the figure's dimension.",
            enum=tuple(sorted(d.base for d in DIMENSIONS.values())),
        ),
        "as_of_start": Column("The first date as_of can mean.", type="date"),
        "as_of_end": Column("The last date as_of can mean.", type="date"),
        "grade_rank": Column("The grade's rank: 1 documented … 5 estimated."),
        "evidenced": Column("True for documented, observed and reported.", type="boolean"),
        "quote_status": Column(
            "What the Library proved of the quote; empty where it was not proved.",
            enum=QUOTE_STATUSES,
        ),
        "known_from": Column(
            "The first day the record could hold it: the latest of its source's day (or its "
            "stated day), its inputs' days and, for a figure of what was so, the day as_of "
            "begins (docs/database.md, 'Two clocks').",
            type="date",
        ),
        "retired_from": Column(
            "The day it stops counting: its correction's day, or the day it is known for a "
            "figure the record marks unreliable; empty for a figure that counts.",
            type="date",
        ),
        "retired_by": Column("The id of the correction that retires it."),
        "retired_why": Column("What the site says beside it, struck through."),
        **WHERE,
    },
    "figure_inputs": {
        "figure": Column("An estimate's id."),
        "input": Column("The id of a figure it rests on (in figures or retired_figures)."),
        "position": Column("The input's place in the estimate's list, from 1."),
    },
    "campus_parties": {
        "campus": Column("The campus's id."),
        "role": Column(
            "What the party does at this campus.", enum=tuple(role.value for role in Role)
        ),
        "position": Column("The party's place in the campus's list, from 1."),
        "quote_status": Column(
            "What the Library proved of the quote; empty where it was not proved.",
            enum=QUOTE_STATUSES,
        ),
        "known_from": Column(
            "The first day the record could hold it: its source's day, else the close.",
            type="date",
        ),
    },
    "scenario_parameters": {
        "scenario": Column("The scenario's id."),
        "value": Column("The number, in unit.", unit_field="unit"),
    },
    "library_items": {
        "size": Column("The original's size in bytes.", unit="byte"),
        "known_from": Column(
            "Empty: the Library stands whole on every day; see captured.", type="date"
        ),
    },
    "source_library": {
        "source": Column("The source's id."),
        "shelf": Column("The shelf of one of its copies in the Library."),
        "position": Column("The copy's place in the source's list, from 1."),
    },
    "watch_visits": {
        "source": Column("The id of the source whose address was visited."),
        "url": Column("The address visited, as the source lists it."),
        "day": Column("The day of the visit.", type="date"),
        "status": Column("The HTTP status of the last answer; empty where there was none."),
        "failure": Column(
            "Why there was no answer to judge: no answer, refused (a redirect not "
            "followed) or robots (robots.txt forbids the visit).",
            enum=tuple(failure.value for failure in Failure),
        ),
        "note": Column("Why, in a line."),
        "redirects": Column(
            "Each address that redirected, with its status, the one visited first.", type="array"
        ),
        "final": Column("The address the answer came from, where it was redirected."),
        "sha256": Column("The SHA-256 of the body the address answered with."),
        "bytes": Column("The body's size.", unit="byte"),
        "soft": Column(
            "What a page answering 200 read as, where it was not the page it was.",
            enum=tuple(soft.value for soft in Soft),
        ),
        "similarity": Column("How much of the Library's copy the page held, from 0 to 1."),
        "quotes": Column(
            "Each quote of the source, and whether the page held it (null: no text to look in).",
            type="array",
        ),
        "run": Column("The watch the visit was made by."),
        "line": Column("The line of watch/SOURCE.jsonl that holds it, from 1."),
    },
    "watch_addresses": {
        "source": Column("The source's id."),
        "position": Column("The address's place in the source's urls, from 1."),
        "url": Column("The address."),
        "state": Column(
            "What the last watch found: empty where no watch visited it.",
            enum=tuple(state.value for state in State),
        ),
        "day": Column("The day of its last visit.", type="date"),
        "since": Column("The first day of the state's run of visits.", type="date"),
        "moved_to": Column("Where a permanent redirect sends it."),
        "gone": Column(
            "The quotes its copy proves that the live page no longer holds.", type="array"
        ),
    },
    "quotes": {
        "owner_kind": Column("The kind of the entity the quote is written in.", enum=KIND_NAMES),
        "owner_id": Column("The id of the entity the quote is written in."),
        "field": Column(
            "The field it is written in; a figure's is figures.N.quote, a campus party's "
            "parties.N.quote, N from 0."
        ),
        "source": Column("The id of the source it claims to stand in."),
        "text": Column("Its words."),
        "status": Column(
            "What the Library proved of it; empty where it was not proved.", enum=QUOTE_STATUSES
        ),
        "shelf": Column("The copy it stands in."),
        "locator": Column("Its page, or read as an image."),
        **WHERE,
    },
}

TABLE_DESCRIPTIONS = {
    "meta": "What the data is: its schema version, the book's title, the day it stands at.",
    "entities": "Every entity of every kind, one row each.",
    "aliases": "Every other name of an entity.",
    "refs": "The link graph: every resolved reference from one entity to another.",
    "grades": "The evidence grades, ranked.",
    "metrics": "The metrics sourcebook knows, with the unit the site shows each in.",
    "figures": "Every figure of every campus and party that counts on the data's day, with "
    "its value in base units.",
    "retired_figures": "The figures a correction or the record's own doubt retired by the "
    "data's day: they count nowhere.",
    "figure_inputs": "The figures each of the record's own estimates rests on.",
    "campus_parties": "Who does what where: one row per campus, party and role.",
    "scenario_parameters": "The numbers each scenario is computed from.",
    "library_items": "The archived copies of the sources in the Library.",
    "source_library": "Which Library copies each source has.",
    "quotes": "Every quote claim, with what the Library proved of it.",
    "watch_visits": "Every visit sourcebook watch made to a source's address (watch/).",
    "watch_addresses": "Each address of each source, with what the last watch found there.",
}

COLUMNS["retired_figures"] = COLUMNS["figures"]
FIXED_TABLE_MODELS["retired_figures"] = Figure

EXTRA_KEYS = {"figure_inputs": ("figure", "position"), "source_library": ("source", "position")}
"""Keys the tables hold by construction though SQLite does not declare them."""

ForeignKey = tuple[tuple[str, ...], str, tuple[str, ...]]
ENTITY = ("kind", "id")

FOREIGN_KEYS: dict[str, list[ForeignKey]] = {
    "aliases": [(("kind", "id"), "entities", ENTITY)],
    "refs": [
        (("from_kind", "from_id"), "entities", ENTITY),
        (("to_kind", "to_id"), "entities", ENTITY),
    ],
    "figures": [
        (("owner_kind", "owner_id"), "entities", ENTITY),
        (("campus",), "campuses", ("id",)),
        (("party",), "parties", ("id",)),
        (("grade",), "grades", ("grade",)),
        (("source",), "sources", ("id",)),
    ],
    "campus_parties": [
        (("campus",), "campuses", ("id",)),
        (("party",), "parties", ("id",)),
        (("source",), "sources", ("id",)),
    ],
    "scenario_parameters": [
        (("scenario",), "scenarios", ("id",)),
        (("source",), "sources", ("id",)),
    ],
    "source_library": [
        (("source",), "sources", ("id",)),
        (("shelf",), "library_items", ("shelf",)),
    ],
    "watch_visits": [(("source",), "sources", ("id",))],
    "watch_addresses": [(("source",), "sources", ("id",))],
    "quotes": [
        (("owner_kind", "owner_id"), "entities", ENTITY),
        (("source",), "sources", ("id",)),
        (("shelf",), "library_items", ("shelf",)),
    ],
}

FOREIGN_KEYS["retired_figures"] = FOREIGN_KEYS["figures"]
