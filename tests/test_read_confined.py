"""`read.paths.Confined` resolves a path once per folder, and resolves it exactly as
`os.path.realpath` does, whatever links, dots and missing names the path holds."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sourcebook.read.paths import Confined

PARTS = ["a", "b", "file.md", "in", "out", "loop", "dangling", "missing", ".", "..", ""]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    top = tmp_path_factory.mktemp("confined")
    root = top / "record"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "file.md").write_text("x")
    (top / "outside").mkdir()
    (top / "outside" / "file.md").write_text("secret")
    os.symlink("b", root / "a" / "in")  # stays inside
    os.symlink(top / "outside", root / "a" / "out")  # leaves
    os.symlink("loop", root / "a" / "loop")
    os.symlink("nowhere", root / "a" / "dangling")
    os.symlink("../a", root / "a" / "b" / "a")
    return root


@settings(max_examples=400, deadline=None)
@example(["b", "..", "a", "in"])  # realpath reads `..` after a missing folder as text
@given(st.lists(st.sampled_from(PARTS), min_size=1, max_size=5))
def test_a_path_resolves_as_realpath_resolves_it(tree: Path, parts: list[str]) -> None:
    confined = Confined(tree)
    path = os.path.join(str(tree), *parts)
    for _ in range(2):  # the second time through the folders it resolved the first
        assert confined._real(path) == os.path.realpath(path)
        real = os.path.realpath(path)
        inside = real == confined.root or real.startswith(confined.root + os.sep)
        assert confined.holds(path) == inside


def test_a_file_through_a_link_that_leaves_is_not_held(tree: Path) -> None:
    confined = Confined(tree)
    assert confined.holds(tree / "a" / "in" / "file.md")
    assert not confined.holds(tree / "a" / "out" / "file.md")
    assert not confined.holds(tree / "a" / "out")
