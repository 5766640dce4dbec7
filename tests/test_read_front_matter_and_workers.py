"""Reading: front matter as PyYAML builds it, with every value placed; files read by forked
workers as one by one; entities pickled back as they were."""

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
from sourcebook.incremental import FileDigests
from sourcebook.incremental import _fingerprint as fingerprint_module
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


def test_front_matter_reads_as_pyyaml_reads_it_with_every_value_placed() -> None:
    parsed = parse("---\ntitle: A\nnote: >-\n  folded\n  over\nlist:\n  - 1\n  - x\n---\n")
    assert not isinstance(parsed, tuple)
    assert parsed.data == {"title": "A", "note": "folded over", "list": [1, "x"]}
    assert parsed.places[("title",)] == (2, 8)
    assert parsed.places[("note",)] == (4, 3)
    assert parsed.places[("list", 1)] == (8, 5)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, VALUES, min_size=1, max_size=6), STYLES)
def test_front_matter_is_what_pyyaml_builds_and_every_value_has_a_place(data: dict, style) -> None:
    text = yaml.safe_dump(data, allow_unicode=True, default_style=style, width=40)
    parsed = parse(f"---\n{text}---\nBody.\n")
    if isinstance(parsed, tuple):  # what PyYAML cannot build is an error at its place
        assert parsed[0] == "R001"
        return
    assert parsed.data == yaml.load(text, Loader=frontmatter.RecordLoader)  # noqa: S506
    assert parsed.body == "Body.\n"
    for path in _paths(parsed.data):
        assert path in parsed.places


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _paths(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _paths(inner, (*path, index))


@pytest.mark.parametrize(
    ("front", "data"),
    [
        ("a: &x [1, 2]\nb: *x\n", {"a": [1, 2], "b": [1, 2]}),  # an alias of a collection
        ("<<: {a: 1}\nb: 2\n", {"a": 1, "b": 2}),  # a merge key
        ("a: !!binary aGk=\n", {"a": b"hi"}),  # another tag
        ("when: 2026-11-08\n", {"when": "2026-11-08"}),  # days stay text
    ],
)
def test_unusual_front_matter_reads_as_pyyaml_reads_it(front: str, data: dict) -> None:
    parsed = parse(f"---\n{front}---\n")
    assert not isinstance(parsed, tuple)
    assert parsed.data == data


def test_a_key_given_twice_is_reported_where_it_stands_again() -> None:
    parsed = parse("---\ntitle: A\nnote: x\ntitle: B\n---\n")
    assert not isinstance(parsed, tuple)
    assert [(name, pos.line, pos.col) for name, pos in parsed.duplicate_keys] == [("title", 4, 1)]


def test_files_read_by_workers_are_read_as_one_by_one(tmp_path: Path, monkeypatch) -> None:
    record = tmp_path / "record"
    shutil.copytree(BUNDLED, record, ignore=shutil.ignore_patterns("_site", "releases"))
    (record / "terms" / "broken.md").write_text("---\ntitle: [unclosed\n---\n")
    (record / "terms" / "Bad_Id.md").write_text("---\ntitle: Bad\ndefinition: x\n---\n")
    (record / "people" / "twice.md").write_text("---\ntitle: A\ntitle: B\nrole: x\n---\n")

    def read(digests: FileDigests | None = None) -> tuple[list, list]:
        found = Diagnostics()
        got = read_record(record, found, digests=digests)
        assert got is not None
        entities = [(e.key, e.model_dump(), e.pos("title")) for e in got]
        return entities, [d.format() for d in found]

    # as if every file had long settled: each hash is kept (the workers' too)
    monkeypatch.setattr(fingerprint_module, "RACY_NS", -(10**12))
    serial_digests, parallel_digests = FileDigests(), FileDigests()
    serial = read(serial_digests)
    monkeypatch.setattr(entities_module, "PARALLEL_FROM", 1)
    monkeypatch.setattr(entities_module, "CHUNK", 7)
    parallel = read(parallel_digests)
    assert parallel == serial
    # the hashes each worker noted are the process's, as reading one by one notes them
    assert parallel_digests.noted() == serial_digests.noted()
    assert len(serial_digests.noted()) == serial_digests.read > 100
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
