"""Each quote of a source's annotation carries its verification on the Sources pages."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import BUNDLED
from selectolax.lexbor import LexborHTMLParser as HTMLParser


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "sourcebook", "build", str(BUNDLED), "--out", str(out), "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return out / "vol1"


def quotes(page, anchor):
    tree = HTMLParser(page.read_text(encoding="utf-8"))
    entry = tree.css_first(f"#{anchor}")
    return entry.css("span.quote")


def test_a_captured_sources_quotes_are_marked_verified_with_their_shelf(site):
    found = quotes(site / "sources" / "press" / "index.html", "tweaktown-xai-colossus-200k")
    assert found
    for span in found:
        assert span.attributes["data-proof"] == "verified"
        assert span.attributes["title"].startswith("Found in Library S")
        assert span.text().startswith("“") and span.text().endswith("”")


def test_quotes_of_a_source_with_no_copy_say_so(site):
    found = quotes(site / "sources" / "press" / "index.html", "bloomberg-moonshot-alibaba-jul26")
    assert found
    assert {s.attributes["data-proof"] for s in found} == {"unverifiable"}
