"""Reading front matter: values keep their file, line and column."""

from __future__ import annotations

import pytest

from sourcebook.read.frontmatter import FrontMatterError, parse

TEXT = """\
---
title: Cluster
aliases: [Clusters of chips, AI cluster]
definition: >
  A datacenter's worth of chips
  run as one.
parties:
  - party: xai
    roles: [owner]
---
The body starts here.
"""


def test_scalar_values_keep_their_line_and_column():
    parsed = parse(TEXT, "terms/cluster.md")
    assert str(parsed.positions[("title",)]) == "terms/cluster.md:2:8"
    assert str(parsed.positions[("aliases", 1)]) == "terms/cluster.md:3:30"


def test_block_scalar_position_is_where_its_text_starts():
    parsed = parse(TEXT, "terms/cluster.md")
    assert str(parsed.positions[("definition",)]) == "terms/cluster.md:5:3"


def test_nested_values_have_positions():
    parsed = parse(TEXT, "f.md")
    assert str(parsed.positions[("parties", 0, "party")]) == "f.md:8:12"
    assert str(parsed.positions[("parties", 0, "roles", 0)]) == "f.md:9:13"


def test_body_and_its_first_line():
    parsed = parse(TEXT, "f.md")
    assert parsed.body == "The body starts here.\n"
    assert str(parsed.body_pos) == "f.md:11:1"


def test_duplicate_keys_are_reported():
    parsed = parse("---\ntitle: a\ntitle: b\n---\n", "f.md")
    assert parsed.duplicate_keys[0][0] == "title"
    assert str(parsed.duplicate_keys[0][1]) == "f.md:3:1"


@pytest.mark.parametrize(
    ("text", "code", "where"),
    [
        ("no front matter\n", "R007", "f.md:1:1"),
        ("---\ntitle: a\n", "R008", "f.md:1:1"),
        ("---\ntitle: [a\n---\n", "R001", "f.md:2:8"),  # the bracket never closed
        ("---\n- a\n- b\n---\n", "R004", "f.md:2:1"),
        ("---\njust a scalar\n---\n", "R004", "f.md:2:1"),
        ("---\ntitle: a\n  bad: indent\n---\n", "R001", "f.md:3:6"),
    ],
)
def test_unreadable_front_matter_is_a_positioned_error(text, code, where):
    with pytest.raises(FrontMatterError) as caught:
        parse(text, "f.md")
    assert caught.value.code == code
    assert str(caught.value.pos) == where


def test_empty_front_matter_is_an_empty_mapping():
    parsed = parse("---\n---\nbody\n", "f.md")
    assert parsed.data == {}
