"""Vega-Lite specs drawn as static SVG at build time, by vl-convert, safe to inline.

vl-convert runs Vega in an embedded JavaScript engine. The specs are the record's, so
they are drawn in a child process that is killed past a time limit, and what comes back
is kept only as far as it is plain SVG: elements and attributes from a short list, no
scripts, links, styles or foreign content. The chart then gets its title and
description, for screen readers, and its data stays in a table beside it.

Starting the engine takes most of a second, so each drawing is kept in the record's state
folder under the hash of its whole spec (data and look included) and the engine's
version: a build whose charts did not change starts no engine. What is kept is pared as
a fresh drawing is, so the folder is trusted no further than the engine.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import math
import multiprocessing
import os
import re
import time
from collections.abc import Callable, Sequence
from importlib.metadata import PackageNotFoundError, version
from multiprocessing.connection import Connection
from pathlib import Path
from typing import IO, Any

from lxml import etree
from markupsafe import Markup

from sourcebook.children import (
    cap_data,
    die_with,
    for_child,
    last_line,
    one_line,
    stderr_file,
    stop,
    write_stderr_to,
    written,
)
from sourcebook.derive.sandbox import _start_method
from sourcebook.files import write_atomic
from sourcebook.publish.site.drawing.palette import OTHER_COLOURS, Palette

SECONDS_PER_CHART = 10.0
"""How long drawing one chart may take, once the engine has started."""
START_SECONDS = 20.0
"""How long the engine may take to start."""
TOTAL_SECONDS = 60.0
"""How long drawing all the charts of a build may take together, the start included."""
MEMORY_BYTES = 1 << 30
"""Memory the drawing process may take beyond what it starts with."""
FONT = "Source Sans 3, Helvetica Neue, Arial, sans-serif"
MONTH_LABEL = (
    "test(/^[0-9]{4}-(0[1-9]|1[0-2])$/, datum.label) ? "
    "['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']"
    "[parseInt(slice(datum.label, 5, 7)) - 1] + ' ' + slice(datum.label, 0, 4) : datum.label"
)
"""A month as the record writes it (2025-07), where a chart draws it as a category or a
legend's entry, labelled as a reader says it (Jul 2025)."""
MONTHS_WITH_YEARS = (
    "test(regexp('^([0-9]{4}|[A-Za-z]+)$'), datum.label)"
    " ? timeFormat(datum.value, '%b %Y') : datum.label"
)
"""A time axis's months (and years) as 'Jul 2025': Vega's own labels name a month without
its year, and its year only where a tick falls on a January. Days and hours keep Vega's."""
THEME: dict[str, Any] = {
    "background": None,
    "font": FONT,
    "view": {"stroke": None},
    "axis": {
        "labelFontSize": 11,
        "titleFontSize": 11,
        "labelColor": "#555",
        "titleColor": "#555",
        # Labels are never cut short: a long one widens its axis. Vega measures a label once
        # more to cut it, and the engine's measuring is most of the time a chart of many
        # labels takes (901 campuses on one timeline: 2.6 s against 1.1 s).
        "labelLimit": 0,
        # A month as the record writes it (2025-07) labelled as a reader says it (Jul 2025).
        "labelExpr": MONTH_LABEL,
    },
    "legend": {"labelFontSize": 11, "titleFontSize": 11, "labelExpr": MONTH_LABEL},
    "axisTemporal": {"labelExpr": MONTHS_WITH_YEARS},
    "header": {"labelFontSize": 11, "titleFontSize": 11, "labelColor": "#333"},
    "text": {"fontSize": 11},
    "title": {"fontSize": 13, "subtitleFontSize": 11},
    "range": {"category": list(OTHER_COLOURS)},
    "mark": {"color": OTHER_COLOURS[0]},
}
"""The house's look: its colours and type, no background (the page's shows through); no
text smaller than 11 px as drawn."""
WIDE = 640
"""The page's measure, in CSS pixels: a chart is drawn this wide, axes and legends
included (or as wide as its spec says, if less), so that it is shown at its own size,
its text as large as drawn."""
NARROW = 320
"""A phone's measure (a 360 px screen, less the page's margins): each chart is drawn again
this wide, for the page to show on a narrow screen in place of the wide drawing."""
NARROW_LOOK: dict[str, Any] = {
    "legend": {
        "orient": "bottom",
        "direction": "vertical",
        "labelLimit": 200,
        "labelFontSize": 11,
        "titleFontSize": 11,
    },
}
"""On a phone the legend goes beneath the chart, leaving the width to it."""
FIT_TRIES = 3
"""How many times a drawing wider than its measure is drawn again, narrower."""
FIT_SLACK = 6
"""How far past its measure a drawing may run and not be drawn again: the page's measure
and a phone's are each this much wider than `WIDE` and `NARROW`."""
AXIS_GUESS = 100
"""What a facet's axis and labels take beside its plot, as a first guess: a facet is
first drawn this much narrower than its measure, most often then to fit at once."""
SMALLEST_PLOT = 80
"""The narrowest a chart's plot is drawn, whatever its labels take."""
FIT = "sourcebook_fit"
"""Where in a facet's spec (its `usermeta`, which Vega ignores) `full_spec` says the width
the drawing is to fit: the spec's hash, which keeps the drawing, then covers it too."""

