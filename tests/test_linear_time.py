"""Every scanner of record text takes time in proportion to the text.

Each case doubles an input built to make a scanner read the same characters again and
again (an opening that nothing closes, repeated), from 64 KB to 1 MB, and compares the
time at each size with the time at the first, measured in the same test: a linear
scanner takes about 16 times as long on 1 MB, a quadratic one 256 times. The margin is
four times the linear growth. Time is the processor time of this thread, each size's
fastest of a few runs: a machine loaded with other work does not lengthen it, where the
time on the clock would grow with the runs it was interrupted for, and so with the size.
A quadratic scanner fails by 512 KB.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from sourcebook.diagnostics import Diagnostics
from sourcebook.library import markup
from sourcebook.library.match import locate
from sourcebook.library.nearest import nearest
from sourcebook.library.normalize import compile_quote
from sourcebook.link import markdown, prose
from sourcebook.read.house import _volume_lines
from sourcebook.read.library import read_library
from sourcebook.read.settings import validated

SIZES = tuple((64 * 1024) << doubling for doubling in range(5))
"""64 KB, 128 KB, 256 KB, 512 KB, 1 MB."""
MARGIN = 4.0
"""How much more than linear growth a size may take over the first."""


def _fastest(scan: Callable[[str], object], text: str, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.thread_time()
        scan(text)
        best = min(best, time.thread_time() - started)
    return best


def assert_linear(scan: Callable[[str], object], unit: str) -> None:
    """`scan` over `unit` repeated to each of SIZES grows at most about linearly."""
    gc.collect()
    gc.disable()  # a collection during one size's run would charge it the others' garbage
    try:
        times = []
        for size in SIZES:
            text = unit * (size // len(unit))
            times.append(_fastest(scan, text, 5 if size == SIZES[0] else 2))
            grown = size / SIZES[0]
            assert times[-1] <= MARGIN * grown * times[0], (
                f"{size:,} bytes took {times[-1] / times[0]:.0f} times as long as "
                f"{SIZES[0]:,} (linear: {grown:.0f})"
            )
    finally:
        gc.enable()


# Prose: link's marks, and the regions no name is looked for in.


@pytest.mark.parametrize(
    "unit",
    [
        pytest.param("](", id="link targets"),
        pytest.param("<a://", id="angle addresses"),
        pytest.param("](<a://www.a", id="every form at once"),
        pytest.param("http://x<a://", id="a bare address swallowing openings"),
    ],
)
def test_addresses(unit: str) -> None:
    assert_linear(prose.urls, unit)


@pytest.mark.parametrize(
    "unit",
    [
        pytest.param("[[", id="unclosed wiki links"),
        pytest.param("[[a|", id="unclosed wiki links with shown text"),
        pytest.param("[@", id="unclosed citations"),
        pytest.param("[", id="unclosed brackets"),
        pytest.param("“", id="unclosed quotation marks"),
        pytest.param("[“a”]{.scare}“", id="unbalanced marks among marked spans"),
        pytest.param("`", id="unclosed code"),
    ],
)
def test_marks(unit: str) -> None:
    assert_linear(prose.scan, unit)


@pytest.mark.parametrize("unit", ["](", "<a://", "`a"])
def test_masked_regions(unit: str) -> None:
    assert_linear(prose.masked_regions, unit)


@pytest.mark.parametrize("unit", ["[[a]] ", "[[", "`a` "])
def test_plain_reading(unit: str) -> None:
    assert_linear(markdown.plain_marks, unit)


@pytest.mark.parametrize(
    ("head", "unit"),
    [("@a, x", " "), ("", "@a b "), ("", "@a,")],
    ids=["a locator of spaces", "items that are not", "empty locators"],
)
def test_citation_items(head: str, unit: str) -> None:
    assert_linear(lambda text: prose.cited(head + text + "y"), unit)


# The Library: quotes proved against copies, and copies read.


@pytest.mark.parametrize(
    "quote",
    ["a … b", "a-a … b", "a a … a a b"],
    ids=["ellipsis", "optional hyphen", "long parts"],
)
def test_a_quote_not_in_a_copy(quote: str) -> None:
    pattern = compile_quote(quote)
    assert_linear(lambda text: locate(pattern, text), "a ")


@pytest.mark.parametrize("tail", ["… b", "[x] b", " x"])
def test_a_quote_with_a_run_of_white_space(tail: str) -> None:
    assert_linear(lambda text: compile_quote("a" + text + tail), " ")


def test_the_nearest_passage_past_punctuation() -> None:
    assert_linear(lambda text: nearest("a b", text + " a"), ".")


@pytest.mark.parametrize("unit", ["<a ", "</a "])
def test_tags_of_a_copy(unit: str) -> None:
    assert_linear(markup.bounded, unit)


# Settings and metadata: where each of many keys stands.

LONG_KEY = "k{}" + "x" * 200 + " = 1\n"
"""A key of about two hundred bytes: a megabyte holds five thousand, each of which the lines
were once searched for from the top."""


class _Nothing(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _unknown_settings(text: str) -> None:
    keys = text.split("\n")[:-1]
    data = {key.split(" ", 1)[0]: 1 for key in keys}
    validated(_Nothing, text, data, "sourcebook.toml", Diagnostics())


def test_many_unknown_settings() -> None:
    one = LONG_KEY.format("0")

    def numbered(text: str) -> None:
        count = len(text) // len(one)
        _unknown_settings("".join(LONG_KEY.format(f"{i:06d}") for i in range(count)))

    assert_linear(numbered, one)


def test_many_unknown_fields_of_a_library_item(tmp_path: Path) -> None:
    folder = tmp_path / "library"
    folder.mkdir()
    line = "f{:06d}" + "x" * 200 + ": 1\n"

    def read(text: str) -> None:
        count = len(text) // len(line.format(0))
        (folder / "S1.yaml").write_text("".join(line.format(i) for i in range(count)))
        diagnostics = Diagnostics()
        read_library(tmp_path, ".", diagnostics)
        assert {d.code for d in diagnostics} == {"Q005"}

    assert_linear(read, line.format(0))


def test_a_house_table_line_of_spaces() -> None:
    assert_linear(lambda text: _volume_lines("[a" + text + "x\n[[volume]]\n"), " ")
