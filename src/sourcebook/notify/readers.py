"""What a reader can do: sign up, confirm, unsubscribe, see their data, have it erased.

Every change is one transaction with its consent-log entry and the email it causes.
A sign-up answers the same whether the address is new, waiting or already confirmed,
so the answer says nothing about who else is on the list.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from sourcebook.notify import limits, outbox
from sourcebook.notify.addresses import deliverable
from sourcebook.notify.config import Config
from sourcebook.notify.database import Database, Row, Transaction
from sourcebook.notify.hashing import Hasher
from sourcebook.notify.policy import CONFIRM_DAYS, DAY, LINK_DAYS, Statement
from sourcebook.notify.tokens import Claim, Signer


class LinkGone(Exception):
    """A signed link whose reader or purpose is gone: used, unsubscribed, erased."""


@dataclass(frozen=True)
class ReaderData:
    """Everything kept about one reader, as their data link shows it."""

    reader: dict[str, object]
    consent: list[dict[str, object]]
    emails: list[dict[str, object]]
    announcements: list[dict[str, object]]


READER_COLUMNS = ("id", "address", "state", "created_at", "confirmed_at", "unsubscribed_at")


class Readers:
    def __init__(
        self,
        db: Database,
        config: Config,
        hasher: Hasher,
        clock: Callable[[], float] = time.time,
    ):
        self.db = db
        self.config = config
        self.hasher = hasher
        self.signer = Signer(config.secret)
        self.clock = clock
        self.statement: Statement = config.statement

    def now(self) -> int:
        return int(self.clock())

    def count_client(self, client: str) -> None:
        """Count a request that stores nothing (a bad address); RateLimited over the limit."""
        with self.db.transaction() as tx:
            limits.check_client(tx, self.hasher.client(client), self._client_limit, self.now())

    @property
    def _client_limit(self) -> int:
        return self.config.notify.signups_per_client_hour

    def sign_up(self, typed: str, client: str) -> None:
        """Sign `typed` up (InvalidAddress, RateLimited); an email follows where allowed."""
        address = deliverable(typed).address
        address_hash, now = self.hasher.address(address), self.now()
        with self.db.transaction() as tx:
            limits.check_client(tx, self.hasher.client(client), self._client_limit, now)
            reader_id, kind = self._upsert(tx, address, address_hash, now)
            self._log(tx, reader_id, "asked", "form", now)
            allowed = self.config.notify.emails_per_address_day
            if limits.address_allows(tx, address_hash, allowed, now):
                outbox.enqueue(tx, reader_id, kind, now)

    def _upsert(
        self, tx: Transaction, address: str, address_hash: str, now: int
    ) -> tuple[int, str]:
        """The reader's row, made or renewed; and the email to send: confirm or already."""
        found = tx.one("SELECT id, state FROM readers WHERE address_hash = ?", (address_hash,))
        if found is None:
            new_id = tx.value(
                "INSERT INTO readers (address, address_hash, state, link_key, confirm_nonce, "
                "created_at) VALUES (?, ?, 'pending', ?, ?, ?) "
                "ON CONFLICT (address_hash) DO NOTHING RETURNING id",
                (address, address_hash, _random(), _random(), now),
            )
            if new_id is not None:
                return int(new_id), "confirm"
            found = tx.one("SELECT id, state FROM readers WHERE address_hash = ?", (address_hash,))
            assert found is not None
        reader_id, state = int(found[0]), str(found[1])
        if state == "confirmed":
            return reader_id, "already"
        tx.execute(
            "UPDATE readers SET address = ?, state = 'pending', confirm_nonce = ?, "
            "created_at = ?, confirmed_at = NULL, unsubscribed_at = NULL WHERE id = ?",
            (address, _random(), now, reader_id),
        )
        return reader_id, "confirm"

    def _log(self, tx: Transaction, reader_id: int, event: str, method: str, now: int) -> None:
        tx.execute(
            "INSERT INTO consent_events (reader_id, event, statement_version, statement_sha256, "
            "method, at) VALUES (?, ?, ?, ?, ?, ?)",
            (reader_id, event, self.statement.version, self.statement.sha256, method, now),
        )

    # The links in the emails.

    def link(self, purpose: str, row: Row, now: int) -> str:
        """The token of a link to `purpose` for a reader's (id, link_key, confirm_nonce,
        created_at)."""
        reader_id, link_key, nonce, created_at = row
        if purpose == "confirm":
            claim = Claim("confirm", reader_id, nonce, created_at + CONFIRM_DAYS * DAY)
        else:
            claim = Claim(purpose, reader_id, link_key, now + LINK_DAYS * DAY)
        return self.signer.sign(claim)

    def read_link(self, token: str, purpose: str) -> Claim:
        return self.signer.read(token, purpose, self.now())

    def check_confirm(self, token: str) -> None:
        """TokenError or LinkGone where a confirmation link cannot be used."""
        claim = self.read_link(token, "confirm")
        with self.db.transaction() as tx:
            self._pending(tx, claim)

    def confirm(self, token: str) -> None:
        claim = self.read_link(token, "confirm")
        now = self.now()
        with self.db.transaction() as tx:
            self._pending(tx, claim)
            tx.execute(
                "UPDATE readers SET state = 'confirmed', confirmed_at = ?, confirm_nonce = NULL "
                "WHERE id = ?",
                (now, claim.reader_id),
            )
            self._log(tx, claim.reader_id, "confirmed", "link", now)

    def _pending(self, tx: Transaction, claim: Claim) -> None:
        row = tx.one("SELECT state, confirm_nonce FROM readers WHERE id = ?", (claim.reader_id,))
        if row is None:
            raise LinkGone("this sign-up is no longer here: sign up again")
        if row[1] is None or not secrets.compare_digest(str(row[1]), claim.value):
            raise LinkGone("this link has been used already, or a newer one replaced it")

    def _own(self, tx: Transaction, claim: Claim) -> Row:
        row = tx.one(
            "SELECT id, address, address_hash, state, link_key FROM readers WHERE id = ?",
            (claim.reader_id,),
        )
        if row is None or not secrets.compare_digest(str(row[4]), claim.value):
            raise LinkGone("nothing is kept about this link's address any more")
        return row

    def check_own(self, token: str, purpose: str) -> None:
        claim = self.read_link(token, purpose)
        with self.db.transaction() as tx:
            self._own(tx, claim)

    def unsubscribe(self, token: str, method: str) -> None:
        """Unsubscribe and delete the address; again for a reader who left is no change."""
        claim = self.read_link(token, "unsubscribe")
        now = self.now()
        with self.db.transaction() as tx:
            row = self._own(tx, claim)
            if row[3] == "unsubscribed":
                return
            tx.execute(
                "UPDATE readers SET state = 'unsubscribed', address = NULL, confirm_nonce = NULL, "
                "unsubscribed_at = ? WHERE id = ?",
                (now, claim.reader_id),
            )
            tx.execute(
                "UPDATE outbox SET state = 'cancelled', last_error = 'unsubscribed' "
                "WHERE reader_id = ? AND state = 'pending'",
                (claim.reader_id,),
            )
            self._log(tx, claim.reader_id, "unsubscribed", method, now)

    def data(self, token: str) -> ReaderData:
        claim = self.read_link(token, "data")
        with self.db.transaction() as tx:
            self._own(tx, claim)
            return _reader_data(tx, claim.reader_id)

    def erase(self, token: str) -> None:
        """Delete everything about the reader; keep only the keyed hash of the address."""
        claim = self.read_link(token, "data")
        now = self.now()
        with self.db.transaction() as tx:
            row = self._own(tx, claim)
            for table in ("outbox", "announcements", "consent_events"):
                tx.execute(f"DELETE FROM {table} WHERE reader_id = ?", (claim.reader_id,))
            tx.execute("DELETE FROM readers WHERE id = ?", (claim.reader_id,))
            tx.execute(
                "INSERT INTO erasures (address_hash, erased_at) VALUES (?, ?) "
                "ON CONFLICT (address_hash) DO UPDATE SET erased_at = excluded.erased_at",
                (row[2], now),
            )


