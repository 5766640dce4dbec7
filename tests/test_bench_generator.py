"""The benchmark's record generator: deterministic, error-free, and realistic enough to link."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import run
from test_site_build import snapshot

from sourcebook.link.names import plural_forms
from sourcebook.pipeline import Checked, build_site, check
from sourcebook.publish.site.pages import render

GENERATOR = Path(__file__).resolve().parent.parent / "bench" / "generate.py"
N = 300


def _load_generator():
    spec = importlib.util.spec_from_file_location("bench_generate", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


gen = _load_generator()


def _files(root: Path) -> dict[str, bytes]:
    """Every file of a generated record, leaving out the cache that check writes there."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and gen.CACHE not in p.relative_to(root).parts
    }


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bench") / "record"
    gen.generate(N, root, seed=0)
    return root


@pytest.fixture(scope="module")
def checked(record: Path) -> Checked:
    return check(record)


def test_same_seed_gives_identical_bytes(record: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    gen.generate(N, again, seed=0)
    assert _files(again) == _files(record)


def test_same_seed_gives_identical_bytes_in_another_process(record: Path, tmp_path: Path) -> None:
    """No output depends on the order of a set, which changes with the hash seed."""
    elsewhere = tmp_path / "elsewhere"
    command = [sys.executable, str(GENERATOR), str(N), str(elsewhere), "--seed", "0"]
    subprocess.run(
        command, check=True, capture_output=True, env={**os.environ, "PYTHONHASHSEED": "7"}
    )
    assert _files(elsewhere) == _files(record)


def test_another_seed_gives_another_record(record: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    gen.generate(N, other, seed=1)
    assert _files(other) != _files(record)


def test_record_has_the_asked_size_and_proportions(checked: Checked) -> None:
    assert checked.record is not None
    assert len(checked.record) == N
    sizes = {kind: len(table) for kind, table in checked.record.entities.items()}
    wanted = gen.counts(N)
    assert {kind: sizes.get(kind, 0) for kind in wanted} == wanted
    assert sum(sizes.values()) == N  # kinds the generator does not write stay empty
    assert sizes["chapter"] >= 10
    assert sizes["source"] > sizes["term"] > sizes["campus"]


def test_record_checks_with_no_errors(checked: Checked) -> None:
    errors = [d.format() for d in checked.diagnostics.errors]
    assert errors == []
    assert checked.ok


def test_no_two_names_collide_or_are_plurals_of_each_other(checked: Checked) -> None:
    assert checked.record is not None
    same_as = {
        frozenset((term.key, tuple(term.same_as.split(":", 1))))
        for term in checked.record.of("term")
        if term.same_as
    }
    owners: dict[str, tuple[str, str]] = {}
    for kind in ("term", "campus", "person", "party"):
        for entity in checked.record.of(kind):
            for name in entity.names():
                for form in plural_forms(name.strip().casefold()):
                    first = owners.setdefault(form, entity.key)
                    assert first == entity.key or frozenset((first, entity.key)) in same_as, (
                        f"{entity.key} {name!r} collides with {first}"
                    )
    codes = {d.code for d in checked.diagnostics}
    assert not codes & {"L004", "L007"}


def test_every_kind_of_reference_is_found(checked: Checked) -> None:
    by_via = Counter(ref.via for ref in checked.graph.refs)
    assert by_via["mention"] > N
    assert by_via["wiki"] > 0 and by_via["cite"] > 0 and by_via["field"] > 0
    mentioned = {ref.target[0] for ref in checked.graph.refs if ref.via == "mention"}
    assert mentioned == {"term", "campus", "person", "party"}


def test_quotes_stand_in_their_sources_and_library_copies(record: Path, checked: Checked) -> None:
    assert checked.record is not None
    claims = [(c.source, c.text) for c in checked.graph.quotes]
    for campus in checked.record.of("campus"):
        claims += [(f.source, f.quote) for f in campus.figures if f.source is not None]
    held = 0
    for source_id, text in claims:
        source = checked.record.get("source", source_id)
        assert source is not None and text in source.annotation
        for shelf in source.library:
            held += 1
            assert text in (record / "library" / f"{shelf}.txt").read_text(encoding="utf-8")
    assert len(claims) > N and held > len(claims) / 2


def test_refuses_a_folder_it_did_not_write(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(FileExistsError):
        gen.generate(N, tmp_path)
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_rewrites_its_own_record_in_place(tmp_path: Path) -> None:
    gen.generate(N, tmp_path / "r", seed=2)
    gen.generate(N, tmp_path / "r", seed=0)
    fresh = tmp_path / "fresh"
    gen.generate(N, fresh, seed=0)
    assert _files(tmp_path / "r") == _files(fresh)


def test_too_small_a_record_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        gen.generate(gen.MIN_N - 1, tmp_path / "small")


def test_the_cli_builds_a_record_big_enough_for_workers_as_one_process_does(
    record: Path, checked: Checked, tmp_path: Path
) -> None:
    """`sourcebook build` starts the prose workers while check runs; the site it writes
    is the one a build in one process writes after check."""
    built = run("build", str(record), "-q", "-o", str(tmp_path / "cli"))
    assert built.returncode == 0, built.stderr
    one = build_site(checked, tmp_path / "one", jobs=1)
    assert one.pages >= render.PARALLEL_FROM  # enough that the CLI spreads the work out
    assert snapshot(tmp_path / "cli") == snapshot(tmp_path / "one")
    # Workers forked before check render the citations, with the proof check made.
    sources = "".join(p.read_text() for p in (tmp_path / "cli").rglob("sources/*/index.html"))
    assert 'data-proof="verified"' in sources


def test_the_cli_refuses_a_big_record_with_errors_and_writes_nothing(
    record: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(record, broken)
    term = next((broken / "terms").glob("*.md"))
    term.write_text(term.read_text(encoding="utf-8").replace("definition:", "definitions:", 1))
    built = run("build", str(broken), "-o", str(tmp_path / "site"))
    assert built.returncode == 1
    assert "error S001 missing field 'definition'" in built.stdout
    assert "Traceback" not in built.stderr
    assert not (tmp_path / "site").exists()
