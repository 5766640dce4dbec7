"""A chart's Vega-Lite spec: nothing in it may fetch, and every field it names is known.

The spec is the record's, so it is untrusted: Vega-Lite can load data from a URL or a
file (`data`, `url`), link marks to addresses (`href`) and generate data of any size
(`sequence`, an impute's `keyvals`). None of those is allowed: a chart draws its query's
rows, which the build gives it, and nothing else.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from sourcebook.diagnostics import Diagnostics
from sourcebook.model.base import MAX_INTEGER
from sourcebook.model.kinds import Chart

REFUSED_KEYS = frozenset(
    {"data", "datasets", "url", "href", "sequence", "graticule", "sphere", "keyvals", "loader"}
)
"""Keys that would load data or links from outside, or make data of unbounded size."""
FIELD_LISTS = ("fold", "groupby", "fields", "pivot_groupby")
_DATUM = re.compile(r"datum(?:\.([A-Za-z_]\w*)|\[\s*['\"]([^'\"]+)['\"]\s*\])")

Path = tuple[str | int, ...]


def walk(value: Any, path: Path = ()) -> Iterator[tuple[Path, str | int, Any]]:
    """(path of the parent, key, value) of every value below `value`."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield path, key, inner
            yield from walk(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield path, index, inner
            yield from walk(inner, (*path, index))


def refused(spec: dict[str, Any]) -> list[tuple[Path, str]]:
    """(path, key) of each key the spec may not hold."""
    return [
        ((*path, key), str(key))
        for path, key, _ in walk(spec)
        if isinstance(key, str) and key in REFUSED_KEYS
    ]


def fields_used(spec: dict[str, Any]) -> dict[str, Path]:
    """Each field the spec reads, with where it first names it: encodings' and transforms'
    `field`, the lists of fields transforms take, and `datum.x` in expressions."""
    found: dict[str, Path] = {}
    for path, key, value in walk(spec):
        where = (*path, key)
        names: list[str] = []
        if key == "field" and isinstance(value, str):
            names = [value]
        elif key in FIELD_LISTS and isinstance(value, list):
            names = [v for v in value if isinstance(v, str)]
        elif key in ("calculate", "filter", "expr", "test") and isinstance(value, str):
            names = [a or b for a, b in _DATUM.findall(value)]
        for name in names:
            found.setdefault(_unescaped(name), where)
    return found


def fields_made(spec: dict[str, Any]) -> set[str]:
    """Fields the spec's own transforms make (`as`), which no query returns."""
    made: set[str] = set()
    for _, key, value in walk(spec):
        if key == "as":
            made |= {value} if isinstance(value, str) else set(_strings(value))
    return made


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, str):
        yield value


def _unescaped(field: str) -> str:
    """A field as Vega-Lite names it, less its escapes and nesting: 'a\\.b' is 'a.b'."""
    return field.replace("\\.", ".").replace("\\[", "[").replace("\\]", "]")


def check_specs(record: Any, _graph: Any, diagnostics: Diagnostics) -> None:
    for chart in record.of("chart"):
        assert isinstance(chart, Chart)
        for path, key in refused(chart.spec):
            diagnostics.error(
                chart.pos("spec", *path),
                "X008",
                f"chart '{chart.id}': a spec may not hold '{key}'",
                "a chart draws its query's rows only: remove it, and any data or link",
            )
        for parent, name, value in walk(chart.spec):
            if not _json_number(value):
                diagnostics.error(
                    chart.pos("spec", *parent, name),
                    "S003",
                    f"chart '{chart.id}': {value!r} is not a number JSON carries",
                    f"write a finite number of at most {MAX_INTEGER:,} in size",
                )


def _json_number(value: Any) -> bool:
    """Whether a value of a spec is no number, or one the drawing engine's JSON reads:
    finite, and an integer within 64 bits."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return -MAX_INTEGER - 1 <= value <= MAX_INTEGER
    return True


def check_columns(chart: Chart, columns: tuple[str, ...], diagnostics: Diagnostics) -> None:
    """The query's columns against the spec: each drawn, and each field drawn returned."""
    used = fields_used(chart.spec)
    unused = [c for c in columns if c not in used]
    if unused:
        diagnostics.error(
            chart.pos("query"),
            "X006",
            f"chart '{chart.id}': the query returns {_listed(unused)}, which the spec does not use",
            "draw each column in the spec (an encoding, a tooltip), or leave it out of the query",
        )
    made = fields_made(chart.spec)
    for name, where in used.items():
        if name not in columns and name not in made:
            diagnostics.error(
                chart.pos("spec", *where),
                "X007",
                f"chart '{chart.id}': the spec draws '{name}', which the query does not return",
                f"the query returns {_listed(list(columns))}",
            )


def _listed(names: list[str]) -> str:
    quoted = [f"'{n}'" for n in names]
    if len(quoted) < 2:
        return "".join(quoted) or "no columns"
    return ", ".join(quoted[:-1]) + " and " + quoted[-1]
