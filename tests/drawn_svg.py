"""A chart's inline SVG read as a reader meets it: its marks (with what each says to a screen
reader, its colour and where it is drawn), its text, its plot areas and its axes.

Vega draws every mark with an `aria-label` ("campus: Colossus 1; stage: operating") and
an `aria-roledescription` ("bar", "point", "line mark"); positions are `translate`s of
nested groups over paths in absolute (M, L) and relative (h, v) commands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

SVG = "{http://www.w3.org/2000/svg}"
_TRANSLATE = re.compile(r"translate\(\s*([-\d.e]+)[ ,]+([-\d.e]+)\s*\)")
_COMMAND = re.compile(r"([MmLlHhVvAaZzCcQq])([^MmLlHhVvAaZzCcQq]*)")
_NUMBER = re.compile(r"-?\d*\.?\d+(?:e-?\d+)?")

Box = tuple[float, float, float, float]
"""x0, y0, x1, y1 in the drawing's own units."""


@dataclass
class Mark:
    role: str
    label: dict[str, str]
    """What it says to a screen reader, field by field."""
    fill: str | None
    stroke: str | None
    box: Box
    points: list[tuple[float, float]] = field(default_factory=list)
    """The points its path passes through (a line's, an area's outline)."""


@dataclass
class Text:
    text: str
    x: float
    y: float
    size: float
    visible: bool


@dataclass
class Drawn:
    width: float
    height: float
    classes: str
    marks: list[Mark] = field(default_factory=list)
    texts: list[Text] = field(default_factory=list)
    plots: list[Box] = field(default_factory=list)
    """Each plot area (a facet's cells one each)."""
    axes: list[str] = field(default_factory=list)
    """Each axis's description, as a screen reader hears it."""
    legend: dict[str, str] = field(default_factory=dict)
    """Each legend entry's label → its symbol's colour."""

    def of(self, role: str) -> list[Mark]:
        return [m for m in self.marks if m.role == role]


def svgs(html: str, section: str) -> dict[str, str]:
    """The drawings of one chart's section of a page, by layout ('wide', 'narrow')."""
    part = html.split(f'id="{section}"', 1)[1].split("</section>", 1)[0]
    found = {}
    for svg in re.findall(r"<svg [^>]*class=\"chart vega[^\"]*\".*?</svg>", part, re.S):
        layout = re.search(r'class="chart vega chart-(\w+)"', svg)
        found[layout[1] if layout else ""] = svg
    return found


def read(svg: str) -> Drawn:
    root = etree.fromstring(svg.encode("utf-8"))
    view = [float(v) for v in root.get("viewBox", "0 0 0 0").split()]
    drawn = Drawn(view[2], view[3], root.get("class", ""))
    _walk(root, 0.0, 0.0, True, drawn)
    _legend(root, drawn)
    return drawn


def _walk(element: Any, x: float, y: float, visible: bool, drawn: Drawn) -> None:
    moved = _TRANSLATE.search(element.get("transform", ""))
    if moved:
        x, y = x + float(moved[1]), y + float(moved[2])
    visible = visible and element.get("opacity") != "0" and element.get("display") != "none"
    tag = element.tag.removeprefix(SVG) if isinstance(element.tag, str) else ""
    role = element.get("aria-roledescription")
    if tag == "text":
        size = float(element.get("font-size", "0").removesuffix("px") or 0)
        text = "".join(element.itertext())
        drawn.texts.append(Text(text, x, y, size, visible and bool(text.strip())))
        lines = element.findall(f"{SVG}tspan")
        if lines:
            drawn.texts[-1].text = "\n".join("".join(t.itertext()) for t in lines)
    elif tag == "path" and element.get("class") == "background" and _is_plot(element):
        points = _path_points(element.get("d", ""), x, y)
        box = (points[0][0], points[0][1], points[2][0], points[2][1]) if len(points) > 2 else None
        if box and box[2] - box[0] > 0 and box[3] - box[1] > 0:
            drawn.plots.append(box)
    if role and role not in ("group mark container", "axis", "legend") and tag != "g":
        points = _path_points(element.get("d", ""), x, y) if tag == "path" else [(x, y)]
        xs, ys = [p[0] for p in points] or [x], [p[1] for p in points] or [y]
        drawn.marks.append(
            Mark(
                role,
                _label(element.get("aria-label", "")),
                element.get("fill"),
                element.get("stroke"),
                (min(xs), min(ys), max(xs), max(ys)),
                points,
            )  # fmt: skip
        )
    if role == "axis":
        drawn.axes.append(element.get("aria-label", ""))
    for child in element:
        _walk(child, x, y, visible, drawn)


def _is_plot(path: Any) -> bool:
    """A background path that is a plot area's: its group's group is a cell or the root
    of a single view."""
    group = path.getparent().getparent() if path.getparent() is not None else None
    classes = group.get("class", "") if group is not None else ""
    return "role-scope cell" in classes or "role-frame root" in classes


def _legend(root: Any, drawn: Drawn) -> None:
    for entry in root.iter(f"{SVG}g"):
        if "role-legend-entry" not in entry.get("class", ""):
            continue
        symbols = [
            p.get("fill")
            for g in entry.iter(f"{SVG}g")
            if "role-legend-symbol" in g.get("class", "")
            for p in g.iter(f"{SVG}path")
        ]
        labels = [
            "".join(t.itertext())
            for g in entry.iter(f"{SVG}g")
            if "role-legend-label" in g.get("class", "")
            for t in g.iter(f"{SVG}text")
        ]
        for label, fill in zip(labels, symbols, strict=False):
            drawn.legend[label] = fill


def _label(text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for part in text.split("; "):
        key, sep, value = part.partition(": ")
        if sep:
            found.setdefault(key, value)
    return found


def _path_points(d: str, x: float, y: float) -> list[tuple[float, float]]:
    """The points a path passes through, offset by (x, y): its moves, lines (absolute
    and relative) and curves' ends; for an arc, its end with its height above and below
    (Vega draws a point as two half circles)."""
    found: list[tuple[float, float]] = []
    at = start = (0.0, 0.0)
    for command, args in _COMMAND.findall(d):
        numbers = [float(n) for n in _NUMBER.findall(args)]
        relative, op = command.islower(), command.upper()
        if op == "Z":
            at = start
        elif op in "HV":
            for n in numbers:
                if op == "H":
                    at = (at[0] + n if relative else n, at[1])
                else:
                    at = (at[0], at[1] + n if relative else n)
                found.append(at)
        else:
            step = {"M": 2, "L": 2, "A": 7, "C": 6, "Q": 4}[op]
            for i in range(0, len(numbers) - step + 1, step):
                px, py = numbers[i + step - 2], numbers[i + step - 1]
                at = (at[0] + px, at[1] + py) if relative else (px, py)
                start = at if op == "M" and i == 0 else start
                if op == "A":
                    found.extend(((at[0], at[1] - numbers[i + 1]), (at[0], at[1] + numbers[i + 1])))
                else:
                    found.append(at)
    return [(px + x, py + y) for px, py in found]
