"""What the sign-up service asks a reader to agree to, what it keeps, and for how long.

This is the one definition: the migrations create exactly these columns (a test holds
them to it), the purge deletes by these retention periods, and the site's Consent page
is rendered from this module, so the page cannot say one thing while the service does
another.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

STATEMENT_VERSION = 1
STATEMENT = (
    "Email me once, when {title} is out. {house} keeps my address for that alone "
    "and deletes it when I unsubscribe."
)

DAY = 86_400
PENDING_DAYS = 7
"""An unconfirmed sign-up is deleted this many days after it was made."""
MAIL_DAYS = 30
"""A sent or dead email's row is deleted this many days after its last try."""
LOG_DAYS = 3 * 365
"""A reader who left is forgotten (log and all) this many days after leaving."""
CONFIRM_DAYS = PENDING_DAYS
"""A confirmation link works this long after the sign-up, and no longer."""
LINK_DAYS = 365
"""An unsubscribe or data link works this long after its email was sent."""
IPV4_PREFIX = 24
IPV6_PREFIX = 48


@dataclass(frozen=True)
class Statement:
    """The consent statement of one book, as the form shows it and the log records it."""

    text: str
    version: int

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def statement(title: str, house: str) -> Statement:
    return Statement(STATEMENT.format(title=title, house=house), STATEMENT_VERSION)


@dataclass(frozen=True)
class Column:
    name: str
    meaning: str


@dataclass(frozen=True)
class Table:
    name: str
    purpose: str
    kept: str
    columns: tuple[Column, ...]


STORED: tuple[Table, ...] = (
    Table(
        "readers",
        "One row per address that signed up.",
        f"An unconfirmed sign-up: {PENDING_DAYS} days, then deleted. A confirmed reader: "
        "until they unsubscribe or ask for erasure. On unsubscribing the address is "
        f"deleted at once; the rest of the row is deleted {LOG_DAYS // 365} years later.",
        (
            Column("id", "A number for the row."),
            Column("address", "Your email address; deleted when you unsubscribe."),
            Column(
                "address_hash",
                "A keyed hash of your address, so that signing up twice makes one entry.",
            ),
            Column("state", "Pending, confirmed or unsubscribed."),
            Column("link_key", "A random key that the links in your emails are signed with."),
            Column("confirm_nonce", "A random value that makes the confirmation link work once."),
            Column("created_at", "When you signed up."),
            Column("confirmed_at", "When you confirmed."),
            Column("unsubscribed_at", "When you unsubscribed."),
        ),
    ),
    Table(
        "consent_events",
        "The consent log: what each reader agreed to, when and how, and when they withdrew.",
        "As long as the reader's row; deleted with it, and on erasure.",
        (
            Column("id", "A number for the entry."),
            Column("reader_id", "Whose entry it is (the number of their row, not the address)."),
            Column("event", "Asked (the form), confirmed (the link) or unsubscribed."),
            Column("statement_version", "The version of the consent statement agreed to."),
            Column("statement_sha256", "The SHA-256 hash of that statement's exact words."),
            Column("method", "How: the form, the link in the email, or the one-click header."),
            Column("at", "When."),
        ),
    ),
    Table(
        "erasures",
        "The log of erasures, so that an address erased is not mailed again by mistake "
        "(from a restored backup, say).",
        "As long as the service runs.",
        (
            Column("address_hash", "A keyed hash of the erased address; not the address."),
            Column("erased_at", "When it was erased."),
        ),
    ),
    Table(
        "outbox",
        "The emails to send; each is written in the same transaction as what caused it, "
        "so none is lost. The address is not copied here.",
        f"Until sent, then {MAIL_DAYS} days; deleted with the reader's row.",
        (
            Column("id", "A number for the email."),
            Column("reader_id", "To whom (the number of their row)."),
            Column("kind", "Confirmation, already signed up, or announcement."),
            Column("campaign", "Which announcement, for an announcement."),
            Column("state", "Pending, sent, dead (failed too often) or cancelled."),
            Column("attempts", "How often sending was tried."),
            Column("next_attempt_at", "When to try next."),
            Column("lease_until", "Until when a sender holds it."),
            Column("last_error", "The mail server's last refusal, without the address."),
            Column("created_at", "When it was written."),
            Column("sent_at", "When the mail server took it."),
        ),
    ),
    Table(
        "announcements",
        "Who has been sent which announcement, so that nobody is sent one twice.",
        "As long as the reader's row.",
        (
            Column("reader_id", "To whom (the number of their row)."),
            Column("campaign", "Which announcement."),
            Column("enqueued_at", "When it was put in the outbox."),
        ),
    ),
    Table(
        "rate_limits",
        "Counts that stop floods of sign-ups. The client's IP address is never stored: "
        f"only a keyed hash of its network (the first {IPV4_PREFIX} bits of an IPv4 "
        f"address, {IPV6_PREFIX} of an IPv6 one), or of the address signed up.",
        "Until the hour or day it counts is over.",
        (
            Column("bucket", "The keyed hash counted."),
            Column("window_start", "The hour or day counted."),
            Column("hits", "How many."),
        ),
    ),
    Table(
        "meta",
        "The service's own settings: the schema's version and the random key of the hashes.",
        "As long as the service runs.",
        (Column("key", "The setting's name."), Column("value", "Its value.")),
    ),
)


def stored_columns() -> dict[str, set[str]]:
    """Every table the policy declares, with its columns."""
    return {table.name: {column.name for column in table.columns} for table in STORED}