SVG = "http://www.w3.org/2000/svg"
ELEMENTS = frozenset(
    {
        "svg",
        "g",
        "path",
        "rect",
        "line",
        "circle",
        "ellipse",
        "polyline",
        "polygon",
        "text",
        "tspan",
        "title",
        "desc",
        "defs",
        "clipPath",
        "linearGradient",
        "radialGradient",
        "stop",
    }
)
ATTRIBUTES = frozenset(
    {
        "class",
        "id",
        "d",
        "x",
        "y",
        "x1",
        "x2",
        "y1",
        "y2",
        "cx",
        "cy",
        "r",
        "rx",
        "ry",
        "dx",
        "dy",
        "width",
        "height",
        "viewBox",
        "transform",
        "fill",
        "fill-opacity",
        "stroke",
        "stroke-width",
        "stroke-opacity",
        "stroke-dasharray",
        "stroke-dashoffset",
        "stroke-linecap",
        "stroke-linejoin",
        "stroke-miterlimit",
        "opacity",
        "points",
        "text-anchor",
        "dominant-baseline",
        "font-family",
        "font-size",
        "font-weight",
        "font-style",
        "clip-path",
        "offset",
        "stop-color",
        "stop-opacity",
        "gradientUnits",
        "role",
        "aria-label",
        "aria-hidden",
        "aria-roledescription",
        "display",
        "version",
        "pointer-events",
        "shape-rendering",
    }
)
_URL_REF = re.compile(r"^url\(#[\w-]+\)$")
_WIDTH = re.compile(r'<svg\b[^>]*?\swidth="([\d.]+)"')


class ChartRenderError(Exception):
    """A spec that could not be drawn: its chart's id and why, for a person."""

    def __init__(self, chart: str, message: str):
        super().__init__(f"chart '{chart}': {message}")
        self.chart = chart
        self.reason = message


def full_spec(
    spec: dict[str, Any],
    rows: list[dict[str, Any]],
    palette: Palette | None = None,
    width: int | None = None,
) -> dict[str, Any]:
    """The record's spec with its data, its palettes filled in and the house's look (the
    spec's own config wins), to be drawn no wider than `width` (None: as the spec says;
    `NARROW`: a phone's layout)."""
    whole = palette.applied(spec, rows) if palette else copy.deepcopy(spec)
    whole.pop("usermeta", None)
    whole["data"] = {"values": rows}
    look = {**THEME, **(NARROW_LOOK if width is not None and width <= NARROW else {})}
    whole["config"] = {**look, **whole.get("config", {})}
    whole.setdefault("$schema", "https://vega.github.io/schema/vega-lite/v5.json")
    holder = _plot(whole)
    if width is not None and holder is not None:
        own = holder.get("width")
        most = own if isinstance(own, int | float) else width
        if holder is whole and not _faceted(whole):
            holder["width"] = min(most, width)
            whole["autosize"] = {"type": "fit-x", "contains": "padding"}
        else:  # Vega fits only a single view: a facet's is fitted by drawing it again
            holder["width"] = max(SMALLEST_PLOT, min(most, width - AXIS_GUESS))
            whole["usermeta"] = {FIT: width}
    return whole


def _faceted(spec: dict[str, Any]) -> bool:
    encoding = spec.get("encoding")
    return isinstance(encoding, dict) and any(k in encoding for k in ("row", "column", "facet"))


def _plot(spec: dict[str, Any]) -> dict[str, Any] | None:
    """The part of a spec whose `width` is its plot's: the spec itself, or a facet's inner
    spec; None for a concatenation or a repeat, each of whose parts has its own, and for a
    width the spec gives otherwise than in pixels."""
    if any(key in spec for key in ("concat", "hconcat", "vconcat", "repeat")):
        return None
    holder = spec.get("spec") if "facet" in spec else spec
    if not isinstance(holder, dict):
        return None
    own = holder.get("width")
    pixels = isinstance(own, int | float) and not isinstance(own, bool)
    return holder if own is None or pixels else None


