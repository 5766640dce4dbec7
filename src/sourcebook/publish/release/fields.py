"""The Table Schema of each table of the compiled record: every field's type, description,
unit and allowed values, and the keys that tie the tables together (see columns.py).

The data package carries these schemas and the JSON export reads its types from them.
"""

from __future__ import annotations

import sqlite3
import types
import typing
from dataclasses import replace
from enum import Enum
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from sourcebook.model.base import Day
from sourcebook.model.kinds import KINDS
from sourcebook.publish.release.columns import (
    COLUMNS,
    DAY,
    EXTRA_KEYS,
    FIXED_TABLE_MODELS,
    FOREIGN_KEYS,
    KIND_TABLE_COLUMNS,
    SQL_TYPES,
    TABLE_DESCRIPTIONS,
    Column,
    ForeignKey,
)

KIND_BY_TABLE = {kind.folder: kind for kind in KINDS}
FOLDER_OF_KIND = {kind.name: kind.folder for kind in KINDS}


def table_schema(db: sqlite3.Connection, table: str) -> dict[str, Any]:
    """The Table Schema of one table of the compiled record."""
    info = db.execute(f'PRAGMA table_info("{table}")').fetchall()
    fields = [
        field_descriptor(column_of(table, name), name, sql_type, required=bool(notnull or pk))
        for _cid, name, sql_type, notnull, _default, pk in info
    ]
    schema: dict[str, Any] = {"fields": fields}
    declared = [row[1] for row in sorted(info, key=lambda row: row[5]) if row[5]]
    keys = declared or list(EXTRA_KEYS.get(table, ()))
    if keys:
        schema["primaryKey"] = keys
    foreign = foreign_keys(table)
    if foreign:
        schema["foreignKeys"] = [
            {"fields": list(fields_), "reference": {"resource": resource, "fields": list(to)}}
            for fields_, resource, to in foreign
        ]
    return schema


def table_description(table: str) -> str:
    kind = KIND_BY_TABLE.get(table)
    if kind is not None:
        return f"One row per {kind.name}. {kind.description}"
    return TABLE_DESCRIPTIONS.get(table, "")


def column_of(table: str, name: str) -> Column:
    """What is known of a column: what the model it mirrors says, unless said here."""
    said = COLUMNS.get(table, {}).get(name)
    if said is None and table in KIND_BY_TABLE:
        said = KIND_TABLE_COLUMNS.get(name)
    model = model_of(table)
    field = model.model_fields.get(name) if model else None
    known = model_column(field) if field else Column()
    if said is None:
        return known
    return replace(known, **{key: value for key, value in vars(said).items() if value})


def model_of(table: str) -> type[BaseModel] | None:
    kind = KIND_BY_TABLE.get(table)
    return kind.model if kind else FIXED_TABLE_MODELS.get(table)


def model_column(field: FieldInfo) -> Column:
    """A model field's description, and the type and values its annotation implies."""
    annotation = _without_none(field.annotation)
    described = Column(field.description or "")
    if annotation is bool:
        return replace(described, type="boolean")
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return replace(described, enum=tuple(member.value for member in annotation))
    if typing.get_origin(annotation) in (list, tuple):
        return replace(described, type="array")
    if annotation is dict or (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
        return replace(described, type="object")
    if _is_day(field):
        return replace(described, pattern=DAY)
    return described


def field_descriptor(column: Column, name: str, sql_type: str, required: bool) -> dict[str, Any]:
    type_ = column.type or SQL_TYPES.get(sql_type, "any")
    descriptor: dict[str, Any] = {"name": name, "type": type_}
    if column.description:
        descriptor["description"] = column.description
    if column.unit:
        descriptor["unit"] = column.unit
    if column.unit_field:
        descriptor["unitField"] = column.unit_field
    constraints: dict[str, Any] = {}
    if required:
        constraints["required"] = True
    if column.enum:
        constraints["enum"] = list(column.enum)
    if column.pattern:
        constraints["pattern"] = column.pattern
    if constraints:
        descriptor["constraints"] = constraints
    return descriptor


def foreign_keys(table: str) -> list[ForeignKey]:
    """The fixed tables' keys, and each kind's fields that name one entity of another kind."""
    kind = KIND_BY_TABLE.get(table)
    if kind is None:
        return FOREIGN_KEYS.get(table, [])
    columns = kind.model.model_fields
    return [
        ((ref.path,), FOLDER_OF_KIND[ref.kind], ("id",))
        for ref in kind.model.REF_FIELDS
        if "." not in ref.path and model_column(columns[ref.path]).type != "array"
    ]


def _without_none(annotation: Any) -> Any:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _is_day(field: FieldInfo) -> bool:
    day_marks = typing.get_args(Day)[1:]
    if any(mark in day_marks for mark in field.metadata):
        return True
    return _without_none(field.annotation) == Day
