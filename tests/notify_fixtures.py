"""Real parts for the sign-up service's tests: a database of each kind, an SMTP server on
127.0.0.1 that keeps what it receives, and the service served by uvicorn in a thread.

Every database test runs on SQLite and on PostgreSQL. PostgreSQL is the one named by
SOURCEBOOK_TEST_POSTGRES (.ci/run starts Debian's and sets it); each test gets a schema of
its own in it, dropped afterwards. Where the variable is unset the PostgreSQL variant is
skipped, but never in CI.
"""

from __future__ import annotations

import asyncio
import email
import email.policy
import os
import re
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

POSTGRES_ENV = "SOURCEBOOK_TEST_POSTGRES"
SECRET = "test-secret-" + "x" * 40
SITE_ORIGIN = "http://127.0.0.1:8999"

NOTIFY_SETTINGS = """\
[book]
title = "The AI Compute Race"
house = "DRYBURGH"
closes = 2026-11-08

[site]
base_url = "{site_origin}"
base_path = "/vol1"
book_url = "https://dryburgh.com/vol1#buy"

[notify]
url = "{service_url}"
sender = "DRYBURGH <news@dryburgh.test>"
smtp_host = "127.0.0.1"
smtp_port = {smtp_port}
smtp_security = "none"
signups_per_client_hour = {per_client}
emails_per_address_day = 3
lease_seconds = 2
retry_seconds = 1
max_attempts = 3
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def notify_settings(
    service_url: str, smtp_port: int, site_origin: str = SITE_ORIGIN, per_client: int = 10_000
) -> str:
    return NOTIFY_SETTINGS.format(
        service_url=service_url, smtp_port=smtp_port, site_origin=site_origin, per_client=per_client
    )


# Databases.


@contextmanager
def postgres_schema() -> Iterator[str]:
    """A URL of the test PostgreSQL whose search path is a fresh schema, dropped after."""
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        if os.environ.get("CI"):
            pytest.fail(f"{POSTGRES_ENV} must be set in CI (.ci/run sets it)")
        pytest.skip(f"PostgreSQL tests need {POSTGRES_ENV} (.ci/run starts one and sets it)")
    import psycopg

    schema = f"t_{secrets.token_hex(6)}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
    joiner = "&" if "?" in url else "?"
    try:
        yield f"{url}{joiner}options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture(params=["sqlite", "postgresql"])
def db_target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Where a test's database lives: a SQLite file, or a PostgreSQL schema of its own."""
    if request.param == "sqlite":
        (tmp_path / "state").mkdir()
        yield str(tmp_path / "state" / "notify.sqlite3")
    else:
        with postgres_schema() as url:
            yield url


@pytest.fixture
def db(db_target: str) -> Iterator[Any]:
    from sourcebook.notify.setup import open_migrated

    database = open_migrated(db_target)
    try:
        yield database
    finally:
        database.close()


def rows(database: Any, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with database.transaction() as tx:
        return list(tx.execute(sql, params))


def count(database: Any, table: str) -> int:
    return int(rows(database, f"SELECT count(*) FROM {table}")[0][0])


# Mail.


@dataclass(frozen=True)
class Received:
    """One email as the SMTP server took it: its envelope's recipients and its raw bytes."""

    recipients: list[str]
    raw: bytes


class Mailbox:
    """What an SMTP server on 127.0.0.1 received, parsed by the email package (`messages`)
    and as it came over the wire (`received`)."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.received: list[Received] = []
        self.refuse: set[str] = set()
        """Addresses to answer with 451 (try again later)."""
        self.reject: set[str] = set()
        """Addresses to answer with 550 (never)."""
        self.delay = 0.0
        """Seconds to take over each email, as a slow mail server would."""
        self._arrived = threading.Condition()

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, _: Any):
        if address in self.reject:
            return f"550 <{address}>: no such user"
        if address in self.refuse:
            return f"451 <{address}>: try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.delay:
            await asyncio.sleep(self.delay)
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        with self._arrived:
            self.received.append(Received(list(envelope.rcpt_tos), envelope.original_content))
            self.messages.append(message)
            self._arrived.notify_all()
        return "250 Message accepted"

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in list(self.messages) if m["To"].addresses[0].addr_spec == address]

    def wait_for(self, address: str, count: int = 1, timeout: float = 15) -> list[EmailMessage]:
        deadline = time.monotonic() + timeout
        with self._arrived:
            while len(self.to(address)) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{count} email(s) to {address} never came")
                self._arrived.wait(left)
        return self.to(address)

    def wait_for_all(self, addresses: set[str], timeout: float = 30) -> None:
        """Until each of `addresses` has been sent at least one email."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while missing := addresses - self.addressees():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no email came to {len(missing)} of them")
                self._arrived.wait(left)

    def raw_to(self, address: str) -> list[bytes]:
        """The raw bytes of each email whose envelope named `address`."""
        return [r.raw for r in list(self.received) if address in r.recipients]

    def addressees(self) -> set[str]:
        return {m["To"].addresses[0].addr_spec for m in self.messages}


