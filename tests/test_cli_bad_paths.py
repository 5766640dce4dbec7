"""Every command given a path that is not there, or is not what it should be, says so in
one line and exits 2: no traceback, no usage screen, nothing made at the path."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from conftest import SETTINGS, run

from sourcebook.cli import COMMANDS, main

MISSING = "{tmp}/nowhere"
"""A folder that is not there."""

# Each case: the command's words, then its arguments; {tmp} is a fresh folder holding
# `record/` (a record), `plain/` (a folder that is no record) and `file.txt`.
CASES: list[tuple[str, list[str]]] = [
    ("build", ["build", MISSING]),
    ("build", ["build", "{tmp}/plain"]),
    ("build", ["build", "{tmp}/file.txt"]),
    ("build", ["build", "{tmp}/record", "-o", "{tmp}/file.txt"]),
    ("check", ["check", MISSING]),
    ("check", ["check", "{tmp}/plain"]),
    ("check", ["check", "{tmp}/file.txt"]),
    ("check", ["check", "{tmp}/nowhere/house.toml"]),
    ("export", ["export", "csl-json", MISSING]),
    ("export", ["export", "bibtex", "{tmp}/plain"]),
    ("export", ["export", "bibtex", "{tmp}/record", "-o", "{tmp}/nowhere/out.bib"]),
    ("export", ["export", "csl-json", "{tmp}/record", "-o", "{tmp}/plain"]),
    ("import", ["import", "{tmp}/nowhere.json", "{tmp}/record"]),
    ("import", ["import", "{tmp}/plain", "{tmp}/record"]),
    ("import", ["import", "{tmp}/export.json", MISSING]),
    ("import", ["import", "{tmp}/export.json", "{tmp}/plain"]),
    ("import zotero", ["import", "zotero", "{tmp}/export.json", MISSING]),
    ("import zotero", ["import", "zotero", "{tmp}/nowhere.bib", "{tmp}/record"]),
    ("import hypothesis", ["import", "hypothesis", "{tmp}/nowhere.json", "{tmp}/record"]),
    ("import hypothesis", ["import", "hypothesis", "{tmp}/export.json", MISSING]),
    ("import hypothesis", ["import", "hypothesis", "{tmp}/export.json", "{tmp}/plain"]),
    ("init", ["init", "{tmp}/file.txt"]),
    ("init", ["init", "{tmp}/file.txt/book"]),
    ("init", ["init", "{tmp}/record"]),
    ("library add", ["library", "add", "{tmp}/file.txt", MISSING]),
    ("library add", ["library", "add", "{tmp}/file.txt", "{tmp}/plain"]),
    ("library add", ["library", "add", "{tmp}/file.txt", "--record", MISSING]),
    ("library add", ["library", "add", "{tmp}/nowhere.pdf", "{tmp}/record"]),
    ("library list", ["library", "list", MISSING]),
    ("library list", ["library", "list", "{tmp}/plain"]),
    ("library list", ["library", "list", "--record", MISSING]),
    ("notify announce", ["notify", "announce", MISSING]),
    ("notify announce", ["notify", "announce", "{tmp}/plain"]),
    ("notify export", ["notify", "export", MISSING]),
    ("notify export", ["notify", "export", "{tmp}/plain"]),
    ("notify export", ["notify", "export", "{tmp}/record", "-o", "{tmp}/nowhere/readers.csv"]),
    ("notify list", ["notify", "list", MISSING]),
    ("notify list", ["notify", "list", "{tmp}/plain"]),
    ("notify migrate", ["notify", "migrate", MISSING]),
    ("notify migrate", ["notify", "migrate", "{tmp}/plain"]),
    ("notify send", ["notify", "send", "--once", MISSING]),
    ("notify send", ["notify", "send", "--once", "{tmp}/plain"]),
    ("notify serve", ["notify", "serve", MISSING]),
    ("notify serve", ["notify", "serve", "{tmp}/plain"]),
    ("notify stats", ["notify", "stats", MISSING]),
    ("notify stats", ["notify", "stats", "{tmp}/plain"]),
    ("release", ["release", "1.0.0", MISSING]),
    ("release", ["release", "1.0.0", "{tmp}/plain"]),
    ("schema", ["schema", "--out", "{tmp}/file.txt"]),
    ("schema", ["schema", "--out", "{tmp}/file.txt/schemas"]),
    ("serve", ["serve", MISSING]),
    ("serve", ["serve", "{tmp}/plain"]),
    ("watch", ["watch", MISSING]),
    ("watch", ["watch", "{tmp}/plain"]),
    ("watch", ["watch", "--report", "{tmp}/file.txt"]),
]

NOTIFY_DB_CASES: list[tuple[str, list[str]]] = [
    (f"notify {verb}", ["notify", verb, "{tmp}/record", "--db", "{tmp}/nowhere/notify.sqlite3"])
    for verb in ("list", "stats", "export", "migrate")
]
"""A mistyped --db: the folder it names is the sign-up service's to refuse (src/sourcebook/
notify/setup.py), which makes it today."""


def every_command() -> set[str]:
    """Every command and subcommand the CLI has, by its words (`notify list`)."""
    found = set()
    for name in COMMANDS:
        command = main.get_command(click.Context(main), name)
        assert command is not None
        if isinstance(command, click.Group):
            found |= {f"{name} {sub}" for sub in command.commands}
            found |= {name} if name == "import" else set()  # `import FILE` is a command too
        else:
            found.add(name)
    return found


def test_every_command_has_a_bad_path_case() -> None:
    assert {name for name, _ in CASES} == every_command()


@pytest.fixture
def places(tmp_path: Path) -> Path:
    (tmp_path / "record").mkdir()
    (tmp_path / "record" / "sourcebook.toml").write_text(SETTINGS, encoding="utf-8")
    (tmp_path / "plain").mkdir()
    (tmp_path / "file.txt").write_text("Words.\n", encoding="utf-8")
    (tmp_path / "export.json").write_text("[]\n", encoding="utf-8")
    return tmp_path


def _one_line_and_nothing_made(places: Path, args: list[str]) -> None:
    before = sorted(p.relative_to(places) for p in places.rglob("*"))
    result = run(*(arg.format(tmp=places) for arg in args))
    assert "Traceback" not in result.stderr, result.stderr
    assert "Usage:" not in result.stderr, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error"), result.stderr
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert result.stdout == ""
    assert sorted(p.relative_to(places) for p in places.rglob("*")) == before


@pytest.mark.parametrize(("command", "args"), CASES, ids=[" ".join(a) for _, a in CASES])
def test_a_bad_path_is_one_line_and_exit_2(places: Path, command: str, args: list[str]) -> None:
    _one_line_and_nothing_made(places, args)


@pytest.mark.parametrize(
    ("command", "args"), NOTIFY_DB_CASES, ids=[" ".join(a) for _, a in NOTIFY_DB_CASES]
)
def test_a_mistyped_notify_database_is_one_line(
    places: Path, command: str, args: list[str]
) -> None:
    _one_line_and_nothing_made(places, args)


@pytest.mark.parametrize(
    "args",
    [
        ["check", "{tmp}/nowhere"],
        ["check", "{tmp}/plain"],
        ["serve", "{tmp}/nowhere"],
        ["build", "{tmp}/nowhere"],
        ["export", "bibtex", "{tmp}/nowhere"],
        ["import", "{tmp}/export.json", "{tmp}/nowhere"],
        ["release", "1.0.0", "{tmp}/nowhere"],
        ["notify", "list", "{tmp}/nowhere"],
    ],
)
def test_missing_folders_are_worded_one_way(places: Path, args: list[str]) -> None:
    result = run(*(arg.format(tmp=places) for arg in args))
    folder = args[-1].format(tmp=places)
    if folder.endswith("nowhere"):
        assert result.stderr == f"error: {folder}: no such folder\n"
    else:
        assert result.stderr == (
            f"error: {folder}: no sourcebook.toml here, so this is not a record "
            "(run 'sourcebook init DIR' to start one)\n"
        )


def test_library_words_a_missing_record_as_every_command_does(places: Path) -> None:
    result = run("library", "add", str(places / "file.txt"), str(places / "nowhere"))
    assert result.stderr == f"error Q107 {places}/nowhere: no such folder\n"


def test_check_json_says_a_missing_folder_as_json(places: Path) -> None:
    result = run("check", str(places / "nowhere"), "--format", "json")
    assert result.returncode == 2
    assert result.stdout.strip() == f'{{"error": "{places}/nowhere: no such folder"}}'
