"""Rate limits kept in the database, so that every server process counts the same hits.

A limit counts hits to a bucket (a keyed hash) in fixed windows: an hour per client
network, a day per address.
"""

from __future__ import annotations

from sourcebook.notify.database import Transaction

HOUR = 3600
DAY = 86_400


class RateLimited(Exception):
    """Too many requests from one client; `retry_after` is in seconds."""

    def __init__(self, retry_after: int):
        super().__init__(f"too many requests; try again in {retry_after} s")
        self.retry_after = retry_after


def hit(tx: Transaction, bucket: str, window: int, now: int) -> int:
    """Count one hit to `bucket` in the window holding `now`; the hits so far, this one too."""
    start = now - now % window
    hits = tx.value(
        "INSERT INTO rate_limits (bucket, window_start, hits) VALUES (?, ?, 1) "
        "ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limits.hits + 1 "
        "RETURNING hits",
        (bucket, start),
    )
    return int(hits)


def check_client(tx: Transaction, client_hash: str, limit: int, now: int) -> None:
    """Count a request of a client; RateLimited once it is over `limit` this hour."""
    if hit(tx, CLIENT + client_hash, HOUR, now) > limit:
        raise RateLimited(HOUR - now % HOUR)


CLIENT = "c:"
ADDRESS = "a:"
WINDOWS = {CLIENT: HOUR, ADDRESS: DAY}


def address_allows(tx: Transaction, address_hash: str, limit: int, now: int) -> bool:
    """Count an email caused to an address; False once it is over `limit` today."""
    return hit(tx, ADDRESS + address_hash, DAY, now) <= limit


def purge(tx: Transaction, now: int) -> int:
    """Delete the counts of windows that are over."""
    deleted = 0
    for prefix, window in WINDOWS.items():
        rows = tx.execute(
            "DELETE FROM rate_limits WHERE substr(bucket, 1, 2) = ? AND window_start <= ? "
            "RETURNING 1",
            (prefix, now - window),
        )
        deleted += len(rows)
    return deleted
