"""The sender: delivers the outbox, retries with a growing wait, and runs the purge.

It may run in the server's process (a thread) and in any number of other processes at
once: each claims its rows under a lease. Killed at any moment, it leaves rows that are
either sent, or claimed and due again once their lease runs out.
"""

from __future__ import annotations

import re
import smtplib
import threading
import time
from collections.abc import Callable

from sourcebook.notify import outbox
from sourcebook.notify.addresses import InvalidAddress, Recipient, deliverable
from sourcebook.notify.config import Config
from sourcebook.notify.database import Database, Row
from sourcebook.notify.hashing import Hasher
from sourcebook.notify.logs import first_line, log
from sourcebook.notify.mail import Letter, Links, PermanentFailure, Transport, compose, message_id
from sourcebook.notify.purge import purge
from sourcebook.notify.readers import Readers

BATCH = 50
PURGE_EVERY = 300
WANTED_STATE = {"confirm": "pending", "already": "confirmed", "announcement": "confirmed"}


class Sender:
    def __init__(
        self,
        readers: Readers,
        transport: Callable[[], Transport],
        clock: Callable[[], float] = time.time,
    ):
        self.readers = readers
        self.db: Database = readers.db
        self.config: Config = readers.config
        self.hasher: Hasher = readers.hasher
        self.transport = transport
        self.clock = clock
        self._purged_at = 0.0

    def run_once(self) -> int:
        """Deliver one batch of due emails (and purge, when due); how many were claimed."""
        now = int(self.clock())
        if now - self._purged_at >= PURGE_EVERY:
            self._purged_at = now
            purge(self.db, now)
        outbox.bury_abandoned(self.db, now, self.config.notify.max_attempts)
        claimed = outbox.claim(self.db, now, self.config.notify.lease_seconds, BATCH)
        if not claimed:
            return 0
        transport = self.transport()
        try:
            for message in claimed:
                self._deliver(transport, message)
        finally:
            transport.close()
        return len(claimed)

    def run(self, stop: threading.Event, wake: threading.Event | None = None) -> None:
        """Deliver until `stop` is set, waiting for `wake` (or a second) when idle."""
        while not stop.is_set():
            try:
                busy = self.run_once()
            except Exception as exc:  # a database that is away for a moment: try again
                log("sender-error", level="error", error=type(exc).__name__, detail=first_line(exc))
                busy = 0
            if not busy:
                if wake is not None:
                    wake.wait(1.0)
                    wake.clear()
                else:
                    stop.wait(1.0)

    def _deliver(self, transport: Transport, message: outbox.Claimed) -> None:
        reader = self._reader(message.reader_id)
        reason = self._why_not(message, reader)
        if reason:
            outbox.mark_cancelled(self.db, message.id, reason)
            log("mail-cancelled", outbox_id=message.id, kind=message.kind, reason=reason)
            return
        assert reader is not None
        try:
            recipient = deliverable(str(reader[1]))
        except InvalidAddress as exc:
            error = redact(f"the address cannot be mailed: {exc}", str(reader[1]))
            self._failed(message, error, True)
            return
        failure = self._send(transport, message, reader, recipient)
        if failure is not None:
            error, permanent = failure
            self._failed(message, redact(error, recipient.address, recipient.ascii), permanent)
            return
        outbox.mark_sent(self.db, message.id, int(self.clock()))
        log("mail-sent", outbox_id=message.id, kind=message.kind, attempt=message.attempts)

    def _send(
        self, transport: Transport, message: outbox.Claimed, reader: Row, recipient: Recipient
    ) -> tuple[str, bool] | None:
        """Compose and send one email; None, or why it failed and whether for good.

        Whatever goes wrong with one email is that email's failure: it never stops the
        others of the batch, nor leaves this one claimed again and again with no reason.
        """
        now = int(self.clock())
        try:
            letter = Letter(
                message.kind,
                recipient.ascii,
                message_id(message.id, self.hasher.tag, self.config.notify.sender),
                self._links(reader, now),
                now,
            )
            transport.send(compose(letter, self.config), recipient.ascii)
        except PermanentFailure as exc:
            return str(exc), True
        except (OSError, smtplib.SMTPException) as exc:
            return f"{type(exc).__name__}: {first_line(exc)}", False
        except Exception as exc:  # composing or sending this one email failed in another way
            transport.close()  # a conversation broken off half-way is not reused
            return f"{type(exc).__name__}: {first_line(exc)}", False
        return None

    def _reader(self, reader_id: int) -> Row | None:
        """(id, address, state, link_key, confirm_nonce, created_at, erased_at) of a reader."""
        with self.db.transaction() as tx:
            return tx.one(
                "SELECT r.id, r.address, r.state, r.link_key, r.confirm_nonce, r.created_at, "
                "e.erased_at FROM readers r LEFT JOIN erasures e "
                "ON e.address_hash = r.address_hash WHERE r.id = ?",
                (reader_id,),
            )

    @staticmethod
    def _why_not(message: outbox.Claimed, reader: Row | None) -> str:
        if reader is None or reader[1] is None:
            return "the reader is gone"
        if reader[6] is not None and reader[6] > reader[5]:
            return "the address was erased after this sign-up"
        if reader[2] != WANTED_STATE[message.kind]:
            return f"the reader is {reader[2]}"
        return ""

    def _links(self, reader: Row, now: int) -> Links:
        key = (reader[0], reader[3], reader[4], reader[5])
        base = self.config.service_url

        def url(path: str, purpose: str) -> str:
            return f"{base}/{path}?t={self.readers.link(purpose, key, now)}"

        return Links(
            confirm=url("confirm", "confirm") if reader[4] else "",
            unsubscribe=url("unsubscribe", "unsubscribe"),
            data=url("data", "data"),
        )

    def _failed(self, message: outbox.Claimed, error: str, permanent: bool) -> None:
        state = outbox.mark_failed(
            self.db,
            message,
            error,
            int(self.clock()),
            permanent=permanent,
            first_wait=self.config.notify.retry_seconds,
            max_attempts=self.config.notify.max_attempts,
        )
        level = "error" if state == "dead" else "warning"
        log("mail-failed", level=level, outbox_id=message.id, state=state, error=error[:200])


def redact(error: str, *addresses: str) -> str:
    """A mail server's words without the address they may quote (in either of its forms):
    the error is logged and kept in the outbox, where no address belongs."""
    for address in addresses:
        error = re.sub(re.escape(address), "<address>", error, flags=re.IGNORECASE)
    return error