class Drawing:
    """The charts of `specs` (chart id, full spec) being drawn in a child process while the
    build goes on; `result` waits for them. Each drawing is kept in the folder `kept` (None:
    none is) and taken from there while its spec is unchanged; the folder keeps this
    build's drawings only."""

    def __init__(self, specs: Sequence[tuple[str, dict[str, Any]]], kept: Path | None = None):
        self._charts = [chart for chart, _ in specs]
        self._kept = kept
        self._keys: dict[str, str] = {}
        self._drawn: dict[str, str] = {}
        if kept is not None:
            self._keys = {chart: _key(spec) for chart, spec in specs}
            for chart, key in self._keys.items():
                with contextlib.suppress(OSError, UnicodeDecodeError):
                    self._drawn[chart] = (kept / f"{key}.svg").read_text(encoding="utf-8")
        self._fresh = [(chart, spec) for chart, spec in specs if chart not in self._drawn]
        self._child: Any = None
        self._pipe: Connection | None = None
        self._said: IO[bytes] | None = None
        self._deadline = time.monotonic() + TOTAL_SECONDS
        if self._fresh:
            context: Any = multiprocessing.get_context(_start_method())  # its Process, typed
            self._pipe, theirs = context.Pipe(duplex=False)
            self._said = stderr_file()
            stderr = for_child(self._said)
            self._child = context.Process(
                target=_draw, args=(theirs, self._fresh, os.getpid(), stderr), daemon=True
            )
            self._child.start()
            theirs.close()
            stderr.close()

    @property
    def started(self) -> bool:
        """Whether an engine was started: False where every drawing was kept."""
        return bool(self._fresh)

    def result(self) -> dict[str, str]:
        """Each chart's raw SVG; raises ChartRenderError for the first that fails or runs
        past its time."""
        try:
            fresh = self._receive()
        finally:
            self.close()
        if self._kept is not None:
            self._keep(fresh)
        return {chart: fresh.get(chart) or self._drawn[chart] for chart in self._charts}

    def close(self) -> None:
        """Stop the child, if it still draws."""
        if self._pipe is not None:
            self._pipe.close()
            self._pipe = None
        if self._child is not None:
            stop(self._child)
            self._child = None
        if self._said is not None:
            self._said.close()
            self._said = None

    def _receive(self) -> dict[str, str]:
        drawn: dict[str, str] = {}
        if self._pipe is None:
            return drawn
        wait = START_SECONDS + SECONDS_PER_CHART
        for chart, _ in self._fresh:
            left = self._deadline - time.monotonic()
            if not self._pipe.poll(max(0.0, min(wait, left))):
                raise ChartRenderError(chart, _too_slow(wait, left))
            try:
                ok, value = self._pipe.recv()
            except EOFError:
                raise ChartRenderError(chart, self._death()) from None
            if not ok:
                raise ChartRenderError(chart, value)
            drawn[chart] = value
            wait = SECONDS_PER_CHART
        return drawn

    def _death(self) -> str:
        """Why the engine died, in one line, from what it printed as it did."""
        said = written(self._said) if self._said is not None else ""
        if _OUT_OF_MEMORY.search(said):
            return "the engine drawing it ran out of memory"
        return f"the engine drawing it died: {last_line(said) or 'it said nothing'}"

    def _keep(self, fresh: dict[str, str]) -> None:
        kept = self._kept
        assert kept is not None
        for chart, raw in fresh.items():
            with contextlib.suppress(OSError):
                write_atomic(kept / f"{self._keys[chart]}.svg", raw.encode("utf-8"))
        wanted = {f"{key}.svg" for key in self._keys.values()}
        for old in kept.glob("*.svg"):
            if old.name not in wanted:
                old.unlink(missing_ok=True)


