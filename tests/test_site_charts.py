"""Inline SVG charts: round gridlines, escaped text, nothing drawn from nothing."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser as HTMLParser

from sourcebook.publish.site.drawing.line_charts import (
    Point,
    Series,
    legend,
    line_chart,
    nice_ceiling,
)


def chart(series: list[Series]) -> str:
    return str(
        line_chart(
            series,
            title="Power <b>over</b> time",
            description="One line per status.",
            x_label=lambda x: f"{x:g}",
            y_label=lambda y: f"{y:g} MW",
            ident="c1",
        )
    )


def test_nothing_to_draw_draws_nothing() -> None:
    assert chart([]) == ""
    assert chart([Series("operating", ())]) == ""


def test_a_chart_has_its_title_points_and_gridlines() -> None:
    svg = chart([Series("operating", (Point(1, 100, "a"), Point(2, 300, "b")))])
    doc = HTMLParser(svg)
    assert doc.css_first("svg").attributes["aria-labelledby"] == "c1-t c1-d"
    assert doc.css_first("title").text() == "Power <b>over</b> time"
    assert len(doc.css("circle")) == 2 and len(doc.css("polyline")) == 1
    labels = [t.text() for t in doc.css("text")]
    assert labels[:5] == ["0 MW", "100 MW", "200 MW", "300 MW", "400 MW"]


def test_text_from_the_record_is_escaped() -> None:
    svg = chart(
        [Series("<script>alert(1)</script>", (Point(1, 1, "</title><script>x()</script>"),))]
    )
    assert "<script>" not in svg
    assert "&lt;script&gt;" in svg
    assert "<script>" not in str(legend([Series("<script>", (Point(1, 1, "a"),))]))


@given(st.floats(min_value=1e-6, max_value=1e15, allow_nan=False))
def test_the_value_axis_tops_out_at_a_round_number_above_every_value(value: float) -> None:
    top = nice_ceiling(value)
    assert top >= value * (1 - 1e-9)
    step = top / 4
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert any(abs(mantissa - m) < 1e-6 for m in (1, 2, 2.5, 5, 10))
