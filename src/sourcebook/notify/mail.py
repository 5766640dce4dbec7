"""The emails, written with the email package, and the ways they leave: SMTP, or files.

Every email carries the reader's unsubscribe link, in its text and in the List-Unsubscribe
headers (RFC 2369, one-click per RFC 8058), and a link to see or erase what is kept.
Those two headers are written on one line each, as given: the email package would fold a
long link into RFC 2047 encoded words, where a mail provider looks for `<https://…>`.
Its Message-ID is fixed by its outbox row, so a copy delivered twice is known as one.
"""

from __future__ import annotations

import email.policy
import smtplib
import ssl
from dataclasses import dataclass
from email.headerregistry import BaseHeader, HeaderRegistry, UnstructuredHeader
from email.message import EmailMessage
from email.utils import formatdate, parseaddr
from pathlib import Path
from typing import Protocol

from sourcebook.model.settings import Notify
from sourcebook.notify.addresses import to_header
from sourcebook.notify.config import Config
from sourcebook.notify.policy import CONFIRM_DAYS, PENDING_DAYS


@dataclass(frozen=True)
class Links:
    confirm: str
    unsubscribe: str
    data: str


MAX_LINE = 998
"""The longest line RFC 5322 allows, without its CRLF."""


class OneLineHeader(UnstructuredHeader, BaseHeader):
    """A header written on one line exactly as given: never folded, never encoded."""

    max_count = 1

    @classmethod
    def parse(cls, value: str, kwds: dict[str, object]) -> None:
        super().parse(value, kwds)
        kwds["decoded"] = value

    def fold(self, *, policy: email.policy.Policy) -> str:
        line = f"{self.name}: {self}"
        if not line.isascii() or len(line) > MAX_LINE:
            raise ValueError(f"the {self.name} header does not fit on one line of ASCII")
        return line + policy.linesep


def _headers() -> HeaderRegistry:
    registry = HeaderRegistry()
    registry.map_to_type("list-unsubscribe", OneLineHeader)
    registry.map_to_type("list-unsubscribe-post", OneLineHeader)
    return registry


POLICY = email.policy.default.clone(header_factory=_headers())


@dataclass(frozen=True)
class Letter:
    kind: str
    address: str
    """As it is sent: the ASCII form `addresses.deliverable` gives."""
    message_id: str
    links: Links
    now: int


def compose(letter: Letter, config: Config) -> EmailMessage:
    subject, body = WRITERS[letter.kind](letter, config)
    message = EmailMessage(policy=POLICY)
    message["From"] = config.notify.sender or f"{config.house} <notify@localhost>"
    message["To"] = to_header(letter.address)
    message["Subject"] = subject
    message["Date"] = formatdate(letter.now)
    message["Message-ID"] = letter.message_id
    message["List-Unsubscribe"] = f"<{letter.links.unsubscribe}>"
    message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message["Auto-Submitted"] = "auto-generated"
    message.set_content(body + footer(letter.links, config))
    return message


def footer(links: Links, config: Config) -> str:
    return (
        "\n-- \n"
        f"Unsubscribe: {links.unsubscribe}\n"
        f"See or erase what {config.house} keeps about you: {links.data}\n"
        f"What is kept, and for how long: {config.consent_url}\n"
    )


def _confirm(letter: Letter, config: Config) -> tuple[str, str]:
    return (
        f"Confirm: tell me when {config.title} is out",
        f"Someone, we hope you, asked {config.house} to email this address once, "
        f"when {config.title} is out.\n\n"
        f"To confirm, open this link within {CONFIRM_DAYS} days:\n\n{letter.links.confirm}\n\n"
        f"If it was not you, do nothing: the address is deleted in {PENDING_DAYS} days.\n",
    )


def _already(letter: Letter, config: Config) -> tuple[str, str]:
    return (
        f"You are on the list for {config.title}",
        f"Someone, we hope you, asked again to hear when {config.title} is out. "
        "This address is already on the list, and will hear once.\n\n"
        "If you want to leave the list or see what is kept about you, the links are below.\n",
    )


def _announcement(letter: Letter, config: Config) -> tuple[str, str]:
    where = f"\n\n{config.book_url}\n" if config.book_url else "\n"
    return (
        f"{config.title} is out",
        f"You asked {config.house} to tell you when {config.title} is out. It is.{where}\n"
        "This is the one email you asked for; the list ends here for you unless you join "
        "another.\n",
    )


WRITERS = {"confirm": _confirm, "already": _already, "announcement": _announcement}


def message_id(outbox_id: int, tag: str, sender: str) -> str:
    domain = parseaddr(sender)[1].rpartition("@")[2] or "localhost"
    return f"<{outbox_id}.{tag}@{domain}>"


class Transport(Protocol):
    def send(self, message: EmailMessage, recipient: str) -> None:
        """Send `message` to `recipient` (the envelope's, which is also the To header's)."""

    def close(self) -> None: ...


class PermanentFailure(Exception):
    """The mail server refused the email for good (a 5xx answer): no retry will help."""


class TemporaryFailure(smtplib.SMTPException):
    """The mail server refused the email for now (a 4xx answer): try again later."""


class SmtpTransport:
    """One SMTP connection, opened on first use and kept for the batch."""

    def __init__(self, settings: Notify, password: str, timeout: float = 20.0):
        self.settings = settings
        self.password = password
        self.timeout = timeout
        self._smtp: smtplib.SMTP | None = None

    def _connect(self) -> smtplib.SMTP:
        s = self.settings
        smtp: smtplib.SMTP
        if s.smtp_security == "tls":
            context = ssl.create_default_context()
            smtp = smtplib.SMTP_SSL(s.smtp_host, s.smtp_port, timeout=self.timeout, context=context)
        else:
            smtp = smtplib.SMTP(s.smtp_host, s.smtp_port, timeout=self.timeout)
            if s.smtp_security == "starttls":
                smtp.starttls(context=ssl.create_default_context())
        if s.smtp_user:
            smtp.login(s.smtp_user, self.password)
        return smtp

    def send(self, message: EmailMessage, recipient: str) -> None:
        if self._smtp is None:
            self._smtp = self._connect()
        try:
            self._smtp.send_message(message, to_addrs=[recipient])
        except smtplib.SMTPRecipientsRefused as exc:
            answers = [f"{code} {_text(text)}" for code, text in exc.recipients.values()]
            if all(answer.startswith("5") for answer in answers):
                raise PermanentFailure(f"recipient refused: {'; '.join(answers)}") from None
            raise TemporaryFailure(f"recipient refused for now: {'; '.join(answers)}") from None
        except smtplib.SMTPResponseException as exc:
            self.close()
            if exc.smtp_code >= 500:
                raise PermanentFailure(f"{exc.smtp_code} {_text(exc.smtp_error)}") from None
            raise
        except (OSError, smtplib.SMTPException):
            self.close()
            raise

    def close(self) -> None:
        if self._smtp is not None:
            try:
                self._smtp.quit()
            except (OSError, smtplib.SMTPException):
                self._smtp.close()
            self._smtp = None


class FolderTransport:
    """Emails written as .eml files, for trying the service out without a mail server."""

    def __init__(self, folder: Path):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def send(self, message: EmailMessage, recipient: str) -> None:
        name = str(message["Message-ID"]).strip("<>").replace("/", "_") + ".eml"
        temporary = self.folder / f".{name}.tmp"
        temporary.write_bytes(bytes(message))
        temporary.replace(self.folder / name)

    def close(self) -> None:
        return None


def _text(error: bytes | str) -> str:
    return error.decode("utf-8", "replace") if isinstance(error, bytes) else error
