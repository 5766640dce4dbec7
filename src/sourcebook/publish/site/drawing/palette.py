"""The charts' colours: one colour per campus in every chart, and palettes of their own for
stages and verdicts, which never lend a campus's colour to anything else.

A spec asks for a palette by name as its colour scale's scheme (`scale: {scheme:
campuses}`, `stages` or `verdicts`); a colour encoding that names no scale of its own,
over a field whose every value is a campus's name (or id), a stage or a verdict, gets
that palette too. The build fills the scale in: its domain the values the chart's data
holds, in the palette's order, and its range their colours. Campuses take the colours in
the order the record came to know them (`derive.campuses.campus_order`), round again
past the last; so a campus has the same colour in every chart of a build, and in a build
as of an earlier day.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

CAMPUS_COLOURS = (
    "#2166ac",
    "#c45a00",
    "#7b3294",
    "#00727a",
    "#c2378a",
    "#637939",
    "#0b3c6e",
    "#ad494a",
    "#5e60ce",
    "#a6611a",
    "#1a8a8a",
    "#7b4173",
)
"""A campus's colour is the one at its place in the record's order, round again past the
last."""
STAGE_COLOURS = {
    "announced": "#a08c69",
    "under construction": "#76603a",
    "operating": "#2a2620",
    "cancelled": "#8e8e8e",
}
"""The stages in order (the `stages` view's), from sand to ink as a campus gets built."""
VERDICT_COLOURS = {"passed": "#2f6b2f", "pending": "#8a6d00", "failed": "#7a2e1d"}
"""As the Tests page marks each verdict."""
OTHER_COLOURS = ("#3f5566", "#7d8a96", "#23303a", "#667a66", "#4f4f4f", "#857f94")
"""Any other category: cool greys, none a campus's, a stage's or a verdict's colour."""
UNKNOWN = "#8e8e8e"
"""A value a named palette does not know."""

COLOUR_CHANNELS = ("color", "fill", "stroke")
SCHEMES = ("campuses", "stages", "verdicts")


@dataclass(frozen=True)
class Palette:
    """The colours of one build's charts."""

    names: tuple[str, ...]
    """Every campus's name, in the record's order."""
    campuses: Mapping[str, str]
    """A campus's name, and its id, → its colour."""

    @classmethod
    def of(cls, campuses: Sequence[tuple[str, str]]) -> Palette:
        """From every campus's (id, name), in the record's order."""
        colours: dict[str, str] = {}
        for place, (ident, name) in enumerate(campuses):
            colour = CAMPUS_COLOURS[place % len(CAMPUS_COLOURS)]
            colours.setdefault(name, colour)
            colours.setdefault(ident, colour)
        return cls(tuple(name for _, name in campuses), colours)

    def scheme(self, name: str) -> Mapping[str, str]:
        """The values a named palette knows, in its order, → their colours."""
        if name == "campuses":
            return self.campuses
        return STAGE_COLOURS if name == "stages" else VERDICT_COLOURS

    def applied(self, spec: dict[str, Any], rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """A copy of `spec` with every colour scale that takes a palette filled in."""
        whole = copy.deepcopy(spec)
        for channel in _colour_channels(whole):
            name = self._wanted(channel, rows)
            if name is not None:
                channel["scale"] = self._scale(name, channel, rows)
        return whole

    def _wanted(self, channel: dict[str, Any], rows: Sequence[Mapping[str, Any]]) -> str | None:
        scale = channel.get("scale")
        if isinstance(scale, dict) and scale.get("scheme") in SCHEMES:
            return str(scale["scheme"])
        if scale is not None:
            return None
        values = _values(channel["field"], rows)
        if not values:
            return None
        return next((n for n in SCHEMES if values <= self.scheme(n).keys()), None)

    def _scale(
        self, name: str, channel: dict[str, Any], rows: Sequence[Mapping[str, Any]]
    ) -> dict[str, Any]:
        known = self.scheme(name)
        values = _values(channel["field"], rows)
        order = {value: place for place, value in enumerate(known)}
        domain = sorted(values, key=lambda v: (order.get(v, len(order)), v))
        if not domain:  # a field the spec makes itself: the whole palette
            domain = list(self.names if name == "campuses" else known)
        scale = channel.get("scale")
        kept = {k: v for k, v in scale.items() if k != "scheme"} if isinstance(scale, dict) else {}
        return {**kept, "domain": domain, "range": [known.get(v, UNKNOWN) for v in domain]}


def _colour_channels(spec: Any) -> Iterator[dict[str, Any]]:
    """Every colour channel over a field, in any encoding of the spec (layers and facets
    included)."""
    if isinstance(spec, dict):
        encoding = spec.get("encoding")
        if isinstance(encoding, dict):
            for name in COLOUR_CHANNELS:
                channel = encoding.get(name)
                if isinstance(channel, dict) and isinstance(channel.get("field"), str):
                    yield channel
        for key, value in spec.items():
            if key != "encoding":
                yield from _colour_channels(value)
    elif isinstance(spec, list):
        for value in spec:
            yield from _colour_channels(value)


def _values(field: str, rows: Sequence[Mapping[str, Any]]) -> set[str]:
    """The field's values in the data, as text; empty where a row lacks the field."""
    found: set[str] = set()
    for row in rows:
        if field not in row:
            return set()
        if row[field] is not None:
            found.add(str(row[field]))
    return found
