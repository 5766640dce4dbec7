"""The record's charts as a page shows them: each drawn once per build at the page's width
and again at a phone's, in the build's colours (`palette.py`); its data as a table
(figures named and linked to their rows) and as CSV.

The drawing is started as soon as the data is known and goes on beside the pages that do
not show it (`start`); the pages that do are written once it is done (`finish`)."""

from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path
from typing import Any, NamedTuple

from markupsafe import Markup

from sourcebook.derive import Derived
from sourcebook.derive.charts import ChartData
from sourcebook.incremental import Table, read_field
from sourcebook.model.figures import Placed, placed
from sourcebook.model.kinds import Chart
from sourcebook.model.record import Record
from sourcebook.model.units import shown
from sourcebook.publish.site.drawing.palette import Palette
from sourcebook.publish.site.drawing.vega import (
    NARROW,
    WIDE,
    ChartRenderError,
    Drawing,
    full_spec,
    inline_svg,
)
from sourcebook.publish.site.pages.urls import Urls
from sourcebook.publish.site.view.wording import day, number

FIGURE_COLUMNS = ("figure", "figures")
"""Columns whose values are figure ids (several comma-separated): named and linked in the
table."""
PHONE = " (drawn at a phone's width)"
"""Said of the narrow drawing of a chart, where it is the one that fails."""
_DAY = re.compile(r"^\d{4}-\d{2}(-\d{2})?$")


class Cell(NamedTuple):
    """A cell of a chart's table: its value, whether that is a number, and, in a column of
    figure ids, each figure as the table names it (its owner, value and day; its id where
    the record holds no such figure) and the URL of its row ('' where it has none)."""

    value: Any
    numeric: bool = False
    figures: tuple[tuple[str, str], ...] | None = None


