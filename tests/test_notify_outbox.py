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
    one_click_link,
    rows,
)

from sourcebook.notify import announce, outbox
from sourcebook.notify.outbox import MAX_BACKOFF
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


def readdress(service: Any, reader_id: int, address: str) -> None:
    """Give a reader an address the form no longer accepts, as a row kept before it did."""
    with service.db.transaction() as tx:
        tx.execute("UPDATE readers SET address = ? WHERE id = ?", (address, reader_id))


def states(service: Any) -> dict[str, tuple[str, str | None]]:
    found = rows(
        service.db,
        "SELECT r.address, o.state, o.last_error FROM outbox o JOIN readers r "
        "ON r.id = o.reader_id ORDER BY o.id",
    )
    return {address: (state, error) for address, state, error in found}


def test_an_address_the_sender_cannot_write_is_dead_and_delays_no_other(
    service: Any, smtp: Smtp
) -> None:
    poison = {"é@example.com": "'é' before the @-sign", "=?utf-8?q?a?=@example.com": "encoded"}
    for i, address in enumerate(poison):
        readdress(service, sign_up(service, f"kept-before{i}@example.org"), address)
    others = {f"r{i}@example.org" for i in range(5)}
    for address in sorted(others):
        sign_up(service, address)
    assert service.sender.run_once() == 7
    assert smtp.mailbox.addressees() == others
    found = states(service)
    for address, reason in poison.items():
        state, error = found[address]
        assert state == "dead" and error.startswith("the address cannot be mailed: ")
        assert reason in error and address not in error
    assert service.sender.run_once() == 0, "a dead email is not claimed again"


class Faulty:
    """The real SMTP transport, but sending to `address` fails in a way no one foresaw."""

    def __init__(self, transport: Any, address: str):
        self.transport = transport
        self.address = address

    def send(self, message: Any, recipient: str) -> None:
        if recipient == self.address:
            raise RuntimeError(f"something unforeseen went wrong with {recipient}")
        self.transport.send(message, recipient)

    def close(self) -> None:
        self.transport.close()


def test_any_fault_with_one_email_fails_that_email_alone_until_dead(
    service: Any, smtp: Smtp, clock: Clock
) -> None:
    real = service.sender.transport
    service.sender.transport = lambda: Faulty(real(), "bad@example.org")
    sign_up(service, "bad@example.org")
    sign_up(service, "good@example.org")
    for attempt in range(1, service.config.notify.max_attempts + 1):
        assert service.sender.run_once() >= 1
        state, error = states(service)["bad@example.org"]
        assert error == "RuntimeError: something unforeseen went wrong with <address>"
        assert state == ("dead" if attempt == service.config.notify.max_attempts else "pending")
        sign_up(service, f"later{attempt}@example.org")
        clock.advance(MAX_BACKOFF)
    service.sender.run_once()
    assert smtp.mailbox.addressees() == {
        "good@example.org",
        *(f"later{attempt}@example.org" for attempt in range(1, attempt + 1)),
    }
    assert outbox.counts(service.db) == {"dead": 1, "sent": attempt + 1}


def test_an_email_whose_every_sender_died_ends_dead(service: Any, smtp: Smtp, clock: Clock):
    sign_up(service, "doomed@example.org")
    lease, most = service.config.notify.lease_seconds, service.config.notify.max_attempts
    for _ in range(most):  # each sender that takes it dies before it can say how it went
        assert len(outbox.claim(service.db, int(clock.now), lease, 10)) == 1
        clock.advance(lease)
    sign_up(service, "fine@example.org")
    assert service.sender.run_once() == 1
    assert states(service)["doomed@example.org"] == ("dead", outbox.ABANDONED.format(most))
    assert smtp.mailbox.addressees() == {"fine@example.org"}


def test_one_click_unsubscribe_is_one_line_on_the_wire(
    tmp_path: Path, db: Any, smtp: Smtp, clock: Clock
) -> None:
    url = "https://notify.dryburgh.example/the-ai-compute-race/readers-who-asked-to-hear"
    service = make_service(tmp_path / "record", db, smtp, clock, service_url=url)
    sign_up(service, "ada@example.org")
    service.sender.run_once()
    (raw,) = smtp.mailbox.raw_to("ada@example.org")
    unsubscribe = one_click_link(raw)
    assert unsubscribe.startswith(f"{url}/unsubscribe?t=")
    assert f"\r\nList-Unsubscribe: <{unsubscribe}>\r\n".encode() in raw
    assert len(unsubscribe) > 78, "long enough that the email package would have folded it"
    (message,) = smtp.mailbox.to("ada@example.org")
    text = message.get_body(("plain",)).get_content()
    assert f"Unsubscribe: {unsubscribe}" in text.splitlines()
