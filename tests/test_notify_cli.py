"""`sourcebook notify` as the house runs it: its refusals in one line, and its reports."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from notify_fixtures import SECRET, Smtp, make_service, notify_settings, write_settings

from sourcebook.notify.setup import open_migrated


def notify(*args: str, secret: bool = True) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SOURCEBOOK_NOTIFY_SECRET"}
    if secret:
        env["SOURCEBOOK_NOTIFY_SECRET"] = SECRET
    return subprocess.run(
        [sys.executable, "-m", "sourcebook", "notify", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def one_line_error(result: subprocess.CompletedProcess[str], words: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("error: ") and words in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.fixture
def record(tmp_path: Path) -> Path:
    return write_settings(tmp_path / "record", notify_settings("http://127.0.0.1:8998", 2525))


def test_serve_refuses_to_start_without_a_secret(record: Path) -> None:
    one_line_error(notify("serve", str(record), secret=False), "SOURCEBOOK_NOTIFY_SECRET")


def test_serve_refuses_a_schema_newer_than_it_knows(record: Path, db_target: str) -> None:
    db = open_migrated(db_target)
    with db.transaction() as tx:
        tx.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    db.close()
    one_line_error(notify("serve", str(record), "--db", db_target), "version 99, newer")


def test_an_unreachable_database_is_one_line(record: Path) -> None:
    result = notify("stats", str(record), "--db", "postgresql://nobody@127.0.0.1:1/none")
    one_line_error(result, "cannot connect to postgresql://nobody@127.0.0.1:1/none")


def test_a_record_without_settings_is_one_line(tmp_path: Path) -> None:
    one_line_error(notify("serve", str(tmp_path)), "not a record")


def test_a_path_that_is_not_a_record_is_one_line_and_makes_nothing(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    before = sorted(tmp_path.rglob("*"))
    out = str(tmp_path / "readers.csv")
    opening_a_database = [["list"], ["stats"], ["export", "-o", out], ["migrate"]]
    cases = [
        (tmp_path / "typo", "no such folder", [*opening_a_database, ["send"], ["announce"]]),
        (tmp_path / "notes", "no sourcebook.toml here", opening_a_database),
    ]
    for where, words, commands in cases:
        for command in commands:
            result = notify(command[0], str(where), *command[1:])
            one_line_error(result, f"{where.as_posix()}: {words}")
    assert sorted(tmp_path.rglob("*")) == before, "nothing was made"


def test_the_default_database_lives_in_the_records_own_folder(record: Path) -> None:
    result = notify("migrate", str(record))
    assert result.returncode == 0, result.stderr
    assert (record / ".sourcebook-notify" / "notify.sqlite3").is_file()


def test_list_export_and_stats(record: Path, db_target: str, smtp: Smtp) -> None:
    db = open_migrated(db_target)
    service = make_service(record, db, smtp)
    for address in ("ada@example.org", "bob@example.org", "cy@example.org"):
        service.readers.sign_up(address, "127.0.0.1")
    with db.transaction() as tx:
        tx.execute("UPDATE readers SET state = 'confirmed' WHERE address <> 'cy@example.org'")
        for (reader_id,) in tx.execute("SELECT id FROM readers WHERE state = 'confirmed'"):
            service.readers._log(tx, reader_id, "confirmed", "link", service.readers.now())
    db.close()

    listed = notify("list", str(record), "--db", db_target, "--state", "confirmed")
    assert listed.returncode == 0, listed.stderr
    header, *rows = listed.stdout.splitlines()
    assert header == "id\tstate\taddress\tcreated\tconfirmed\tunsubscribed"
    assert [line.split("\t")[2] for line in rows] == ["ada@example.org", "bob@example.org"]
    exported = notify("export", str(record), "--db", db_target)
    table = list(csv.DictReader(io.StringIO(exported.stdout)))
    assert [row["address"] for row in table] == ["ada@example.org", "bob@example.org"]
    assert table[0]["statement_sha256"] == service.config.statement.sha256
    stats = json.loads(notify("stats", str(record), "--db", db_target, "--format", "json").stdout)
    assert stats["readers"] == {"pending": 1, "confirmed": 2, "unsubscribed": 0}
    assert stats["emails"]["pending"] == 3


def test_serve_warns_when_it_listens_beyond_this_machine(record: Path) -> None:
    result = notify("serve", str(record), "--host", "0.0.0.0", secret=False)
    assert "warning: listening on 0.0.0.0" in result.stderr


def test_notify_needs_no_heavy_import_for_help() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from sourcebook.cli import main\n"
            "try: main(['notify', '--help'])\nexcept SystemExit: pass\n"
            "print(sorted(m for m in ('starlette', 'uvicorn', 'psycopg') if m in sys.modules))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout.strip().endswith("[]"), result.stdout


def test_check_reports_a_bad_notify_setting(tmp_path: Path) -> None:
    from conftest import run

    settings = notify_settings("ftp://notify.example", 2525).replace(
        'sender = "DRYBURGH <news@dryburgh.test>"', 'sender = "nobody"'
    )
    record = write_settings(tmp_path / "record", settings)
    result = run("check", str(record))
    assert result.returncode == 1
    assert "setting 'notify.url'" in result.stdout and "setting 'notify.sender'" in result.stdout