def _key(spec: dict[str, Any]) -> str:
    text = json.dumps(spec, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(f"{_engine()}\n{text}".encode()).hexdigest()


def _engine() -> str:
    try:
        return f"vl-convert-python {version('vl-convert-python')}"
    except PackageNotFoundError:
        return "vl-convert-python"


def _too_slow(wait: float, left: float) -> str:
    if left < wait:
        return f"the charts together took longer than {TOTAL_SECONDS:g} s to draw"
    return f"drawing it took longer than {wait:g} s"


_OUT_OF_MEMORY = re.compile(r"out of memory|heap limit|allocation failed", re.I)


def _draw(
    out: Connection, specs: list[tuple[str, dict[str, Any]]], parent: int, stderr: Connection
) -> None:
    die_with(parent)
    write_stderr_to(stderr)  # the engine prints its own traces, a stack for each error
    cap_data(MEMORY_BYTES)
    # Vega reads dates in the engine's time zone: UTC, so that a chart is the same wherever
    # it is built.
    os.environ["TZ"] = "UTC"
    time.tzset()
    import vl_convert

    try:
        for _chart, spec in specs:
            try:
                out.send((True, _fitted(vl_convert.vegalite_to_svg, spec)))
            except Exception as exc:  # vl-convert raises ValueError, or its own errors
                out.send((False, _said(str(exc))))
                return
    finally:
        out.close()


def _said(error: str) -> str:
    """The engine's error as one line: a JavaScript error's own line, not its stack."""
    if _OUT_OF_MEMORY.search(error):
        return "the engine drawing it ran out of memory"
    lines = [line for line in error.splitlines() if not line.lstrip().startswith("at ")]
    return one_line(" ".join(lines), 300)


def _fitted(draw: Callable[[dict[str, Any]], str], spec: dict[str, Any]) -> str:
    """The drawing of `spec`, drawn again with a narrower plot while it is wider than the
    width `full_spec` asked for: what axes, labels and legends take is known only once
    drawn."""
    svg = draw(spec)
    fit = spec.get("usermeta", {}).get(FIT)
    holder = _plot(spec)
    if not fit or holder is None:
        return svg
    drawn = _drawn_width(svg)
    for _ in range(FIT_TRIES):
        narrower = math.floor(holder["width"] - (drawn - fit))
        if drawn <= fit + FIT_SLACK or narrower < SMALLEST_PLOT:
            break
        holder["width"] = narrower
        svg = draw(spec)
        before, drawn = drawn, _drawn_width(svg)
        if drawn >= before:  # its labels, not its plot, make it this wide
            break
    return svg


def _drawn_width(svg: str) -> float:
    found = _WIDTH.search(svg[:2000])
    return float(found[1]) if found else 0.0


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
"""Characters XML cannot hold at all (a control character in a chart's title): left out of
the drawing's title and description, which could not be written with them."""


def inline_svg(raw: str, *, ident: str, title: str, description: str, layout: str = "") -> Markup:
    """The SVG vl-convert drew, pared to the allowed elements and attributes, with its
    title and description. A drawing for one of a page's layouts (`wide`, `narrow`) keeps
    its own size, to be shown at it (no larger, so its text is as large as drawn); any
    other is sized by its viewBox alone, to scale to where it is put."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    root = etree.fromstring(raw.encode("utf-8"), parser)
    if root.tag != f"{{{SVG}}}svg":
        raise ValueError("not an SVG drawing")
    _pare(root, ident)
    if not layout:
        for name in ("width", "height"):
            root.attrib.pop(name, None)
    root.set("class", f"chart vega chart-{layout}" if layout else "chart vega")
    root.set("role", "img")
    root.set("aria-labelledby", f"{ident}-t {ident}-d")
    desc = etree.Element(f"{{{SVG}}}desc", id=f"{ident}-d")
    desc.text = _NOT_XML.sub("", description)
    head = etree.Element(f"{{{SVG}}}title", id=f"{ident}-t")
    head.text = _NOT_XML.sub("", title)
    root.insert(0, desc)
    root.insert(0, head)
    text = etree.tostring(root, encoding="unicode")
    return Markup(text.replace(' xmlns:xlink="http://www.w3.org/1999/xlink"', ""))


def _pare(element: Any, ident: str) -> None:
    """Keep the allowed, in the SVG namespace; ids (clip paths) made unique to the chart,
    as a page holds several."""
    for child in list(element):
        tag = child.tag if isinstance(child.tag, str) else ""
        if not tag.startswith(f"{{{SVG}}}") or _local(tag) not in ELEMENTS:
            element.remove(child)
            continue
        _pare(child, ident)
    for name in list(element.attrib):
        value = element.attrib[name]
        if name not in ATTRIBUTES or "url(" in value and not _URL_REF.match(value):
            del element.attrib[name]
        elif name == "id":
            element.set(name, f"{ident}-{value}")
        elif value.startswith("url(#"):
            element.set(name, f"url(#{ident}-{value[5:]}")


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]
