"""Line charts as inline SVG: drawn at build time, so a reader needs no JavaScript.

A chart is a figure in the page: it carries a title and a description for screen
readers, each point a tooltip, and its colours come from the stylesheet (one class per
series), so that print and dark themes restyle it. The same numbers are always in a
table beside it; the chart only shows their shape.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from markupsafe import Markup, escape

WIDTH, HEIGHT = 640, 260
LEFT, RIGHT, TOP, BOTTOM = 78, 16, 14, 34
"""Margins: room for the value axis's labels on the left and the time axis's below."""
TICKS = 4
"""About this many steps up the value axis."""


@dataclass(frozen=True, slots=True)
class Point:
    x: float
    y: float
    label: str
    """The point's tooltip: what it is and where it comes from."""


@dataclass(frozen=True, slots=True)
class Series:
    name: str
    points: tuple[Point, ...]


def line_chart(
    series: Sequence[Series],
    *,
    title: str,
    description: str,
    x_label: Callable[[float], str],
    y_label: Callable[[float], str],
    ident: str,
) -> Markup:
    """An SVG line chart of `series` on shared axes; '' where there is nothing to draw.

    `x_label` and `y_label` write an axis value as a reader reads it; `ident` makes the
    chart's element ids unique on its page.
    """
    drawn = [s for s in series if s.points]
    if not drawn:
        return Markup("")
    xs = [p.x for s in drawn for p in s.points]
    ys = [p.y for s in drawn for p in s.points]
    low, high = min(xs), max(xs)
    if low == high:
        low, high = low - 1, high + 1
    top = nice_ceiling(max(max(ys), 0))
    bottom = -nice_ceiling(-min(ys)) if min(ys) < 0 else 0.0
    if top == bottom:
        top = bottom + 1

    def x_at(x: float) -> float:
        return LEFT + (x - low) / (high - low) * (WIDTH - LEFT - RIGHT)

    def y_at(y: float) -> float:
        return HEIGHT - BOTTOM - (y - bottom) / (top - bottom) * (HEIGHT - TOP - BOTTOM)

    # f-strings with each text escaped, not Markup.format: a chart has hundreds of parts.
    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img"'
        f' aria-labelledby="{escape(ident)}-t {escape(ident)}-d"'
        ' xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{escape(ident)}-t">{escape(title)}</title>'
        f'<desc id="{escape(ident)}-d">{escape(description)}</desc>',
    ]
    step = (top - bottom) / TICKS
    for tick in range(TICKS + 1):
        value = bottom + tick * step
        y = y_at(value)
        parts.append(
            f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="axis" x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">'
            f"{escape(y_label(value))}</text>"
        )
    for x in _ticks(sorted(set(xs))):
        parts.append(
            f'<text class="axis" x="{x_at(x):.1f}" y="{HEIGHT - BOTTOM + 18}"'
            f' text-anchor="middle">{escape(x_label(x))}</text>'
        )
    for index, one in enumerate(drawn):
        points = sorted(one.points, key=lambda p: p.x)
        parts.append(f'<g class="series series-{index % 6}">')
        if len(points) > 1:
            path = " ".join(f"{x_at(p.x):.1f},{y_at(p.y):.1f}" for p in points)
            parts.append(f'<polyline points="{path}"/>')
        for p in points:
            parts.append(
                f'<circle cx="{x_at(p.x):.1f}" cy="{y_at(p.y):.1f}" r="4">'
                f"<title>{escape(f'{one.name}: {p.label}')}</title></circle>"
            )
        parts.append("</g>")
    parts.append("</svg>")
    return Markup("".join(parts))


def legend(series: Sequence[Series]) -> Markup:
    """The chart's key, as a list the stylesheet colours to match the lines."""
    items = "".join(
        f'<li class="series-{i % 6}">{escape(s.name)}</li>'
        for i, s in enumerate(s for s in series if s.points)
    )
    return Markup(f'<ul class="chart-key">{items}</ul>')


def nice_ceiling(value: float) -> float:
    """The smallest 1, 2, 2.5 or 5 × 10ⁿ times TICKS at or above `value`: round gridlines."""
    if value <= 0:
        return 0.0
    raw = value / TICKS
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if factor * power >= raw * (1 - 1e-12):
            return factor * power * TICKS
    return 10 * power * TICKS  # pragma: no cover - the loop ends at 10


def _ticks(xs: list[float], most: int = 6) -> list[float]:
    """Where the time axis is labelled: at points that exist, at most `most` of them,
    evenly spaced among the points and always including the last."""
    step = math.ceil(len(xs) / most)
    chosen = xs[::step]
    return chosen if chosen[-1] == xs[-1] or len(chosen) == most else [*chosen, xs[-1]]


def day_number(day: str) -> float:
    """A YYYY-MM-DD day as a number on a time axis."""
    return float(date.fromisoformat(day).toordinal())


def day_label(number: float) -> str:
    """A point on a time axis as a reader reads it: 'Mar 2026'."""
    return date.fromordinal(round(number)).strftime("%b %Y")
