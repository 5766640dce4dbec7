"""The announcement: one email to every confirmed reader, once, however often it is run.

Readers are taken in batches; each batch's rows in `announcements` (unique per reader and
campaign) and its emails in the outbox are committed together. Killed and run again, it
goes on with the readers who have no row yet; the sender delivers what is enqueued.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from sourcebook.notify import outbox
from sourcebook.notify.database import Database
from sourcebook.notify.sender import Sender

BATCH = 200


@dataclass(frozen=True)
class Progress:
    enqueued: int
    pending: int
    sent: int
    dead: int
    cancelled: int


def enqueue(db: Database, campaign: str, now: int, batch: int = BATCH) -> int:
    """Put the announcement in the outbox for every confirmed reader who has none yet."""
    total = 0
    while True:
        with db.transaction() as tx:
            rows = tx.execute(
                "INSERT INTO announcements (reader_id, campaign, enqueued_at) "
                "SELECT id, ?, ? FROM readers r WHERE state = 'confirmed' AND NOT EXISTS ("
                "SELECT 1 FROM announcements a WHERE a.reader_id = r.id AND a.campaign = ?) "
                "ORDER BY id LIMIT ? ON CONFLICT (reader_id, campaign) DO NOTHING "
                "RETURNING reader_id",
                (campaign, now, campaign, batch),
            )
            for (reader_id,) in rows:
                outbox.enqueue(tx, int(reader_id), "announcement", now, campaign)
        total += len(rows)
        if not rows:
            return total


def progress(db: Database, campaign: str) -> Progress:
    with db.transaction() as tx:
        enqueued = tx.value("SELECT count(*) FROM announcements WHERE campaign = ?", (campaign,))
        rows = tx.execute(
            "SELECT state, count(*) FROM outbox WHERE campaign = ? GROUP BY state", (campaign,)
        )
    states = {state: int(count) for state, count in rows}
    return Progress(
        int(enqueued),
        states.get("pending", 0),
        states.get("sent", 0),
        states.get("dead", 0),
        states.get("cancelled", 0),
    )


def deliver(
    sender: Sender,
    campaign: str,
    patience: float,
    clock: Callable[[], float] = time.time,
) -> Progress:
    """Send the campaign's emails; wait out the leases of a sender that was killed, up to
    `patience` seconds without progress. Emails waiting for a later retry are left to it."""
    db = sender.db
    idle_since = clock()
    while True:
        if sender.run_once():
            idle_since = clock()
            continue
        now = int(clock())
        with db.transaction() as tx:
            held = tx.value(
                "SELECT count(*) FROM outbox WHERE campaign = ? AND state = 'pending' "
                "AND next_attempt_at <= ?",
                (campaign, now),
            )
        if not held or clock() - idle_since > patience:
            return progress(db, campaign)
        time.sleep(0.2)