@dataclass
class Smtp:
    port: int
    mailbox: Mailbox


@pytest.fixture
def smtp() -> Iterator[Smtp]:
    from aiosmtpd.controller import Controller

    mailbox = Mailbox()
    port = free_port()
    controller = Controller(mailbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield Smtp(port, mailbox)
    finally:
        controller.stop()


def link(message: EmailMessage, path: str) -> str:
    """The link to `path` (confirm, unsubscribe, data) in an email's text."""
    body = message.get_body(("plain",))
    assert body is not None
    found = re.search(rf"(http://\S+/{path}\?t=\S+)", body.get_content())
    assert found, f"no /{path} link in {body.get_content()!r}"
    return found[1]


def one_click_link(raw: bytes) -> str:
    """The link a mail provider's one-click unsubscribe (RFC 8058) finds in an email's raw
    bytes: `List-Unsubscribe: <https://…>` (unfolded, never encoded) beside
    `List-Unsubscribe-Post: List-Unsubscribe=One-Click`."""
    head = raw.split(b"\r\n\r\n", 1)[0].decode("ascii")
    fields = re.split(r"\r\n(?![ \t])", head)
    found = {name.lower(): value for name, _, value in (f.partition(": ") for f in fields)}
    assert found["list-unsubscribe-post"] == "List-Unsubscribe=One-Click"
    value = re.sub(r"\r\n[ \t]", " ", found["list-unsubscribe"])
    match = re.fullmatch(r"<(https?://[^\s<>]+)>", value)
    assert match, f"List-Unsubscribe is not one <URL>: {value!r}"
    return match[1]


def token(url: str) -> str:
    return url.split("?t=", 1)[1]


# The service.


@dataclass
class Running:
    url: str
    service: Any
    record: Path
    mailbox: Mailbox

    @property
    def db(self) -> Any:
        return self.service.db


def write_settings(record: Path, text: str) -> Path:
    record.mkdir(parents=True, exist_ok=True)
    (record / "sourcebook.toml").write_text(text, encoding="utf-8")
    return record


@contextmanager
def running_service(
    record: Path, db_target: str, smtp: Smtp, per_client: int = 10_000
) -> Iterator[Running]:
    """The service of `record` on a free port of 127.0.0.1, in a thread, with its sender."""
    from sourcebook.notify.server import InThread, bound_socket
    from sourcebook.notify.service import Service
    from sourcebook.notify.setup import open_migrated, record_settings, service_config

    sock = bound_socket("127.0.0.1", 0)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    write_settings(record, notify_settings(url, smtp.port, per_client=per_client))
    os.environ["SOURCEBOOK_NOTIFY_SECRET"] = SECRET
    config = service_config(record, record_settings(record), dev=False)
    database = open_migrated(db_target)
    server = InThread(Service(config, database), sock)
    server.start()
    try:
        _wait_until_up(url)
        yield Running(url, server.service, record, smtp.mailbox)
    finally:
        server.stop()
        database.close()


def _wait_until_up(url: str, timeout: float = 10) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.05)
    raise AssertionError(f"the service at {url} did not come up")


def sign_up_form(
    address: str, statement: str, consent: str | None = "yes", honeypot: str = ""
) -> dict[str, str]:
    form = {"email": address, "statement": statement, "website": honeypot}
    if consent is not None:
        form["consent"] = consent
    return form


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = float(int(time.time()))

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def make_service(
    record: Path,
    database: Any,
    smtp: Smtp,
    clock: Clock | None = None,
    service_url: str = "http://127.0.0.1:8998",
) -> Any:
    """The service of a record (settings as `running_service` writes them), not served."""
    from sourcebook.notify.service import Service
    from sourcebook.notify.setup import record_settings, service_config

    write_settings(record, notify_settings(service_url, smtp.port))
    os.environ["SOURCEBOOK_NOTIFY_SECRET"] = SECRET
    config = service_config(record, record_settings(record), dev=False)
    return Service(config, database, clock=clock or time.time)
