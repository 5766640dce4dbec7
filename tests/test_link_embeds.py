"""Embeds, `![[kind:id|what]]`, as link finds them: what a plain regular expression finds,
in one pass of `str.find` whatever the text holds."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from sourcebook.link import markdown
from sourcebook.link.prose import Embed, embed_at, embeds

REFERENCE = re.compile(r"!\[\[([^\[\]\n]*)\]\]")
"""What an embed is, as the simplest pattern says it (its inside checked apart)."""


def reference(text: str) -> list[tuple[int, int]]:
    found = []
    for match in REFERENCE.finditer(text):
        named, bar, what = match[1].partition("|")
        target = named.partition(":")[2] if ":" in named else named
        if target.strip() and not (bar and not what.strip()):
            found.append(match.span())
    return found


PIECES = st.sampled_from(["![[", "]]", "[", "]", "|", ":", "!", "\n", " ", "campus", "x-1"])


@given(st.lists(PIECES, max_size=40).map("".join))
def test_embeds_are_what_the_plain_pattern_finds(text: str) -> None:
    assert [(e.start, e.end) for e in embeds(text)] == reference(text)


@given(st.text(alphabet="![]|:\n ab", max_size=60))
def test_embeds_on_any_text(text: str) -> None:
    assert [(e.start, e.end) for e in embeds(text)] == reference(text)


def test_an_embed_is_read_into_its_parts() -> None:
    text = "runs ![[ campus:colossus-2 | power ]] and ![[row-11]]"
    assert embeds(text) == [
        Embed(5, 37, "campus", "colossus-2", "power"),
        Embed(42, 53, None, "row-11", None),
    ]
    assert embed_at(text, 5, 20) is None  # cut short before it closes


def test_openings_that_never_close_are_each_passed_once() -> None:
    text = "![[" * 50_000 + "x]]"
    assert [(e.start, e.end) for e in embeds(text)] == [(len(text) - 6, len(text))]


def test_a_text_with_an_embed_reads_as_markdown() -> None:
    assert markdown.plain_marks("runs [[campus:x]] now") is not None
    assert markdown.plain_marks("runs ![[campus:x|power]] now") is None
