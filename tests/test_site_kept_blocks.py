"""A template's kept blocks (`{% kept key %}…{% endkept %}`, `pages/kept_blocks.py`): made
once for each key in a build, and made again after a save only where the key is new or the
block read what the save changed. Each block made is counted, and every page held to what a
build that keeps nothing writes."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import BUNDLED
from jinja2 import DictLoader, Environment
from jinja2.exceptions import TemplateRuntimeError

from sourcebook.incremental import Memos, SharedMemo
from sourcebook.pipeline import build
from sourcebook.publish.site.pages.kept_blocks import KeptBlocks
from sourcebook.publish.site.pages.reach import RecordSandbox

LISTED = "{% for x in xs %}{% kept x % 3 %}[{{ x | made }}]{% endkept %}{% endfor %}"


def rendered(env: Environment, source: str, **context: Any) -> tuple[str, list[Any]]:
    made: list[Any] = []

    def noted(x: Any) -> Any:
        made.append(x)
        return x

    env.filters["made"] = noted  # a filter: what a record's sandbox lets a template call
    env.loader = DictLoader({"page.html": source})
    return env.get_template("page.html").render(**context), made


@pytest.mark.parametrize("kind", [Environment, RecordSandbox])
def test_a_kept_block_is_made_once_for_each_key(kind: type[Environment]) -> None:
    """In the built-in templates' environment and in a record's sandbox alike."""
    env = kind(extensions=[KeptBlocks], autoescape=True)
    env.kept_blocks = SharedMemo()  # type: ignore[attr-defined]
    shown, made = rendered(env, LISTED, xs=list(range(7)))
    assert made == [0, 1, 2]
    assert shown == "[0][1][2][0][1][2][0]"  # a block shows what its key says
    env.kept_blocks = None  # type: ignore[attr-defined]
    shown, made = rendered(env, LISTED, xs=list(range(4)))
    assert (shown, made) == ("[0][1][2][3]", [0, 1, 2, 3])  # nothing kept: each made


@pytest.mark.parametrize("kind", [Environment, RecordSandbox])
def test_a_key_that_is_no_value_to_compare_is_an_error_at_its_block(
    kind: type[Environment],
) -> None:
    env = kind(extensions=[KeptBlocks], autoescape=True)
    env.kept_blocks = SharedMemo()  # type: ignore[attr-defined]
    with pytest.raises(TemplateRuntimeError, match="key at line 2 is no value to compare"):
        rendered(env, "\n{% kept [1, 2] %}x{% endkept %}")


def test_two_blocks_with_the_same_values_are_kept_apart() -> None:
    """A block's key holds its template and line: two blocks keyed alike show their own."""
    env = Environment(extensions=[KeptBlocks])
    env.kept_blocks = SharedMemo()  # type: ignore[attr-defined]
    shown, _ = rendered(env, "{% kept 1 %}a{% endkept %}{% kept 1 %}b{% endkept %}")
    assert shown == "ab"


@pytest.fixture
def bundled(tmp_path: Path) -> Path:
    root = tmp_path / "record"
    shutil.copytree(BUNDLED, root, ignore=shutil.ignore_patterns("_site", ".sourcebook-cache"))
    return root


def test_a_save_makes_again_only_the_rows_that_show_what_it_changed(
    bundled: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[tuple[Any, ...]] = []
    kept_block = KeptBlocks._kept

    def counted(self: KeptBlocks, key: tuple[Any, ...], caller: Any) -> Any:
        def make() -> Any:
            made.append(key)
            return caller()

        return kept_block(self, key, make)

    monkeypatch.setattr(KeptBlocks, "_kept", counted)
    out, clean = tmp_path / "site", tmp_path / "clean"
    kept = Memos.in_memory(serving=True)
    build(bundled, out, search=False, jobs=1, kept=kept)
    every = len(made)
    assert every >= 20
    campus = bundled / "campuses" / "colossus-2.md"
    for old, new in [
        ("title: Colossus 2", "title: Colossus Two"),  # its rows, and its item of the list
        ("location: Memphis, Tennessee", "location: Memphis, TN"),  # shown in no block
    ]:
        text = campus.read_text(encoding="utf-8")
        assert old in text
        campus.write_text(text.replace(old, new, 1), encoding="utf-8")
        made.clear()
        assert build(bundled, out, search=False, jobs=1, kept=kept).site is not None
        assert len(made) < every // 4, made
        for key in made:  # the campus's own rows, and the rows of its parties
            shown = _keys(key)
            assert ("campus", "colossus-2") in shown or shown <= AT_COLOSSUS_2, key
        shutil.rmtree(clean, ignore_errors=True)
        build(bundled, clean, search=False, jobs=1, kept=Memos.in_memory())
        for page in ("machine", "ledger", "parties"):
            shown = f"vol1/{page}/index.html"
            assert (out / shown).read_bytes() == (clean / shown).read_bytes()
    for page in ("machine", "ledger", "parties"):
        assert "Colossus Two" in (out / f"vol1/{page}/index.html").read_text(encoding="utf-8")


AT_COLOSSUS_2 = {("party", "xai"), ("party", "tesla")}
"""The parties the campus names: their rows of the parties' page name it."""


def _keys(value: Any) -> set[Any]:
    """Every entity key (a kind and an id) a block's key holds, at any depth."""
    if isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, str) for v in value):
        return {value}
    if isinstance(value, tuple):
        return set().union(*(_keys(v) for v in value)) if value else set()
    return set()
