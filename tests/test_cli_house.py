"""`sourcebook check HOUSE` as a subprocess: each problem only a house can have, at its line
of the house file (or of the volume's file), and volumes' diagnostics under their paths."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from house_fixtures import HOUSE, VOLUME_2, write_house

REPO = Path(__file__).resolve().parent.parent


def check(target: Path) -> tuple[int, list[dict]]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sourcebook",
            "check",
            "--format",
            "json",
            "--no-warnings",
            target.name,
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=target.parent,
        timeout=120,
    )
    return done.returncode, json.loads(done.stdout).get("diagnostics", [])


@pytest.fixture(scope="module")
def house(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_house(tmp_path_factory.mktemp("h") / "house")


def with_house_file(house: Path, text: str) -> Path:
    path = house / "other.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_house_checks_clean_and_joins_the_same_source(house: Path) -> None:
    from sourcebook.pipeline import check_house

    status, diagnostics = check(house / "house.toml")
    assert (status, diagnostics) == (0, [])
    works = check_house(house).works
    assert works is not None
    assert works.work(("vol2", "abilene-owners")) == ("vol1", "techrepublic-stargate-abilene")
    assert works.work(("vol2", "abilene-order")) == ("vol1", "tomshardware-oracle-gb200-abilene")


def test_a_volume_listed_twice(house: Path) -> None:
    status, found = check(with_house_file(house, HOUSE + '\n[[volume]]\npath = "./compute-race"\n'))
    assert status == 1
    assert [(d["code"], d["file"], d["line"]) for d in found] == [("H001", "other.toml", 14)]
    assert "listed twice (also at line 8)" in found[0]["message"]


def test_two_volumes_on_one_base_path(tmp_path: Path) -> None:
    settings = VOLUME_2["sourcebook.toml"].replace('base_path = "/vol2"', 'base_path = "/vol1/"')
    house = write_house(tmp_path / "h", volume_2={**VOLUME_2, "sourcebook.toml": settings})
    status, found = check(house / "house.toml")
    assert status == 1
    assert [(d["code"], d["line"]) for d in found] == [("H004", 11)]
    assert "as is 'compute-race' (line 8)" in found[0]["message"]


def test_a_folder_with_no_record(house: Path) -> None:
    (house / "empty").mkdir(exist_ok=True)
    text = HOUSE + '\n[[volume]]\npath = "empty"\n\n[[volume]]\npath = "missing"\n'
    status, found = check(with_house_file(house, text))
    assert status == 1
    assert [(d["code"], d["line"]) for d in found] == [("H003", 14), ("H003", 17)]


@pytest.mark.parametrize("written", ["../outside", "/etc", "compute-race/../../outside", "out"])
def test_a_volume_may_not_leave_the_house_folder(house: Path, written: str) -> None:
    outside = house.parent / "outside"
    if not outside.exists():
        write_house(outside.parent / "copy", volume_2={})  # a real record out there
        (outside).symlink_to(outside.parent / "copy" / "compute-race")
    if written == "out" and not (house / "out").exists():
        (house / "out").symlink_to(outside)
    status, found = check(with_house_file(house, HOUSE + f'\n[[volume]]\npath = "{written}"\n'))
    assert status == 1
    assert [(d["code"], d["line"]) for d in found] == [("H002", 14)]


def test_a_same_as_naming_no_source_of_the_series(tmp_path: Path) -> None:
    source = VOLUME_2["sources/abilene-owners.md"].replace(
        "vol1/techrepublic-stargate-abilene", "vol1/no-such-source"
    )
    house = write_house(tmp_path / "h", volume_2={**VOLUME_2, "sources/abilene-owners.md": source})
    status, found = check(house)
    assert status == 1
    assert [(d["code"], d["file"], d["line"]) for d in found] == [
        ("H006", "h/power-race/sources/abilene-owners.md", 4)
    ]


def test_a_volumes_own_errors_are_shown_under_its_path(tmp_path: Path) -> None:
    chapter = VOLUME_2["chapters/chapter-1.md"].replace("[@abilene-order]", "[@nowhere]")
    house = write_house(tmp_path / "h", volume_2={**VOLUME_2, "chapters/chapter-1.md": chapter})
    status, found = check(house)
    assert status == 1
    assert {d["file"] for d in found} == {"h/power-race/chapters/chapter-1.md"}


def test_a_correction_of_a_source_that_no_volume_holds(tmp_path: Path) -> None:
    """A correction is kept in the volume that cites the source; of one that no volume
    holds, it is an error at its line, with the nearest source offered."""
    correction = VOLUME_2["corrections/grid-report-year.md"].replace(
        "source: grid-report\n", "source: grid-reports\n"
    )
    house = write_house(
        tmp_path / "h", volume_2={**VOLUME_2, "corrections/grid-report-year.md": correction}
    )
    status, found = check(house / "house.toml")
    assert status == 1
    assert [(d["code"], d["file"], d["line"]) for d in found] == [
        ("L001", "power-race/corrections/grid-report-year.md", 5)
    ]
    assert "'grid-reports'" in found[0]["message"] and "grid-report" in found[0]["hint"]


def test_build_refuses_a_house_with_errors_and_builds_one_without(house: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    bad = with_house_file(house, HOUSE + '\n[[volume]]\npath = "nowhere"\n')
    run = [sys.executable, "-m", "sourcebook", "build", "-q"]
    refused = subprocess.run([*run, bad], capture_output=True, text=True, env=env, timeout=300)
    assert refused.returncode == 1 and "H003" in refused.stdout
    built = subprocess.run([*run, house], capture_output=True, text=True, env=env, timeout=300)
    assert built.returncode == 0, built.stderr
    assert (house / "_site" / "corrections" / "index.html").is_file()
    assert (house / "_site" / "vol2" / "index.html").is_file()
