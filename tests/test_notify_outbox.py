"""The outbox and its sender on both databases: retries with a growing wait, a dead end
in sight, leases that outlive a killed sender, the purge, and one announcement each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from notify_fixtures import (
    Clock,
    Smtp,
    count,
    make_service,
    rows,
)

from sourcebook.notify import announce, outbox
from sourcebook.notify.policy import DAY, PENDING_DAYS


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def service(tmp_path: Path, db: Any, smtp: Smtp, clock: Clock) -> Any:
    return make_service(tmp_path / "record", db, smtp, clock)


def sign_up(service: Any, address: str) -> int:
    service.readers.sign_up(address, "127.0.0.1")
    return int(rows(service.db, "SELECT id FROM readers WHERE address = ?", (address,))[0][0])


def confirm_all(service: Any) -> None:
    with service.db.transaction() as tx:
        tx.execute("UPDATE readers SET state = 'confirmed', confirm_nonce = NULL")


def outbox_row(service: Any) -> tuple[Any, ...]:
    return rows(service.db, "SELECT state, attempts, next_attempt_at, last_error FROM outbox")[0]


def test_a_refused_email_is_retried_later_then_sent(service: Any, smtp: Smtp, clock: Clock):
    smtp.mailbox.refuse.add("ada@example.org")
    sign_up(service, "ada@example.org")
    assert service.sender.run_once() == 1
    state, attempts, next_at, error = outbox_row(service)
    assert (state, attempts) == ("pending", 1) and "451" in error
    assert "ada@example.org" not in error and "<address>" in error, "no address is kept"
    assert next_at > clock.now, "a failed email waits before its next try"
    assert service.sender.run_once() == 0, "and is not tried again at once"
    smtp.mailbox.refuse.clear()
    clock.advance(next_at - clock.now)
    assert service.sender.run_once() == 1
    assert outbox_row(service)[:2] == ("sent", 2)
    assert len(smtp.mailbox.to("ada@example.org")) == 1


def test_waits_grow_and_an_email_that_keeps_failing_ends_dead(
    service: Any, smtp: Smtp, clock: Clock
):
    smtp.mailbox.refuse.add("bob@example.org")
    sign_up(service, "bob@example.org")
    waits = []
    for _ in range(service.config.notify.max_attempts):
        service.sender.run_once()
        state, _, next_at, _ = outbox_row(service)
        waits.append(next_at - clock.now)
        clock.advance(next_at - clock.now)
    assert state == "dead"
    assert waits[1] > waits[0]
    assert service.sender.run_once() == 0
    assert outbox.counts(service.db) == {"dead": 1}


def test_a_permanent_refusal_is_dead_at_once(service: Any, smtp: Smtp) -> None:
    smtp.mailbox.reject.add("cy@example.org")
    sign_up(service, "cy@example.org")
    service.sender.run_once()
    state, attempts, _, error = outbox_row(service)
    assert (state, attempts) == ("dead", 1) and "550" in error
    assert "cy@example.org" not in error


def test_a_killed_senders_claim_is_taken_again_when_its_lease_is_over(
    service: Any,
    smtp: Smtp,
    clock: Clock,
) -> None:
    sign_up(service, "dee@example.org")
    lease = service.config.notify.lease_seconds
    taken = outbox.claim(service.db, int(clock.now), lease, 10)
    assert len(taken) == 1  # ... and the sender that took it dies here
    assert service.sender.run_once() == 0
    clock.advance(lease)
    assert service.sender.run_once() == 1
    assert outbox_row(service)[:2] == ("sent", 2)


def test_two_senders_never_claim_the_same_email(service: Any, clock: Clock) -> None:
    for i in range(30):
        sign_up(service, f"r{i}@example.org")
    first = outbox.claim(service.db, int(clock.now), 60, 20)
    second = outbox.claim(service.db, int(clock.now), 60, 20)
    assert len(first) == 20 and len(second) == 10
    assert not {m.id for m in first} & {m.id for m in second}


def test_the_purge_keeps_to_the_policy(service: Any, smtp: Smtp, clock: Clock) -> None:
    sign_up(service, "old@example.org")
    clock.advance(DAY)
    sign_up(service, "new@example.org")
    service.sender.run_once()
    clock.advance((PENDING_DAYS - 1) * DAY + 1)
    service.sender._purged_at = 0
    service.sender.run_once()
    assert rows(service.db, "SELECT address FROM readers") == [("new@example.org",)]
    assert count(service.db, "consent_events") == 1
    assert count(service.db, "outbox") == 1
    assert count(service.db, "rate_limits") == 0, "every count's window is over"


def test_an_erased_address_restored_from_a_backup_is_not_mailed(service: Any, smtp: Smtp) -> None:
    reader = sign_up(service, "eve@example.org")
    address_hash = rows(service.db, "SELECT address_hash FROM readers")[0][0]
    with service.db.transaction() as tx:
        tx.execute("INSERT INTO erasures VALUES (?, ?)", (address_hash, service.readers.now() + 1))
    service.sender.run_once()
    assert rows(
        service.db, "SELECT state, last_error FROM outbox WHERE reader_id = ?", (reader,)
    ) == [("cancelled", "the address was erased after this sign-up")]
    assert smtp.mailbox.messages == []


def test_an_announcement_is_enqueued_once_per_reader(service: Any, smtp: Smtp, clock: Clock):
    for i in range(25):
        sign_up(service, f"r{i}@example.org")
    sign_up(service, "late@example.org")
    with service.db.transaction() as tx:
        tx.execute("UPDATE readers SET state = 'confirmed' WHERE address <> 'late@example.org'")
    assert announce.enqueue(service.db, "published", int(clock.now), batch=10) == 25
    assert announce.enqueue(service.db, "published", int(clock.now), batch=10) == 0
    done = announce.deliver(service.sender, "published", patience=5, clock=clock)
    assert (done.enqueued, done.sent, done.pending, done.dead) == (25, 25, 0, 0)
    announced = [m for m in smtp.mailbox.messages if m["Subject"] == "The AI Compute Race is out"]
    assert len(announced) == 25
    assert len({m["To"].addresses[0].addr_spec for m in announced}) == 25
    assert "https://dryburgh.com/vol1#buy" in announced[0].get_body(("plain",)).get_content()


def test_the_schema_matches_the_policy(db: Any) -> None:
    from sourcebook.notify.policy import stored_columns

    with db.transaction() as tx:
        if tx.dialect.name == "sqlite":
            tables = [
                t for (t,) in tx.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            ]
            found = {t: {c[1] for c in tx.execute(f"PRAGMA table_info({t})")} for t in tables}
        else:
            columns = tx.execute(
                "SELECT table_name, column_name FROM information_schema.columns "
                "WHERE table_schema = current_schema()"
            )
            found = {}
            for table, column in columns:
                found.setdefault(table, set()).add(column)
    assert found == stored_columns()
