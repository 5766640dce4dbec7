"""The retention periods of the policy, enforced: what is past its time is deleted."""

from __future__ import annotations

from sourcebook.notify import limits
from sourcebook.notify.database import Database
from sourcebook.notify.logs import log
from sourcebook.notify.policy import DAY, LOG_DAYS, MAIL_DAYS, PENDING_DAYS


def purge(db: Database, now: int) -> dict[str, int]:
    """Delete what the policy no longer allows to keep; how many rows of each kind."""
    with db.transaction() as tx:
        deleted = {
            "unconfirmed": len(
                tx.execute(
                    "DELETE FROM readers WHERE state = 'pending' AND created_at < ? RETURNING id",
                    (now - PENDING_DAYS * DAY,),
                )
            ),
            "left": len(
                tx.execute(
                    "DELETE FROM readers WHERE state = 'unsubscribed' AND unsubscribed_at < ? "
                    "RETURNING id",
                    (now - LOG_DAYS * DAY,),
                )
            ),
            "emails": len(
                tx.execute(
                    "DELETE FROM outbox WHERE state IN ('sent', 'dead', 'cancelled') "
                    "AND coalesce(sent_at, next_attempt_at) < ? RETURNING id",
                    (now - MAIL_DAYS * DAY,),
                )
            ),
            "rate_limits": limits.purge(tx, now),
        }
    if any(deleted.values()):
        log("purged", deleted=deleted)
    return deleted
