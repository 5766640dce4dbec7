"""`sourcebook release` as a user runs it: what it writes, what it refuses, and that the
same record always gives the same bytes."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from conftest import BUNDLED
from release_fixtures import copy_bundled, files_of, release_bundled, run
from site_fixtures import write_record

from sourcebook.model.kinds import KINDS
from sourcebook.pipeline import check, release
from sourcebook.publish.release import ReleaseError


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return release_bundled(tmp_path_factory.mktemp("release"))


def test_every_table_is_written_as_csv_and_json_beside_the_database(released: Path) -> None:
    db = sqlite3.connect(released / "record.db")
    expected = [kind.folder for kind in KINDS] + [
        "figures",
        "figure_inputs",
        "campus_parties",
        "scenario_parameters",
        "entities",
        "quotes",
        "refs",
    ]
    for table in expected:
        (count,) = db.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()
        lines = (released / "csv" / f"{table}.csv").read_text(encoding="utf-8")
        rows = json.loads((released / "json" / f"{table}.json").read_text(encoding="utf-8"))
        assert len(rows) == count, table
        assert lines.count("\n") >= count + 1, table  # a header, then a row each at least
    hits = db.execute("SELECT id FROM search WHERE search MATCH 'cluster'").fetchall()
    assert ("cluster",) in hits  # the full-text index travels with the database
    assert not (released / "csv" / "search.csv").exists()


def test_file_paths_in_a_release_are_relative_to_the_record(released: Path) -> None:
    files = {
        row[0]
        for row in sqlite3.connect(released / "record.db").execute("SELECT file FROM entities")
    }
    assert "campuses/colossus-2.md" in files
    assert all(not Path(file).is_absolute() and "compute-race" not in file for file in files)


def test_checksums_cover_every_file_and_sha256sum_agrees(released: Path) -> None:
    every = files_of(released)
    summed = (released / "SHA256SUMS").read_text(encoding="utf-8").splitlines()
    assert sorted(line.split("  ", 1)[1] for line in summed) == sorted(set(every) - {"SHA256SUMS"})
    if shutil.which("sha256sum"):
        checked = subprocess.run(
            ["sha256sum", "--check", "--strict", "SHA256SUMS"],
            cwd=released,
            capture_output=True,
            text=True,
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr
    manifest = json.loads(every["release.json"])
    listed = {entry["path"]: entry for entry in manifest["files"]}
    assert set(listed) == set(every) - {"SHA256SUMS", "release.json"}
    assert listed["record.db"]["bytes"] == len(every["record.db"])
    assert manifest["version"] == "2026-11-08" and manifest["date"] == "2026-11-08"
    assert manifest["previous"] is None


def test_the_same_record_gives_the_same_bytes_wherever_it_lies(tmp_path: Path) -> None:
    first = copy_bundled(tmp_path / "one" / "compute-race")
    second = copy_bundled(tmp_path / "two" / "deeper" / "record")
    by_path = run("release", "2026-11-08", str(first))
    from_inside = run("release", "2026-11-08", cwd=second)
    assert by_path.returncode == 0 and from_inside.returncode == 0, by_path.stderr
    assert f"Released 2026-11-08 into {first / 'releases' / '2026-11-08'}: " in by_path.stdout
    assert "This is the record's first release." in by_path.stdout
    one = files_of(first / "releases" / "2026-11-08")
    two = files_of(second / "releases" / "2026-11-08")
    assert list(one) == list(two)
    assert [name for name in one if one[name] != two[name]] == []


def test_a_release_is_never_overwritten(released: Path) -> None:
    before = files_of(released)
    result = run("release", "2026-11-08", str(released.parent.parent))
    assert result.returncode == 1
    assert "already exists: a release is never overwritten" in result.stderr
    assert "Traceback" not in result.stderr
    assert files_of(released) == before


def test_a_record_with_errors_is_not_released_and_its_errors_are_shown(tmp_path: Path) -> None:
    root = write_record(tmp_path / "record", {"terms/cluster.md": "---\ntitle: Cluster\n---\n"})
    released = run("release", "1.0.0", "record", cwd=tmp_path)
    checked = run("check", "record", cwd=tmp_path)
    assert released.returncode == 1
    assert released.stdout == checked.stdout
    assert "record/terms/cluster.md:2:1: error S001 missing field 'definition'" in released.stdout
    assert not (root / "releases").exists()


@pytest.mark.parametrize("version", ["../outside", "a/b", "latest", "2026-02-30"])
def test_a_version_must_be_a_day_or_a_version_number(tmp_path: Path, version: str) -> None:
    result = run("release", version, "record", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: '{version}' is not a ")
    assert "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.fixture(scope="module")
def checked_bundled():  # type: ignore[no-untyped-def]
    return check(BUNDLED)


def test_a_failed_release_leaves_nothing_behind(
    checked_bundled, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("sourcebook.publish.release.write_manifest", fail)
    with pytest.raises(OSError, match="disk full"):
        release(checked_bundled, tmp_path, "v1")
    assert list((tmp_path / "releases").iterdir()) == []


def test_the_library_refuses_what_the_command_refuses(checked_bundled, tmp_path: Path) -> None:
    release(checked_bundled, tmp_path, "v1")
    with pytest.raises(ReleaseError, match="already exists"):
        release(checked_bundled, tmp_path, "v1")
    with pytest.raises(ReleaseError, match="not a release version"):
        release(checked_bundled, tmp_path, "v1/../../x")
