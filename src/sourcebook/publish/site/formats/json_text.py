"""JSON as the site writes it: the JSON twins' compact, sorted text, and JSON inside HTML."""

from __future__ import annotations

import dataclasses
import json
from enum import Enum
from typing import Any

import orjson
from markupsafe import Markup

PRIVATE = {"api": False}
"""Dataclass field metadata for what is the build's business, not a reader's (a folder on
the machine that built the site)."""
ORJSON_OPTIONS = (
    orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
)
"""Keys sorted; dataclasses and days go to `plain_value`."""


def dumps(data: Any) -> str:
    """Sorted, compact JSON: by orjson, which writes the twins in half the time json takes;
    by json where orjson cannot write a value (an integer beyond 64 bits)."""
    try:
        return orjson.dumps(data, default=plain_value, option=ORJSON_OPTIONS).decode()
    except TypeError:
        return json.dumps(
            data, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=plain_value
        )


def script_json(data: Any) -> Markup:
    """JSON safe inside a <script> element: no '<', '>' or '&' can close or open a tag."""
    text = dumps(data)
    escaped = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(escaped.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def plain_value(value: Any) -> Any:
    """What json cannot write by itself: derive's dataclasses (less any error object)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: getattr(value, f.name)
            for f in dataclasses.fields(value)
            if f.metadata.get("api", True) and not isinstance(getattr(value, f.name), Exception)
        }
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Exception):
        return None
    raise TypeError(f"{type(value).__name__} is not JSON")
