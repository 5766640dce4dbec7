"""`sourcebook check` remembers what it found: a record unchanged since its last check is
not checked again, and whatever changes, what it shows is what a full check finds."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from site_fixtures import FILES, write_record
from thorough import examples

from sourcebook.commands import remembered
from sourcebook.commands.remembered import check_remembered
from sourcebook.pipeline import check

REPO = Path(__file__).resolve().parent.parent


def lines(diagnostics) -> list[str]:  # type: ignore[no-untyped-def]
    return [d.format() for d in diagnostics]


def test_an_unchanged_record_is_read_back_and_a_changed_one_checked(tmp_path: Path) -> None:
    root = write_record(tmp_path / "r")
    first = check_remembered(root)
    assert not first.remembered and first.entities > 0
    again = check_remembered(root)
    assert again.remembered
    assert lines(again.diagnostics) == lines(first.diagnostics)
    assert again.entities == first.entities
    chapter = root / "chapters" / "chapter-1.md"
    chapter.write_text(chapter.read_text() + "\nSee [[nowhere-at-all]].\n")
    changed = check_remembered(root)
    assert not changed.remembered
    assert lines(changed.diagnostics) == lines(check(root).diagnostics)
    assert any("nowhere-at-all" in line for line in lines(changed.diagnostics))


def test_a_kept_result_that_cannot_be_read_is_ignored(tmp_path: Path) -> None:
    root = write_record(tmp_path / "r")
    truth = lines(check_remembered(root).diagnostics)
    (kept,) = (root / ".sourcebook-cache" / "check").glob("*.json")
    for broken in ("", "{", '{"entities": 1}', '{"entities": "x", "diagnostics": []}'):
        kept.write_text(broken)
        found = check_remembered(root)
        assert not found.remembered and lines(found.diagnostics) == truth


def test_a_result_that_came_with_the_record_is_not_trusted(tmp_path: Path) -> None:
    """A clone carries its author's state folder, or a forged one: its seal is not this
    folder's, so it is emptied, and the record is checked."""
    root = write_record(tmp_path / "r", {"chapters/chapter-1.md": "---\ntitle: One\n---\n[[x]]\n"})
    truth = lines(check_remembered(root).diagnostics)
    assert truth
    (kept,) = (root / ".sourcebook-cache" / "check").glob("*.json")
    kept.write_text(json.dumps({"entities": 1, "diagnostics": []}))
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    found = check_remembered(copy)
    assert not found.remembered
    assert lines(found.diagnostics) == [line.replace("/r/", "/copy/") for line in truth]


def test_a_check_that_ran_out_of_time_is_not_kept(tmp_path: Path, monkeypatch) -> None:
    """X003, a query stopped at its time limit, may not happen on the next run."""
    from sourcebook.compile.database import Failure

    assert Failure.TOO_SLOW.value in remembered.UNKEPT
    root = write_record(tmp_path / "r")
    code = next(iter(check(root).diagnostics)).code
    monkeypatch.setattr(remembered, "UNKEPT", frozenset({code}))
    assert not check_remembered(root).remembered
    assert not check_remembered(root).remembered


def test_the_same_record_by_another_path_is_checked_again(tmp_path: Path, monkeypatch) -> None:
    root = write_record(tmp_path / "r")
    check_remembered(root)
    monkeypatch.chdir(tmp_path)
    found = check_remembered(Path("r"))
    assert not found.remembered
    assert all(not d.pos.file.startswith("/") for d in found.diagnostics)


def cli_check(root: Path, *options: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    command = [sys.executable, "-m", "sourcebook", "check", str(root), *options]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


def test_the_cli_shows_the_same_whether_it_remembers_or_checks(tmp_path: Path) -> None:
    root = write_record(tmp_path / "r")
    first = cli_check(root, "--format", "json")
    second = cli_check(root, "--format", "json")
    full = cli_check(root, "--format", "json", "--no-cache")
    assert first.returncode == second.returncode == full.returncode
    assert first.stdout == second.stdout == full.stdout


EDITS = st.lists(
    st.tuples(
        st.sampled_from(sorted(FILES)),
        st.sampled_from(["prose", "break", "delete", "restore", "rename", "title"]),
    ),
    min_size=1,
    max_size=6,
)


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(EDITS)
def test_after_any_edits_what_is_shown_is_what_a_full_check_finds(
    tmp_path_factory, edits: list[tuple[str, str]]
) -> None:
    root = write_record(tmp_path_factory.mktemp("edits") / "r")
    check_remembered(root)
    for name, edit in edits:
        path = root / name
        original = root / "original" / name
        if edit == "prose" and path.exists():
            path.write_text(path.read_text() + "\nMore on the [[cluster]] and xAI.\n")
        elif edit == "break" and path.exists():
            path.write_text(path.read_text().replace("---\n", "---\nsame_as: [nowhere]\n", 1))
        elif edit == "delete" and path.exists():
            original.parent.mkdir(parents=True, exist_ok=True)
            path.replace(original)
        elif edit == "restore" and original.exists():
            original.replace(path)
        elif edit == "rename" and path.exists():
            path.replace(path.with_name("renamed-" + path.name))
        elif edit == "title" and path.exists():
            path.write_text(path.read_text().replace("title: ", "title: A ", 1))
        assert lines(check_remembered(root).diagnostics) == lines(check(root).diagnostics)


def test_a_pipe_or_a_link_out_of_the_record_does_not_hold_it_up(tmp_path: Path) -> None:
    root = write_record(tmp_path / "r")
    os.mkfifo(root / "terms" / "pipe.md")
    (root / "terms" / "everything").symlink_to("/")
    found = check_remembered(root)
    assert lines(found.diagnostics) == lines(check(root).diagnostics)
    assert check_remembered(root).remembered


def test_a_folder_that_is_not_a_record_is_neither_read_nor_written(tmp_path: Path) -> None:
    import pytest

    from sourcebook.read import RecordError

    (tmp_path / "big").mkdir()
    (tmp_path / "big" / "file.bin").write_bytes(b"x" * 1000)
    with pytest.raises(RecordError):
        check_remembered(tmp_path)
    assert not (tmp_path / ".sourcebook-cache").exists()


def test_a_site_built_into_the_record_is_not_part_of_it(tmp_path: Path) -> None:
    # `build` writes `_site` and keeps the site before it beside as `._site.spare` (each
    # time where it writes the whole site): a build between two checks leaves the record
    # unchanged
    root = write_record(tmp_path / "r")
    for built in range(3):
        subprocess.run(
            [sys.executable, "-m", "sourcebook", "build", "--quiet", "--no-cache", str(root)],
            check=True,
            capture_output=True,
            timeout=300,
        )
        assert check_remembered(root).remembered == (built > 0)
    assert (root / "._site.spare").is_dir() and (root / "_site").is_dir()
