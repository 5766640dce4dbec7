"""The registry of units' answers, kept from run to run: a `check` or `build` of a record
whose units an earlier run met does not load the registry (pint and numpy), and says and
writes what it does when it loads it; what is kept is believed only as what it is."""

from __future__ import annotations

import marshal
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import BUNDLED

from sourcebook.incremental import STATE_FOLDER
from sourcebook.model import units
from sourcebook.runtime.memo import answers_asked, give_answers

KEPT = Path(STATE_FOLDER) / "answers" / "answers.marshal"
DIMENSION, FACTOR = "units.dimension", "units.factor"
WITHOUT_PINT = """
import sys
class Refused:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("pint", "numpy"):
            raise ImportError(f"{name} may not be loaded here")
sys.meta_path.insert(0, Refused())
from sourcebook.cli import run
sys.argv = ["sourcebook", *sys.argv[1:]]
run()
"""
"""`sourcebook ARGS` in a process that cannot load pint or numpy."""


def sourcebook(*args: str, pint: bool = True) -> subprocess.CompletedProcess[str]:
    command = ["-m", "sourcebook"] if pint else ["-c", WITHOUT_PINT]
    return subprocess.run(
        [sys.executable, *command, *args], capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def record(tmp_path: Path) -> Path:
    root = tmp_path / "record"
    shutil.copytree(BUNDLED, root, ignore=shutil.ignore_patterns("_site", STATE_FOLDER))
    return root


def edit(root: Path, words: str) -> None:
    campus = root / "campuses" / "colossus-2.md"
    campus.write_text(campus.read_text(encoding="utf-8") + f"\n{words}\n", encoding="utf-8")


def test_a_run_after_one_that_met_the_same_units_does_not_load_the_registry(
    record: Path, tmp_path: Path
) -> None:
    first = sourcebook("check", str(record))
    assert first.returncode == 0, first.stderr
    assert (record / KEPT).is_file()
    edit(record, "A sentence added.")  # a check after an edit: every figure checked again
    again = sourcebook("check", str(record), pint=False)
    assert again.returncode == 0, again.stderr
    assert again.stdout == first.stdout
    # A build asks what check does not (derive's child shows figures in other units): the
    # answers its child gave are kept with the build's own.
    site = str(tmp_path / "site")
    assert sourcebook("build", "--quiet", str(record), "-o", site).returncode == 0
    edit(record, "Checked between two builds.")  # a check asks fewer: it keeps the build's
    assert sourcebook("check", str(record), pint=False).returncode == 0
    edit(record, "A figure's campus, edited.")
    shutil.rmtree(record / STATE_FOLDER / "queries")  # derive runs again, in its child
    built = sourcebook("build", "--quiet", str(record), "-o", site, pint=False)
    assert built.returncode == 0, built.stderr
    clean = sourcebook("build", "--quiet", "--no-cache", str(record), "-o", str(tmp_path / "b"))
    assert clean.returncode == 0, clean.stderr
    for page in ("ledger/colossus-2/index.html", "scorecard/index.html", "observatory/index.html"):
        kept, fresh = tmp_path / "site" / "vol1" / page, tmp_path / "b" / "vol1" / page
        assert fresh.is_file(), page
        assert kept.read_bytes() == fresh.read_bytes(), page


def test_a_unit_met_for_the_first_time_loads_the_registry(record: Path) -> None:
    assert sourcebook("check", str(record)).returncode == 0
    campus = record / "campuses" / "colossus-2.md"
    text = campus.read_text(encoding="utf-8")
    assert "unit: MW" in text
    campus.write_text(text.replace("unit: MW", "unit: TW", 1), encoding="utf-8")
    refused = sourcebook("check", str(record), pint=False)
    assert "may not be loaded here" in refused.stderr  # TW was never asked: pint is loaded
    assert sourcebook("check", str(record)).returncode in (0, 1)
    assert ("TW", "W") in marshal.loads((record / KEPT).read_bytes())[1][FACTOR]


def test_kept_answers_are_believed_only_as_answers_of_this_code(record: Path) -> None:
    truth = sourcebook("check", str(record))
    kept = record / KEPT
    code, answers = marshal.loads(kept.read_bytes())
    dimensions, factors = answers[DIMENSION], answers[FACTOR]
    forged = {**answers, DIMENSION: {**dimensions, ("acres",): None}}  # believed: see below
    for data in (
        b"",
        b"\x00\xff" * 30,
        marshal.dumps([code]),
        marshal.dumps(("another version", forged)),
        marshal.dumps((code, {DIMENSION: {("acres",): "no such dimension"}})),
        marshal.dumps((code, {DIMENSION: {("acres",): ("raised",)}})),
        marshal.dumps((code, {DIMENSION: {("acres",): ("other", "why")}})),
        marshal.dumps((code, {DIMENSION: {"acres": "area"}})),
        marshal.dumps((code, {DIMENSION: {(b"acres",): None}})),
        marshal.dumps((code, {DIMENSION: [("acres", None)]})),
        marshal.dumps((code, {FACTOR: {k: int(v) for k, v in factors.items()}})),  # not floats
    ):
        kept.write_bytes(data)
        edit(record, "Checked again.")
        assert sourcebook("check", str(record)).stdout == truth.stdout
    # The state folder is sealed (a record cannot bring one): what it holds in the right
    # form is taken as the answer, which shows that the answers are read from it.
    kept.write_bytes(marshal.dumps((code, forged)))
    edit(record, "Checked again.")
    assert "F002" in sourcebook("check", str(record)).stdout


def test_an_error_is_an_answer_given_again_as_the_same_error(monkeypatch) -> None:
    function = units._dimension_name
    monkeypatch.setattr(function, "_asked", {})
    monkeypatch.setattr(function, "_given", {})
    units.dimension_of.cache_clear()
    with pytest.raises(units.UnitError) as made:
        units.dimension_of("furlongs per fortnight")
    asked = answers_asked()[DIMENSION]
    assert asked[("furlongs per fortnight",)][0] == "raised"
    monkeypatch.setattr(function, "_asked", {})
    units.dimension_of.cache_clear()
    give_answers({DIMENSION: asked})
    monkeypatch.setattr(units, "registry", None)  # the registry cannot be asked again
    with pytest.raises(units.UnitError) as given:
        units.dimension_of("furlongs per fortnight")
    assert str(given.value) == str(made.value)
    units.dimension_of.cache_clear()


def test_kept_answers_add_up_from_run_to_run_within_a_bound(tmp_path: Path, monkeypatch) -> None:
    from sourcebook.incremental import Memos
    from sourcebook.incremental import _memos as memos_module

    root = tmp_path / "record"
    root.mkdir()
    function = units._dimension_name

    def run(*asked: str) -> set[tuple[str, ...]]:
        """One run that asks the dimension of each unit; the questions kept after it."""
        monkeypatch.setattr(function, "_asked", {})
        kept = Memos.open(root)
        for unit in asked:
            function(unit)
        kept.commit()
        return set(marshal.loads((root / KEPT).read_bytes())[1][DIMENSION])

    assert run("MW") == {("MW",)}
    assert run("GW") == {("MW",), ("GW",)}  # a run that asks fewer lets go of none
    monkeypatch.setattr(memos_module, "ANSWERS_MAX", 2)
    assert run("kW") == {("kW",)}  # past the bound, this run's alone
