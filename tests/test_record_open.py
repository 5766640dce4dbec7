"""A record in progress: `init` writes one with no close, dated against today, in a git
repository of its own; it checks clean on any later day, and releases nothing until its
author has chosen a licence, said who they are and closed it. Today is the day
SOURCE_DATE_EPOCH says, pinned here for every run so that no test meets midnight."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

import pytest
from conftest import run

from sourcebook.pipeline import check, compile_checked

TODAY = date.today()
PINNED = str(int(datetime.combine(TODAY, time(12), UTC).timestamp()))


@pytest.fixture(autouse=True)
def pinned_today(monkeypatch: pytest.MonkeyPatch) -> None:
    """Today is TODAY for sourcebook, run in this process or as a command."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", PINNED)


SOURCE = """\
---
title: Notes on the grid
category: other
date: {day}
---
"""


@pytest.fixture
def book(tmp_path: Path) -> Path:
    made = run("init", str(tmp_path / "my-book"))
    assert made.returncode == 0, made.stderr
    return tmp_path / "my-book"


def add_source(book: Path, day: date) -> None:
    (book / "sources" / "grid.md").write_text(SOURCE.format(day=day.isoformat()), "utf-8")


def settings_lines(book: Path) -> list[str]:
    text = (book / "sourcebook.toml").read_text(encoding="utf-8")
    return [line.split("#")[0].strip() for line in text.splitlines() if line.split("#")[0].strip()]


def test_init_leaves_the_close_author_and_licence_to_the_author(book: Path) -> None:
    lines = settings_lines(book)
    assert not [line for line in lines if line.split("=")[0].strip() in {"closes", "author"}]
    assert not [line for line in lines if line.startswith("licence")]
    text = (book / "sourcebook.toml").read_text(encoding="utf-8")
    assert "# closes = " in text and "# author = " in text and '# licence = "CC-BY-4.0"' in text
    assert "CC0-1.0" in text  # the choices are explained beside the setting


def test_a_source_dated_today_checks_clean_in_a_new_record(book: Path) -> None:
    # The day after `init` (or a year after), an author adds what they read that day.
    add_source(book, TODAY)
    result = run("check", str(book))
    assert result.returncode == 0, result.stdout
    assert result.stdout.strip().endswith("7 entities: 0 errors, 0 warnings")


def test_an_open_record_is_dated_against_today(book: Path) -> None:
    tomorrow = TODAY + timedelta(days=1)
    add_source(book, tomorrow)
    result = run("check", str(book))
    assert result.returncode == 1
    assert (
        f"sources/grid.md:4:7: error D001 'date' {tomorrow} is after today ({TODAY}), "
        "the record being open"
    ) in result.stdout
    assert "hint: correct the day: until [book] closes is set" in result.stdout


def test_an_open_record_stands_at_today_and_says_it_is_open(book: Path, tmp_path: Path) -> None:
    settings = book / "sourcebook.toml"  # a site with an address has feeds
    text = settings.read_text(encoding="utf-8")
    settings.write_text(text.replace("[site]\n", '[site]\nbase_url = "https://example.org"\n'))
    built = run("build", str(book), "-q")
    assert built.returncode == 0, built.stderr
    home = (book / "_site" / "index.html").read_text(encoding="utf-8")
    assert "its record is open: it is still being written." in home
    assert "its record closes on" not in home
    feed = (book / "_site" / "corrections.atom").read_text(encoding="utf-8")
    assert f"<updated>{TODAY.isoformat()}T00:00:00Z</updated>" in feed  # no correction yet
    later = run("build", str(book), "-q", "--as-of", (TODAY + timedelta(days=1)).isoformat())
    assert later.returncode == 2
    assert later.stderr.startswith("error: --as-of ") and "is after today" in later.stderr
    database = compile_checked(check(book), tmp_path / "record.db")
    with sqlite3.connect(database) as db:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    assert (meta["as_of"], meta["closes"]) == (TODAY.isoformat(), "")


def test_a_closed_record_is_dated_against_its_close(book: Path) -> None:
    settings = book / "sourcebook.toml"
    settings.write_text(
        settings.read_text(encoding="utf-8").replace("# closes = 2027-06-30", "closes = 2024-06-30")
    )
    add_source(book, date(2024, 7, 1))
    result = run("check", str(book))
    assert "error D001 'date' 2024-07-01 is after the record closes (2024-06-30)" in result.stdout


def test_release_refuses_until_licence_author_and_close_are_set(book: Path) -> None:
    result = run("release", "0.1.0", str(book))
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == (
        "error: a release needs [book] licence, author and closes in sourcebook.toml: add "
        'licence = "CC-BY-4.0" (or the SPDX id of your choice), author = "Your Name" and '
        f"closes = {TODAY.isoformat()}\n"
    )
    assert not (book / "releases").exists()
    settings = book / "sourcebook.toml"
    text = settings.read_text(encoding="utf-8").replace("# author = ", "author = ")
    settings.write_text(text.replace("# closes = 2027-06-30", f"closes = {TODAY}"), "utf-8")
    again = run("release", "0.1.0", str(book))
    assert again.returncode == 1
    assert again.stderr.startswith("error: a release needs [book] licence in sourcebook.toml: ")
    assert not (book / "releases").exists()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_init_makes_a_git_repository_that_ignores_what_sourcebook_makes(book: Path) -> None:
    assert (book / ".git").is_dir()
    assert run("build", str(book), "-q").returncode == 0
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=book,
        capture_output=True,
        text=True,
        check=True,
    )
    listed = {line[3:].split("/")[0] for line in status.stdout.splitlines()}
    assert listed == {".gitignore", "README.md", "sourcebook.toml", *FOLDERS}


FOLDERS = {"chapters", "parties", "people", "sources", "terms"}


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_init_inside_a_repository_makes_no_second_one(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    result = run("init", str(tmp_path / "book"))
    assert result.returncode == 0
    assert f"kept in the git repository at {tmp_path}" in result.stdout
    assert not (tmp_path / "book" / ".git").exists()


def test_source_date_epoch_says_what_day_an_open_record_stands_at(
    book: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A build made again later, as reproducible builds make it: the day it was made.
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")  # 2026-01-01 00:00 UTC
    add_source(book, date(2026, 1, 2))
    result = run("check", str(book))
    assert result.returncode == 1
    assert (
        "sources/grid.md:4:7: error D001 'date' 2026-01-02 is after today (2026-01-01), "
        "the record being open"
    ) in result.stdout
    add_source(book, date(2026, 1, 1))
    assert run("check", str(book)).returncode == 0
    built = run("build", str(book), "-q", "--as-of", "2026-01-02")
    assert (built.returncode, built.stderr) == (
        2,
        "error: --as-of 2026-01-02 is after today (2026-01-01), the record being open\n",
    )


@pytest.mark.parametrize("given", ["yesterday", "1.5", "-1", "", "٣", "253402300800"])
def test_a_source_date_epoch_that_is_no_day_is_refused_in_one_line(
    book: Path, monkeypatch: pytest.MonkeyPatch, given: str
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", given)
    result = run("check", str(book))
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"error: SOURCE_DATE_EPOCH={given!r} is not a whole number of seconds since 1970; "
        "unset it, or set it to one such as 1767225600 (2026-01-01)\n"
    )
