"""Each entity's compiled rows kept from run to run: an unchanged entity's rows are taken
as they were, an edited one's made again, and the database is always the one a compile
from nothing makes, byte for byte."""

from __future__ import annotations

import marshal
import sqlite3
from pathlib import Path

import pytest
from conftest import term

from sourcebook.compile import fill
from sourcebook.diagnostics import Diagnostics
from sourcebook.incremental import COMPILED, Memo, Memos, Store
from sourcebook.pipeline import check, read_and_link

FILES = {
    "terms/gpu.md": term("GPU", extra="aliases: [graphics processor]\n", body="A chip.\n"),
    "terms/hbm.md": term("HBM", body="Memory stacked beside the GPU.\n"),
    "sources/s.md": "---\ntitle: S\ncategory: press\ndate: 2026-01-02\n---\n",
}


def _image(root: Path, kept: Memos) -> bytes:
    checked = check(root, kept=kept)
    assert checked.image is not None
    return checked.image


def _fresh(root: Path) -> bytes:
    return _image(root, Memos.in_memory())


def test_unchanged_rows_are_taken_as_kept(make_record):
    root = make_record(FILES)
    first = _image(root, Memos.open(root))
    kept = Memos.open(root)
    assert _image(root, kept) == first == _fresh(root)
    assert kept.compiled.hits == 4 and kept.compiled.misses == 0


def test_an_edited_entity_alone_is_made_again(make_record):
    root = make_record(FILES)
    _image(root, Memos.open(root))
    (root / "terms/hbm.md").write_text(term("HBM", extra="aliases: [stacked memory]\n"))
    kept = Memos.open(root)
    edited = _image(root, kept)
    assert kept.compiled.hits == 3 and kept.compiled.misses == 1
    assert edited == _fresh(root)


def test_serve_keeps_them_in_memory(make_record):
    root = make_record(FILES)
    kept = Memos.in_memory(serving=True)
    first = _image(root, kept)
    assert _image(root, kept) == first
    (root / "terms/gpu.md").write_text(term("GPU", body="A chip that multiplies.\n"))
    assert _image(root, kept) == _fresh(root) != first


def test_with_and_without_the_search_index_the_kept_values_serve_both(make_record):
    root = make_record(FILES)
    record, graph = read_and_link(root, None, Diagnostics())
    assert record is not None
    kept = Memo(COMPILED)
    for search in (True, False, True):
        with_kept, fresh = sqlite3.connect(":memory:"), sqlite3.connect(":memory:")
        fill(with_kept, record, graph, None, search=search, kept=kept)
        fill(fresh, record, graph, None, search=search)
        assert with_kept.serialize() == fresh.serialize()
    assert kept.misses == 4 and kept.hits == 8  # the first compile's values, used twice


@pytest.mark.parametrize(
    "spoiled",
    [
        ((), 3, None),  # no columns
        ((1, {"a": 1}), 3, None),  # a value SQLite cannot hold
        (("a", "b"), "three", None),  # a line that is not a number
        "not rows",
    ],
)
def test_spoiled_rows_are_not_trusted(make_record, spoiled):
    root = make_record(FILES)
    _image(root, Memos.open(root))
    kept_file = Store.of(root).folder(COMPILED) / "kept.marshal"
    entries = marshal.loads(kept_file.read_bytes())
    kept_file.write_bytes(marshal.dumps({key: marshal.dumps(spoiled) for key in entries}))
    assert _image(root, Memos.open(root)) == _fresh(root)
    again = Memos.open(root)  # the rows made again were kept in their place
    assert _image(root, again) == _fresh(root) and again.compiled.hits == 4