def _reader_data(tx: Transaction, reader_id: int) -> ReaderData:
    reader = tx.one(f"SELECT {', '.join(READER_COLUMNS)} FROM readers WHERE id = ?", (reader_id,))
    assert reader is not None
    consent = tx.execute(
        "SELECT event, statement_version, statement_sha256, method, at FROM consent_events "
        "WHERE reader_id = ? ORDER BY id",
        (reader_id,),
    )
    emails = tx.execute(
        "SELECT kind, campaign, state, created_at, sent_at FROM outbox WHERE reader_id = ? "
        "ORDER BY id",
        (reader_id,),
    )
    announced = tx.execute(
        "SELECT campaign, enqueued_at FROM announcements WHERE reader_id = ? ORDER BY campaign",
        (reader_id,),
    )
    return ReaderData(
        dict(zip(READER_COLUMNS, reader, strict=True)),
        _dicts(("event", "version", "sha256", "method", "at"), consent),
        _dicts(("kind", "campaign", "state", "created", "sent"), emails),
        _dicts(("campaign", "enqueued_at"), announced),
    )


def _dicts(names: tuple[str, ...], rows: list[Row]) -> list[dict[str, object]]:
    return [dict(zip(names, row, strict=True)) for row in rows]


def _random() -> str:
    return secrets.token_urlsafe(18)
