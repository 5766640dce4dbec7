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
import multiprocessing
import os
import re
import time
from collections.abc import Sequence
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
    "range": {
        "category": [
            "#7a2e1d",
            "#1a5fb4",
            "#2f6b2f",
            "#8a6d00",
            "#6b3fa0",
            "#3d3d3d",
            "#b5651d",
            "#0f7b7b",
            "#a33b6b",
            "#5b6e00",
        ]
    },
}
"""The house's look: its colours and type, no background (the page's shows through)."""

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


class ChartRenderError(Exception):
    """A spec that could not be drawn: its chart's id and why, for a person."""

    def __init__(self, chart: str, message: str):
        super().__init__(f"chart '{chart}': {message}")
        self.chart = chart


def full_spec(spec: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The record's spec with its data and the house's look; the spec's own config wins."""
    whole = copy.deepcopy(spec)
    whole["data"] = {"values": rows}
    whole["config"] = {**THEME, **whole.get("config", {})}
    whole.setdefault("$schema", "https://vega.github.io/schema/vega-lite/v5.json")
    return whole


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
    import vl_convert

    try:
        for _chart, spec in specs:
            try:
                out.send((True, vl_convert.vegalite_to_svg(spec)))
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


def inline_svg(raw: str, *, ident: str, title: str, description: str) -> Markup:
    """The SVG vl-convert drew, pared to the allowed elements and attributes, with its
    title and description; sized by its viewBox so that it scales to the page."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    root = etree.fromstring(raw.encode("utf-8"), parser)
    if root.tag != f"{{{SVG}}}svg":
        raise ValueError("not an SVG drawing")
    _pare(root, ident)
    for name in ("width", "height"):
        root.attrib.pop(name, None)
    root.set("class", "chart vega")
    root.set("role", "img")
    root.set("aria-labelledby", f"{ident}-t {ident}-d")
    desc = etree.Element(f"{{{SVG}}}desc", id=f"{ident}-d")
    desc.text = description
    head = etree.Element(f"{{{SVG}}}title", id=f"{ident}-t")
    head.text = title
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
