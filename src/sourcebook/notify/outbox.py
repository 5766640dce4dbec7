"""The transactional outbox: emails written with what caused them, claimed under a lease.

A row is written in the transaction that causes it (a sign-up, an announcement), so an
email exists exactly when its cause does. A sender claims due rows for `lease` seconds;
one killed while sending leaves its rows to be claimed again once the lease runs out, so
every email is delivered at least once. A row that keeps failing ends `dead`, in sight.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from sourcebook.notify.database import Database, Transaction

KINDS = ("confirm", "already", "announcement")
MAX_BACKOFF = 6 * 3600
ABANDONED = "tried {} times; the last try never ended (its sender stopped while sending it)"


@dataclass(frozen=True)
class Claimed:
    id: int
    reader_id: int
    kind: str
    campaign: str | None
    attempts: int


def enqueue(
    tx: Transaction, reader_id: int, kind: str, now: int, campaign: str | None = None
) -> int:
    assert kind in KINDS
    return int(
        tx.value(
            "INSERT INTO outbox (reader_id, kind, campaign, state, attempts, next_attempt_at, "
            "created_at) VALUES (?, ?, ?, 'pending', 0, ?, ?) RETURNING id",
            (reader_id, kind, campaign, now, now),
        )
    )


def claim(db: Database, now: int, lease: int, limit: int) -> list[Claimed]:
    """Take up to `limit` due rows for `lease` seconds, oldest first."""
    with db.transaction() as tx:
        rows = tx.execute(
            "UPDATE outbox SET lease_until = ?, attempts = attempts + 1 WHERE id IN ("
            "SELECT id FROM outbox WHERE state = 'pending' AND next_attempt_at <= ? "
            "AND (lease_until IS NULL OR lease_until <= ?) "
            f"ORDER BY id LIMIT ? {tx.dialect.skip_locked}) "
            "RETURNING id, reader_id, kind, campaign, attempts",
            (now + lease, now, now, limit),
        )
    return sorted((Claimed(*row) for row in rows), key=lambda c: c.id)


def bury_abandoned(db: Database, now: int, max_attempts: int) -> int:
    """Leave `dead` each row tried `max_attempts` times whose last try never ended (its
    sender stopped while sending it, every time); how many. Claimed rows are left alone."""
    with db.transaction() as tx:
        rows = tx.execute(
            "UPDATE outbox SET state = 'dead', lease_until = NULL, last_error = ? "
            "WHERE state = 'pending' AND attempts >= ? "
            "AND lease_until <= ? RETURNING id",
            (ABANDONED.format(max_attempts), max_attempts, now),
        )
    return len(rows)


def mark_sent(db: Database, message_id: int, now: int) -> None:
    with db.transaction() as tx:
        tx.execute(
            "UPDATE outbox SET state = 'sent', sent_at = ?, lease_until = NULL, "
            "last_error = NULL WHERE id = ?",
            (now, message_id),
        )


def mark_cancelled(db: Database, message_id: int, reason: str) -> None:
    with db.transaction() as tx:
        tx.execute(
            "UPDATE outbox SET state = 'cancelled', lease_until = NULL, last_error = ? "
            "WHERE id = ?",
            (reason, message_id),
        )


def mark_failed(
    db: Database,
    message: Claimed,
    error: str,
    now: int,
    *,
    permanent: bool,
    first_wait: int,
    max_attempts: int,
) -> str:
    """Record a failed try: retried after an exponential wait, or dead; the new state."""
    dead = permanent or message.attempts >= max_attempts
    wait = backoff(message.attempts, first_wait)
    with db.transaction() as tx:
        tx.execute(
            "UPDATE outbox SET state = ?, next_attempt_at = ?, lease_until = NULL, "
            "last_error = ? WHERE id = ?",
            ("dead" if dead else "pending", now + wait, error[:500], message.id),
        )
    return "dead" if dead else "pending"


def backoff(attempts: int, first_wait: int) -> int:
    """The wait before try `attempts + 1`: doubling from `first_wait`, jittered, capped."""
    wait = min(first_wait * 2 ** max(attempts - 1, 0), MAX_BACKOFF)
    return math.ceil(wait * random.uniform(0.8, 1.0))


def counts(db: Database) -> dict[str, int]:
    """How many rows are in each state."""
    with db.transaction() as tx:
        rows = tx.execute("SELECT state, count(*) FROM outbox GROUP BY state")
    return {state: int(count) for state, count in rows}
