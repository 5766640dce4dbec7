"""What is made entity by entity is made again only for the entities an edit touched: the
quotes an entity's lists hold and the claims of proof its prose makes (check), and what its
link shows before it is followed (the site's previews, from save to save as `serve` keeps
them). Each is counted as it is made,
and the result held to what a run that keeps nothing makes."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import BUNDLED

from sourcebook.check import claims
from sourcebook.incremental import Memos
from sourcebook.library import verify
from sourcebook.pipeline import check
from sourcebook.publish.site.search import previews


@pytest.fixture
def bundled(tmp_path: Path) -> Path:
    root = tmp_path / "record"
    shutil.copytree(BUNDLED, root, ignore=shutil.ignore_patterns("_site", ".sourcebook-cache"))
    return root


def counted(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[Any]:
    """Each call of `module.name`, by its second argument's key (or its first's)."""
    made: list[Any] = []
    real = getattr(module, name)

    def noted(*args: Any) -> Any:
        made.append(getattr(args[-1], "key", None))
        return real(*args)

    monkeypatch.setattr(module, name, noted)
    return made


def proven(root: Path, kept: Memos | None = None) -> tuple[list[str], list[Any]]:
    checked = check(root, kept=kept)
    assert checked.proofs is not None
    shown = [d.format() for d in checked.diagnostics]
    return shown, [(p.claim, p.status, p.found, p.searched) for p in checked.proofs.proofs]


def test_an_entitys_quoted_lists_are_read_again_only_where_its_file_changed(
    bundled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    listed = counted(monkeypatch, verify, "_listed")
    first = proven(bundled)
    with_lists = len(listed)
    assert with_lists >= 5 and ("campus", "colossus-2") in listed
    listed.clear()
    assert proven(bundled) == first and listed == []
    campus = bundled / "campuses" / "colossus-2.md"
    campus.write_text(campus.read_text(encoding="utf-8") + "\nOne more sentence.\n", "utf-8")
    after = proven(bundled)
    assert listed == [("campus", "colossus-2")]
    listed.clear()
    assert proven(bundled, Memos.in_memory()) == after
    assert len(listed) == with_lists  # nothing kept: every entity's lists read


def test_an_entitys_claims_of_proof_are_looked_for_again_only_where_its_file_changed(
    bundled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    looked = counted(monkeypatch, claims, "_made_by")
    first, _ = proven(bundled)
    every = len(looked)
    assert every > 100 and not any(" C004 " in line for line in first)
    looked.clear()
    assert proven(bundled)[0] == first and looked == []
    term = bundled / "terms" / "cluster.md"
    term.write_text(term.read_text(encoding="utf-8") + "\nEvery quote is verified.\n", "utf-8")
    after, _ = proven(bundled)
    assert looked == [("term", "cluster")]
    assert [line for line in after if " C004 " in line and "terms/cluster.md" in line]
    looked.clear()
    assert proven(bundled, Memos.in_memory())[0] == after
    assert len(looked) == every


def test_a_save_makes_again_only_the_previews_that_read_what_it_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from site_fixtures import write_record
    from test_serve_equivalence import SEEDED, apply

    from sourcebook.pipeline import build

    root = write_record(tmp_path / "record", SEEDED)
    out, clean = tmp_path / "site", tmp_path / "clean"
    kept = Memos.in_memory(serving=True)
    made = counted(monkeypatch, previews, "_preview")
    build(root, out, drafts=True, search=False, jobs=1, kept=kept)
    every = len(made)
    assert every >= 10
    campus = ("campus", "colossus-2")
    for path, change, again in [
        ("campuses/colossus-2.md", ("title: Colossus 2", "title: Colossus Two"), campus),
        ("campuses/colossus-2.md", ("value: 200\n", "value: 250\n"), campus),
        ("terms/one-machine.md", ("Chips as one.", "Chips as one, and more."), None),
    ]:
        made.clear()
        apply(root, path, change)
        build(root, out, drafts=True, search=False, jobs=1, kept=kept)
        assert len(made) < every // 2, (path, change, made)
        assert again is None or again in made
        shutil.rmtree(clean, ignore_errors=True)
        build(root, clean, drafts=True, search=False, jobs=1, kept=Memos.in_memory())
        name = "vol1/previews.json"
        assert (out / name).read_bytes() == (clean / name).read_bytes()
