"""The service beside `sourcebook serve`: in this process, on a second loopback port, so
that the local site's form works while the book is written. Its emails are written as
files into the record's `.sourcebook-notify/mail/`, and its database is `dev.sqlite3`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from sourcebook.model.settings import Settings
from sourcebook.notify.config import NOTIFY_FOLDER
from sourcebook.notify.database import DatabaseError
from sourcebook.notify.server import InThread, bound_socket
from sourcebook.notify.service import Service
from sourcebook.notify.setup import (
    database_target,
    open_migrated,
    record_settings,
    service_config,
)


class LocalService:
    """Start with `start()`; `url` is where the local build's form posts."""

    def __init__(self, record: Path, settings: Settings, site_host: str, site_port: int):
        sock = bound_socket("127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self.mail = record / NOTIFY_FOLDER / "mail"
        base_path = settings.site.base_path.rstrip("/")
        config = service_config(
            record,
            settings,
            dev=True,
            service_url=self.url,
            site_url=f"http://{site_host}:{site_port}{base_path}/",
        )
        local_origins = {f"http://{name}:{site_port}" for name in ("127.0.0.1", "localhost")}
        config = replace(config, mail_folder=self.mail, extra_origins=frozenset(local_origins))
        try:
            self.db = open_migrated(database_target(record, None, dev=True))
        except DatabaseError:
            sock.close()
            raise
        self._server = InThread(Service(config, self.db), sock)

    @classmethod
    def for_record(cls, record: Path, site_host: str, site_port: int) -> LocalService | None:
        """The service of a record whose settings ask for one (`[notify] url`), else None."""
        settings = record_settings(record)
        return cls(record, settings, site_host, site_port) if settings.notify.url else None

    def start(self) -> None:
        self._server.start()

    def stop(self) -> None:
        self._server.stop()
        self.db.close()
