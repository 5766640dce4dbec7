"""The service assembled: its database, readers, sender and mail, from one configuration."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable

from sourcebook.notify.config import SMTP_PASSWORD_ENV, Config, ConfigError
from sourcebook.notify.database import Database
from sourcebook.notify.hashing import Hasher
from sourcebook.notify.mail import FolderTransport, SmtpTransport, Transport
from sourcebook.notify.migrations import require_current
from sourcebook.notify.readers import Readers
from sourcebook.notify.sender import Sender


def transports(config: Config) -> Callable[[], Transport]:
    """How the service's emails leave: to files where a folder is set, else over SMTP."""
    folder = config.mail_folder
    if folder is not None:
        return lambda: FolderTransport(folder)
    if not config.notify.smtp_host:
        raise ConfigError("[notify] smtp_host in sourcebook.toml must name the mail server")
    password = os.environ.get(SMTP_PASSWORD_ENV, "")
    return lambda: SmtpTransport(config.notify, password)


class Service:
    def __init__(
        self,
        config: Config,
        db: Database,
        transport: Callable[[], Transport] | None = None,
        clock: Callable[[], float] = time.time,
    ):
        require_current(db)
        self.config = config
        self.db = db
        self.readers = Readers(db, config, Hasher.of(db), clock)
        self.sender = Sender(self.readers, transport or transports(config), clock)
        self.wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def database_errors(self) -> tuple[type[Exception], ...]:
        import psycopg

        return (sqlite3.Error, psycopg.Error)

    def health(self) -> int:
        from sourcebook.notify.migrations import schema_version

        with self.db.transaction() as tx:
            return schema_version(tx)

    def start_sender(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(
            target=self.sender.run, args=(self._stop, self.wake), name="notify-sender", daemon=True
        )
        self._thread.start()

    def stop_sender(self) -> None:
        self._stop.set()
        self.wake.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None
