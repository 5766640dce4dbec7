"""The fast paths of reading give exactly what the plain ones give: front matter built in
one walk against PyYAML's constructor, and files read by forked workers against one by one."""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import pytest
import yaml
from conftest import BUNDLED
from hypothesis import given, settings
from hypothesis import strategies as st

from sourcebook.diagnostics import Diagnostics
from sourcebook.model.kinds import Term
from sourcebook.read import entities as entities_module
from sourcebook.read import frontmatter
from sourcebook.read.record import read_record

KEYS = st.sampled_from(["title", "value", "unit", "as_of", "note", "a", "b-c", "yes", "1"])
WORDS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=30)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False),
    WORDS,
    st.sampled_from(["2026-11", "2026-11-08", "0x1f", "1e3", "~", "null", "Yes", "on", ".5"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, min_size=1, max_size=4)
    ),
    max_leaves=12,
)
STYLES = st.sampled_from([None, "'", '"', "|", ">"])


def parse(text: str) -> frontmatter.Parsed | tuple:
    """The parsed file, or the error that stopped it (as code, message and position)."""
    try:
        return frontmatter.parse(text, "x.md")
    except frontmatter.FrontMatterError as exc:
        return (exc.code, exc.message, exc.pos)


def parsed_both_ways(text: str) -> tuple:
    fast = parse(text)
    original = frontmatter._Builder.build
    frontmatter._Builder.build = lambda self, node: False  # type: ignore[method-assign]
    try:
        plain = parse(text)
    finally:
        frontmatter._Builder.build = original  # type: ignore[method-assign]
    return fast, plain


def same(fast, plain) -> None:
    if isinstance(plain, tuple):
        assert fast == plain
        return
    assert fast.data == plain.data
    assert fast.places == plain.places
    assert fast.spans == plain.spans
    assert fast.duplicate_keys == plain.duplicate_keys
    assert (fast.body, fast.body_line) == (plain.body, plain.body_line)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, VALUES, min_size=1, max_size=6), STYLES)
def test_front_matter_built_in_one_walk_is_what_pyyaml_builds(data: dict, style) -> None:
    text = yaml.safe_dump(data, allow_unicode=True, default_style=style, width=40)
    same(*parsed_both_ways(f"---\n{text}---\nBody.\n"))


@pytest.mark.parametrize(
    "front",
    [
        "title: A\ntitle: B\n",  # a key given twice
        "a: &x [1, 2]\nb: *x\n",  # an alias of a collection
        "<<: {a: 1}\nb: 2\n",  # a merge key
        "a: !!binary aGk=\n",  # another tag
        "? [1, 2]\n: x\n",  # a key that is not a scalar
        "note: >-\n  folded\n  over lines\nlist:\n  - |\n    kept\n    lines\n",
    ],
)
def test_unusual_front_matter_reads_as_before(front: str) -> None:
    same(*parsed_both_ways(f"---\n{front}---\n"))


def test_files_read_by_workers_are_read_as_one_by_one(tmp_path: Path, monkeypatch) -> None:
    record = tmp_path / "record"
    shutil.copytree(BUNDLED, record, ignore=shutil.ignore_patterns("_site", "releases"))
    (record / "terms" / "broken.md").write_text("---\ntitle: [unclosed\n---\n")
    (record / "terms" / "Bad_Id.md").write_text("---\ntitle: Bad\ndefinition: x\n---\n")
    (record / "people" / "twice.md").write_text("---\ntitle: A\ntitle: B\nrole: x\n---\n")

    def read() -> tuple[list, list]:
        found = Diagnostics()
        got = read_record(record, found)
        assert got is not None
        entities = [(e.key, e.model_dump(), e.pos("title")) for e in got]
        return entities, [d.format() for d in found]

    serial = read()
    monkeypatch.setattr(entities_module, "PARALLEL_FROM", 1)
    monkeypatch.setattr(entities_module, "CHUNK", 7)
    parallel = read()
    assert parallel == serial
    said = serial[1]
    assert any("R001" in d for d in said) and any("S006" in d for d in said), said


def test_every_entity_of_the_bundled_record_pickles_back_as_it_was() -> None:
    # As the workers that read a large record send their entities back.
    record = read_record(BUNDLED, Diagnostics())
    assert record is not None
    for entity in record:
        back = pickle.loads(pickle.dumps(entity, pickle.HIGHEST_PROTOCOL))
        assert type(back) is type(entity)
        assert back == entity
        assert back.origin == entity.origin
        assert back.model_fields_set == entity.model_fields_set
        assert back.model_dump(mode="json") == entity.model_dump(mode="json")
        assert back.pos("title") == entity.pos("title") and back.body_pos == entity.body_pos
    unplaced = Term.model_validate({"id": "x", "title": "Unplaced", "definition": "None."})
    assert pickle.loads(pickle.dumps(unplaced)).origin.file == ""