class DrawnCharts:
    def __init__(self, record: Record, derived: Derived, urls: Urls, kept: Path | None = None):
        self.record = record
        self.urls = urls
        self.kept = kept
        """Where the drawings are kept between builds (see `vega.Drawing`); None: nowhere."""
        self._data = {d.chart: d for d in derived.charts}
        self._svg: dict[str, Markup] = {}
        self._raw: dict[str, str] = {}
        self._figures: dict[str, Placed] | None = None
        self.named_figures: Table[str, FigureNamed | None] = Table(
            ("figure",), self._all_named, make=self._one_named
        )
        """What names each figure of a campus or party, by its id (a reader's name for it
        reads its owner's title and page besides, not the owner's every field)."""
        self._pages: Table[tuple[str, str], str] = Table(("url",), make=self._page)
        self.palette = Palette.of(derived.campus_order)
        """The colours of this build's charts: one per campus, in every chart."""
        self._drawing: Drawing | None = None
        self._owner = os.getpid()

    def start(self) -> None:
        """Start drawing every chart that has data, in a child process: each at the page's
        width, then each at a phone's."""
        wide, narrow = [], []
        for chart in self.charts():
            data = self._data.get(chart.id)
            if data is not None and data.error is None:
                rows = [self._named(row) for row in data.records()]
                wide.append((chart.id, full_spec(chart.spec, rows, self.palette, WIDE)))
                narrow.append((chart.id + PHONE, full_spec(chart.spec, rows, self.palette, NARROW)))
        self._drawing = Drawing(wide + narrow, self.kept)
        self._owner = os.getpid()

    def _named(self, row: dict[str, Any]) -> dict[str, Any]:
        """A row of a chart's data as its drawing shows it: figures by name, not by id, so
        that what a mark says to a screen reader names them as the table does."""
        for column in FIGURE_COLUMNS:
            if isinstance(row.get(column), str):
                ids = [f.strip() for f in row[column].split(",") if f.strip()]
                row[column] = "; ".join(self.figure_name(f) for f in ids)
        return row

    def finish(self) -> None:
        """Wait for the drawings; raises ChartRenderError naming a chart that cannot be."""
        drawing, self._drawing = self._drawing, None
        if drawing is None:
            return
        try:
            drawn = drawing.result()
        except ChartRenderError as exc:
            if exc.chart.endswith(PHONE):
                raise ChartRenderError(exc.chart.removesuffix(PHONE), exc.reason + PHONE) from None
            raise
        for chart_id, raw in drawn.items():
            if chart_id.endswith(PHONE):
                continue
            wide = self._inline(chart_id, raw, "wide")
            narrow = self._inline(chart_id, drawn[chart_id + PHONE], "narrow")
            self._svg[chart_id] = Markup(f"{wide}\n{narrow}")
            self._raw[chart_id] = str(self._inline(chart_id, raw, ""))

    def _inline(self, chart_id: str, raw: str, layout: str) -> Markup:
        """A drawing as a page holds it: pared, titled, and, for a page's `wide` or
        `narrow` layout, at its own size, which the stylesheet shows at one width or the
        other (`charts.css`)."""
        chart = self.chart(chart_id)
        try:
            return inline_svg(
                raw,
                ident=f"chart-{chart_id}" + (f"-{layout}" if layout == "narrow" else ""),
                title=chart.title,
                description=chart.description,
                layout=layout,
            )
        except ValueError as exc:
            raise ChartRenderError(chart_id, f"its drawing is not SVG ({exc})") from None

    def close(self) -> None:
        """Stop drawing, where the build ends before it waited."""
        if self._drawing is not None:
            self._drawing.close()
            self._drawing = None

    def charts(self) -> list[Chart]:
        return [c for c in self.record.of("chart") if isinstance(c, Chart)]

    def chart(self, chart_id: str) -> Chart:
        found = self.record.get("chart", chart_id)
        assert isinstance(found, Chart)
        return found

    def data(self, chart: Chart) -> ChartData | None:
        return self._data.get(chart.id)

    def svg(self, chart: Chart) -> Markup:
        self._drawn()
        return self._svg.get(chart.id, Markup(""))

    def svg_text(self, chart_id: str) -> str | None:
        """The page-wide drawing as a file of its own (the paper's PDF embeds it)."""
        self._drawn()
        return self._raw.get(chart_id)

    def _drawn(self) -> None:
        """The drawings, waited for where they are still being drawn. A page worker, forked
        from the build, cannot wait for them: the pages that show them are written after."""
        if self._drawing is not None:
            if os.getpid() != self._owner:
                raise ChartRenderError(
                    "?",
                    "a chart is shown only on the pages written after the drawing "
                    "(pages.DRAWN_TEMPLATES: the observatory, the paper and its PDF)",
                )
            self.finish()

    def headings(self, chart: Chart) -> list[str]:
        """Each column's heading: the title the spec gives its field, else its name."""
        data = self._data.get(chart.id)
        titles = _titles(chart.spec)
        return [titles.get(c) or c for c in data.columns] if data else []

    def cells(self, chart: Chart, row: tuple[Any, ...]) -> list[Cell]:
        """A row of the chart's table, a cell per column (see the `chart_cell` macro)."""
        data = self._data[chart.id]
        return [self._cell(c, v) for c, v in zip(data.columns, row, strict=True)]

    def _cell(self, column: str, value: Any) -> Cell:
        if value is None:
            return Cell("—")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return Cell(number(value), numeric=True)
        if column in FIGURE_COLUMNS:
            ids = [f.strip() for f in str(value).split(",") if f.strip()]
            return Cell("", figures=tuple((self.figure_name(f), self.figure_url(f)) for f in ids))
        if isinstance(value, str) and _DAY.match(value):
            return Cell(day(value))
        return Cell(value)

    def figure_url(self, figure: str) -> str:
        """The row of a figure (by its id) on its owner's page; '' where it has none."""
        found = self.named_figures.get(figure)
        if found is None:
            return ""
        return f"{self._pages[found.owner]}#figure-{figure}"

    def figure_name(self, figure: str) -> str:
        """A figure (by its id) as a reader names it: its owner, its value and the time it
        describes ('Colossus 1, 150 MW as of 2025'); its id where the record has none."""
        found = self.named_figures.get(figure)
        owner = Record.get(self.record, *found.owner) if found is not None else None
        if found is None or owner is None:
            return figure
        value = shown(found.value, found.unit)
        value = f"{found.qualifier} {value}" if found.qualifier else value
        return f"{read_field(owner, 'title')}, {value} as of {day(found.as_of)}"

    def _placed(self) -> dict[str, Placed]:
        """Each figure of a campus or party, by id (read through `_named_figures`)."""
        if self._figures is None:
            self._figures = {
                p.id: p
                for kind in ("campus", "party")
                for owner in Record.of(self.record, kind)
                for p in placed(owner)
            }
        return self._figures

    def _one_named(self, figure: str) -> FigureNamed | None:
        found = self._placed().get(figure)
        return _named_figure(found) if found is not None else None

    def _all_named(self) -> dict[str, FigureNamed | None]:
        return {figure: _named_figure(p) for figure, p in self._placed().items()}

    def _page(self, owner: tuple[str, str]) -> str:
        entity = Record.get(self.record, *owner)
        return self.urls.entity(entity) if entity is not None else ""

    def csv(self, chart: Chart) -> str:
        """The chart's data as CSV: a header of its columns, then its rows as the query
        gave them."""
        data = self._data.get(chart.id)
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        if data is not None:
            writer.writerow(data.columns)
            writer.writerows(["" if v is None else v for v in row] for row in data.rows)
        return out.getvalue()


def _titles(spec: Any) -> dict[str, str]:
    """field → the title an encoding gives it, wherever in the spec."""
    found: dict[str, str] = {}
    if isinstance(spec, dict):
        if isinstance(spec.get("field"), str) and isinstance(spec.get("title"), str):
            found.setdefault(spec["field"], spec["title"])
        for value in spec.values():
            for k, v in _titles(value).items():
                found.setdefault(k, v)
    elif isinstance(spec, list):
        for value in spec:
            for k, v in _titles(value).items():
                found.setdefault(k, v)
    return found


class FigureNamed(NamedTuple):
    """What a reader's name for a figure says of it, besides its owner's title."""

    owner: tuple[str, str]
    qualifier: str | None
    value: float
    unit: str
    as_of: Any


def _named_figure(found: Placed) -> FigureNamed:
    f = found.figure
    return FigureNamed(found.owner.key, f.qualifier, f.value, f.unit, f.as_of)
