"""Properties of what parses and edits: the entity-file editor and the quote finder."""

from __future__ import annotations

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sourcebook.interchange.editor import EntityFile
from sourcebook.link.prose import quote_spans
from sourcebook.read.frontmatter import RecordLoader, split

ORIGINAL = """\
---
# kept: a comment before the title
title: A source   # and one after it
category: press
annotation: >-
  Folded prose
  over two lines.

urls:
- https://example.com/a
library: [S1]
---
The body, byte for byte.
"""

TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from("\n:#'\"-[]{}"),
    max_size=40,
)
VALUE = TEXT | st.lists(TEXT, max_size=3) | st.none()


def front_matter(text: str) -> dict:
    """The file's front matter, found as the record's reader finds it."""
    return yaml.load(split(text, "x.md")[0], Loader=RecordLoader)  # noqa: S506


@settings(max_examples=200, deadline=None)
@given(key=st.sampled_from(["title", "doi", "urls", "pages", "annotation"]), value=VALUE)
@example(key="title", value="0000")  # looks like a year, reads as a number unless quoted
def test_setting_a_field_changes_that_field_alone(key: str, value: object) -> None:
    edited = EntityFile(ORIGINAL)
    edited.set(key, value)
    text = edited.text()
    front = front_matter(text) or {}
    expected = None if value in (None, "", []) else value
    assert front.get(key) == expected
    for other in ("category", "library", "urls", "title"):
        if other != key:
            assert front[other] == front_matter(ORIGINAL)[other]
    assert text.endswith("---\nThe body, byte for byte.\n")
    if key != "title":
        assert "title: A source   # and one after it\n" in text
    assert text.startswith("---\n# kept: a comment before the title\n")


@given(st.text(alphabet="ab “”\n", max_size=60))
def test_quote_spans_are_disjoint_and_each_opens_and_closes(text: str) -> None:
    found = quote_spans(text)
    last = -1
    for start, end in found.spans:
        assert start > last and text[start] == "“" and text[end - 1] == "”"
        last = end - 1
    if not found.unbalanced:
        assert text.count("“") == text.count("”")


WORDS = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"))
    | st.sampled_from(":#'\"-[]{}“”"),
    min_size=1,
    max_size=30,
).map(lambda text: " ".join(text.split()))


@settings(max_examples=200, deadline=None)
@example(layout="", words=["---"])  # a line of the prose that looks like the fence, indented
@given(
    layout=st.sampled_from(
        ["", "annotation: plain words\n", "annotation: >-\n  Folded\n  text.\n"]
    ),
    words=st.lists(WORDS.filter(bool), min_size=1, max_size=3),
)
def test_appending_to_prose_keeps_what_was_there(layout: str, words: list[str]) -> None:
    original = f"---\ntitle: T\n{layout}category: press\n---\nBody.\n"
    edited = EntityFile(original)
    before = str(edited.get("annotation") or "")
    for added in words:
        edited.append_prose("annotation", added)
    front = front_matter(edited.text())
    assert front["annotation"] == " ".join([before, *words]).strip()
    assert front["category"] == "press" and front["title"] == "T"


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    prefix=st.text(
        st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from(" \t\n"), max_size=40
    ),
    suffix=st.text(
        st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from(" \t\n"), max_size=40
    ),
)
def test_highlight_edges_are_kept_byte_for_byte(tmp_path_factory, prefix: str, suffix: str) -> None:
    import json as json_

    from sourcebook.diagnostics import Diagnostics
    from sourcebook.interchange.highlights import plan_highlights, write_highlights
    from sourcebook.interchange.hypothesis import read_hypothesis
    from sourcebook.read import read_record

    root = tmp_path_factory.mktemp("edges")
    (root / "sourcebook.toml").write_text('[book]\ntitle = "B"\nhouse = "H"\n', "utf-8")
    (root / "sources").mkdir()
    (root / "sources" / "s.md").write_text(
        "---\ntitle: S\ncategory: press\nurls: [https://example.com/a]\n---\n", "utf-8"
    )
    selector = {"type": "TextQuoteSelector", "exact": "words", "prefix": prefix, "suffix": suffix}
    export = {
        "annotations": [
            {"id": "a1", "uri": "https://example.com/a", "target": [{"selector": [selector]}]}
        ]
    }
    path = root / "export.json"
    path.write_text(json_.dumps(export), "utf-8")
    write_highlights(root, plan_highlights(root, read_hypothesis(path).highlights))
    record = read_record(root, Diagnostics())
    (highlight,) = record.get("source", "s").highlights
    assert (highlight.prefix, highlight.suffix) == (prefix, suffix)
