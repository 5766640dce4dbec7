"""What the house asks of the list: its readers, the confirmed ones as CSV, counts."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import TextIO

from sourcebook.notify.database import Database

EXPORT_COLUMNS = ("address", "confirmed_at", "statement_version", "statement_sha256")


def readers(db: Database, state: str | None = None) -> Iterator[tuple[object, ...]]:
    """(id, state, address, created, confirmed, unsubscribed) of each reader, oldest first."""
    where, params = ("WHERE state = ?", (state,)) if state else ("", ())
    with db.transaction() as tx:
        rows = tx.execute(
            "SELECT id, state, address, created_at, confirmed_at, unsubscribed_at FROM readers "
            f"{where} ORDER BY id",
            params,
        )
    for row in rows:
        yield (row[0], row[1], row[2] or "", *(iso(value) for value in row[3:]))


def export(db: Database, out: TextIO) -> int:
    """Write the confirmed readers as CSV, each with the statement they confirmed."""
    with db.transaction() as tx:
        rows = tx.execute(
            "SELECT r.address, r.confirmed_at, e.statement_version, e.statement_sha256 "
            "FROM readers r JOIN consent_events e ON e.reader_id = r.id "
            "AND e.id = (SELECT max(id) FROM consent_events c "
            "WHERE c.reader_id = r.id AND c.event = 'confirmed') "
            "WHERE r.state = 'confirmed' ORDER BY r.id"
        )
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(EXPORT_COLUMNS)
    for address, confirmed_at, version, sha256 in rows:
        writer.writerow((address, iso(confirmed_at), version, sha256))
    return len(rows)


def stats(db: Database) -> dict[str, dict[str, int]]:
    """Counts of readers, emails and announcements, by state."""
    with db.transaction() as tx:
        readers = tx.execute("SELECT state, count(*) FROM readers GROUP BY state")
        emails = tx.execute("SELECT state, count(*) FROM outbox GROUP BY state")
        campaigns = tx.execute("SELECT campaign, count(*) FROM announcements GROUP BY campaign")
        erased = tx.value("SELECT count(*) FROM erasures")
    return {
        "readers": {"pending": 0, "confirmed": 0, "unsubscribed": 0, **_counts(readers)},
        "emails": {"pending": 0, "sent": 0, "dead": 0, "cancelled": 0, **_counts(emails)},
        "announcements": _counts(campaigns),
        "erasures": {"erased": int(erased)},
    }


def _counts(rows: list[tuple[object, ...]]) -> dict[str, int]:
    return {str(key): int(str(count)) for key, count in rows}


def iso(value: object) -> str:
    if value is None:
        return ""
    return datetime.fromtimestamp(int(str(value)), UTC).isoformat(timespec="seconds")
