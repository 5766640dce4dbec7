"""Killed at any moment, the service loses nothing, on both databases; and no one email,
however it fails, keeps any other from being delivered.

The server runs as a real process (`python -m sourcebook notify serve`) and is killed with
SIGKILL while 500 sign-ups are in flight; restarted, every sign-up that was answered with
success is in the database, and every reader in the database gets their confirmation.
`notify announce` is killed mid-way through the announcement; run again, it announces to
every confirmed reader, and to none twice: a copy the mail server took just before the
kill carries the same Message-ID as its resend, so it is one email, delivered twice.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from notify_fixtures import (
    SECRET,
    SITE_ORIGIN,
    Smtp,
    free_port,
    make_service,
    notify_settings,
    rows,
    sign_up_form,
    write_settings,
)

from sourcebook.notify.setup import open_migrated

SIGNUPS = 500
KILL_AFTER = 150
READERS = 300
ANNOUNCEMENT = "The AI Compute Race is out"


def environment() -> dict[str, str]:
    return {**os.environ, "SOURCEBOOK_NOTIFY_SECRET": SECRET}


@contextmanager
def server(record: Path, target: str, port: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    command = [sys.executable, "-m", "sourcebook", "notify", "serve", str(record)]
    with log.open("ab") as err:
        process = subprocess.Popen(
            [*command, "--db", target, "--port", str(port)], stderr=err, env=environment()
        )
    try:
        wait_healthy(f"http://127.0.0.1:{port}", process)
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=15)


def wait_healthy(url: str, process: subprocess.Popen[bytes], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, "the server stopped"
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError("the server did not come up")


def sign_ups_with_a_kill(url: str, statement: str, process: subprocess.Popen[bytes]) -> dict:
    """500 sign-ups from 32 threads; SIGKILL once KILL_AFTER have been answered."""
    answered: dict[str, int | None] = {}
    lock = threading.Lock()
    done = 0

    def one(address: str) -> None:
        nonlocal done
        try:
            status: int | None = client.post(
                f"{url}/signup",
                data=sign_up_form(address, statement),
                headers={"Origin": SITE_ORIGIN},
                timeout=10,
            ).status_code
        except httpx.TransportError:
            status = None
        with lock:
            answered[address] = status
            done += 1
            if done == KILL_AFTER:
                process.send_signal(signal.SIGKILL)

    limits = httpx.Limits(max_connections=32, max_keepalive_connections=32)
    with httpx.Client(limits=limits) as client, ThreadPoolExecutor(max_workers=32) as pool:
        list(pool.map(one, [f"reader{i}@example.org" for i in range(SIGNUPS)]))
    process.wait(timeout=10)
    return answered


def test_a_server_killed_mid_flight_loses_no_sign_up(
    tmp_path: Path, db_target: str, smtp: Smtp
) -> None:
    record, port = tmp_path / "record", free_port()
    url = f"http://127.0.0.1:{port}"
    write_settings(record, notify_settings(url, smtp.port))
    statement = statement_hash(record)
    log = tmp_path / "server.log"
    with server(record, db_target, port, log) as process:
        answered = sign_ups_with_a_kill(url, statement, process)
    assert process.returncode == -signal.SIGKILL
    succeeded = {address for address, status in answered.items() if status == 303}
    assert KILL_AFTER <= len(succeeded) < SIGNUPS, "the kill came while sign-ups were in flight"

    with server(record, db_target, port, log):
        db = open_migrated(db_target)
        try:
            stored = {a for (a,) in rows(db, "SELECT address FROM readers")}
            assert succeeded <= stored, f"lost: {sorted(succeeded - stored)[:5]}"
            wait_until_all_sent(db)
            smtp.mailbox.wait_for_all(stored, timeout=5)
            mailed = Counter(m["To"].addresses[0].addr_spec for m in smtp.mailbox.messages)
            assert stored <= set(mailed), "every stored sign-up gets its confirmation"
        finally:
            db.close()
    report(
        "serve killed",
        db_target,
        in_flight=SIGNUPS,
        answered_303=len(succeeded),
        stored_after_restart=len(stored),
        emails_received=len(smtp.mailbox.messages),
        addresses_mailed=len(mailed),
        mailed_twice=sum(1 for n in mailed.values() if n > 1),
    )


def wait_until_all_sent(db: Any, timeout: float = 20) -> None:
    """Until the restarted server's sender has sent every email, those a kill left too."""
    deadline = time.monotonic() + timeout
    while rows(db, "SELECT count(*) FROM outbox WHERE state <> 'sent'") != [(0,)]:
        assert time.monotonic() < deadline, "emails are left unsent"
        time.sleep(0.1)


def statement_hash(record: Path) -> str:
    from sourcebook.notify.config import from_settings
    from sourcebook.notify.setup import record_settings

    return from_settings(record_settings(record), dev=True).statement.sha256


def confirmed_readers(record: Path, target: str, smtp: Smtp, count: int) -> set[str]:
    db = open_migrated(target)
    try:
        service = make_service(record, db, smtp)
        addresses = [f"reader{i}@example.org" for i in range(count)]
        for address in addresses:
            service.readers.sign_up(address, "127.0.0.1")
        with db.transaction() as tx:
            tx.execute("UPDATE readers SET state = 'confirmed', confirm_nonce = NULL")
            tx.execute("DELETE FROM outbox")
    finally:
        db.close()
    return set(addresses)


