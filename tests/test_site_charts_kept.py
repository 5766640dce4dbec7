"""Each chart's drawing is kept between builds under the hash of its spec: a build whose
charts did not change starts no engine, and what is kept is pared as a fresh drawing is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sourcebook.publish.site.drawing import vega
from sourcebook.publish.site.drawing.vega import Drawing, full_spec, inline_svg

SPEC = {"mark": "bar", "encoding": {"x": {"field": "a"}, "y": {"field": "b"}}}


def spec(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return full_spec(SPEC, rows)


def draw_kept(specs: list[tuple[str, dict[str, Any]]], kept: Path | None) -> dict[str, str]:
    return Drawing(specs, kept).result()


def test_an_unchanged_chart_is_taken_from_the_folder(tmp_path: Path) -> None:
    specs = [("a", spec([{"a": "x", "b": 1}])), ("b", spec([{"a": "y", "b": 2}]))]
    first = draw_kept(specs, tmp_path)
    assert set(first) == {"a", "b"} and all(s.startswith("<svg") for s in first.values())
    assert len(list(tmp_path.glob("*.svg"))) == 2
    again = Drawing(specs, tmp_path)
    assert not again.started
    assert again.result() == first


def test_a_chart_whose_data_changed_is_drawn_again_and_the_old_drawing_goes(
    tmp_path: Path,
) -> None:
    draw_kept([("a", spec([{"a": "x", "b": 1}]))], tmp_path)
    (before,) = tmp_path.glob("*.svg")
    drawn = draw_kept([("a", spec([{"a": "x", "b": 5}]))], tmp_path)
    (after,) = tmp_path.glob("*.svg")
    assert after.name != before.name and not before.exists()
    assert after.read_text(encoding="utf-8") == drawn["a"]


def test_without_a_folder_every_chart_is_drawn(tmp_path: Path) -> None:
    specs = [("a", spec([{"a": "x", "b": 1}]))]
    draw_kept(specs, None)
    drawing = Drawing(specs, None)
    assert drawing.started
    assert drawing.result()["a"].startswith("<svg")
    assert not list(tmp_path.iterdir())


def test_a_drawing_that_is_left_is_stopped() -> None:
    drawing = Drawing([("a", spec([{"a": "x", "b": 1}]))], None)
    child = drawing._child
    drawing.close()
    assert child is not None and not child.is_alive()


def test_a_kept_drawing_is_pared_as_a_fresh_one_is(tmp_path: Path) -> None:
    specs = [("a", spec([{"a": "x", "b": 1}]))]
    draw_kept(specs, tmp_path)
    (kept,) = tmp_path.glob("*.svg")
    kept.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script>'
        '<a href="javascript:x()"><circle r="1"/></a><rect width="1" onclick="x()"/></svg>',
        encoding="utf-8",
    )
    raw = draw_kept(specs, tmp_path)["a"]
    shown = str(inline_svg(raw, ident="c", title="t", description="d"))
    assert "script" not in shown and "javascript" not in shown and "onclick" not in shown
    assert "<rect" in shown and "<circle" not in shown


@pytest.mark.parametrize("rows", [[{"a": "x", "b": 1}], [{"a": "x", "b": 1.0}]])
def test_the_key_is_the_whole_spec(rows: list[dict[str, Any]]) -> None:
    assert vega._key(spec(rows)) == vega._key(spec(list(rows)))
    assert vega._key(spec(rows)) != vega._key(spec([{"a": "y", "b": 1}]))