def announce(record: Path, target: str, output: bool = False) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "sourcebook", "notify", "announce", str(record)]
    return subprocess.Popen(
        [*command, "--db", target],
        stdout=subprocess.PIPE if output else subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=environment(),
    )


def announced(smtp: Smtp) -> list[Any]:
    return [m for m in list(smtp.mailbox.messages) if m["Subject"] == ANNOUNCEMENT]


def test_an_announcement_killed_mid_way_resumes_without_doubles(
    tmp_path: Path, db_target: str, smtp: Smtp
) -> None:
    record = tmp_path / "record"
    readers = confirmed_readers(record, db_target, smtp, READERS)
    smtp.mailbox.delay = 0.004
    first = announce(record, db_target)
    deadline = time.monotonic() + 30
    while len(announced(smtp)) < READERS // 3 and time.monotonic() < deadline:
        assert first.poll() is None, "the announcement ended before it could be killed"
        time.sleep(0.01)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    before_restart = len(announced(smtp))
    assert before_restart < READERS

    second = announce(record, db_target, output=True)
    output, _ = second.communicate(timeout=30)
    assert second.returncode == 0, output
    assert f"{READERS} sent" in output.decode()

    messages = announced(smtp)
    ids_by_reader: dict[str, set[str]] = {}
    for message in messages:
        ids_by_reader.setdefault(message["To"].addresses[0].addr_spec, set()).add(
            message["Message-ID"]
        )
    assert set(ids_by_reader) == readers, "no confirmed reader is missed"
    assert all(len(ids) == 1 for ids in ids_by_reader.values()), "nobody gets two announcements"
    db = open_migrated(db_target)
    try:
        assert rows(db, "SELECT count(*) FROM announcements") == [(READERS,)]
        assert rows(db, "SELECT state, count(*) FROM outbox GROUP BY state") == [("sent", READERS)]
    finally:
        db.close()
    report(
        "announce killed",
        db_target,
        confirmed=READERS,
        received_before_kill=before_restart,
        announcements_received=len(messages),
        readers_reached=len(ids_by_reader),
        second_copies_same_message_id=len(messages) - len(ids_by_reader),
        missed=len(readers - set(ids_by_reader)),
    )


POISON = {
    "stuck@example.org": "recipient refused for now: 451",
    "é@example.com": "the address cannot be mailed: ",
    "=?utf-8?q?a?=@example.com": "the address cannot be mailed: ",
}


def signed_up_with_poison(record: Path, target: str, smtp: Smtp) -> set[str]:
    """SIGNUPS readers, and among them three whose emails cannot go: two addresses kept
    before the form refused them, one the mail server puts off forever. The others."""
    db = open_migrated(target)
    try:
        service = make_service(record, db, smtp)
        ordinary = [f"reader{i}@example.org" for i in range(SIGNUPS)]
        poison = iter(POISON)
        for i, address in enumerate(ordinary):
            if i % 200 == 0:
                service.readers.sign_up(f"poison{i}@example.org", "127.0.0.1")
                with db.transaction() as tx:
                    tx.execute(
                        "UPDATE readers SET address = ? WHERE address = ?",
                        (next(poison), f"poison{i}@example.org"),
                    )
            service.readers.sign_up(address, "127.0.0.1")
    finally:
        db.close()
    return set(ordinary)


def test_a_poison_address_among_500_sign_ups_delays_no_other(
    tmp_path: Path, db_target: str, smtp: Smtp
) -> None:
    record = tmp_path / "record"
    ordinary = signed_up_with_poison(record, db_target, smtp)
    smtp.mailbox.refuse.add("stuck@example.org")
    command = [sys.executable, "-m", "sourcebook", "notify", "send", str(record)]
    log = tmp_path / "sender.log"
    with log.open("wb") as err:
        sender = subprocess.Popen([*command, "--db", db_target], stderr=err, env=environment())
    db = open_migrated(db_target)
    try:
        deadline = time.monotonic() + 60
        while rows(db, "SELECT count(*) FROM outbox WHERE state = 'pending'") != [(0,)]:
            assert sender.poll() is None, "the sender stopped"
            assert time.monotonic() < deadline, "emails are left pending"
            time.sleep(0.1)
        sender.send_signal(signal.SIGKILL)
        sender.wait(timeout=10)
        found = rows(
            db,
            "SELECT r.address, o.state, o.attempts, o.last_error FROM outbox o "
            "JOIN readers r ON r.id = o.reader_id",
        )
    finally:
        if sender.poll() is None:
            sender.kill()
        db.close()
    mailed = Counter(m["To"].addresses[0].addr_spec for m in smtp.mailbox.messages)
    assert set(mailed) == ordinary and set(mailed.values()) == {1}
    states = Counter(state for _, state, _, _ in found)
    assert states == {"sent": SIGNUPS, "dead": len(POISON)}
    for address, state, _, error in found:
        if address in POISON:
            assert state == "dead" and POISON[address] in error, error
            assert address not in error
    stuck = next(row for row in found if row[0] == "stuck@example.org")
    assert stuck[2] == 3, "the one put off is tried max_attempts times"
    logged = log.read_text(encoding="utf-8").splitlines()
    assert all(line.startswith("{") for line in logged), "one JSON line each, no traceback"
    report("poison among sign-ups", db_target, signed_up=SIGNUPS + len(POISON), **states)


def report(what: str, target: str, **counts: int) -> None:
    kind = "postgresql" if target.startswith("postgres") else "sqlite"
    shown = ", ".join(f"{name} {value}" for name, value in counts.items())
    print(f"\n{what} ({kind}): {shown}")
