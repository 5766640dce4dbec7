"""What the service runs with: `[notify]` in sourcebook.toml, the environment, the options."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urlsplit

from sourcebook.model.settings import Notify, Settings
from sourcebook.notify.policy import Statement, statement

SECRET_ENV = "SOURCEBOOK_NOTIFY_SECRET"
SMTP_PASSWORD_ENV = "SOURCEBOOK_SMTP_PASSWORD"
DB_ENV = "SOURCEBOOK_NOTIFY_DB"
NOTIFY_FOLDER = ".sourcebook-notify"


class ConfigError(Exception):
    """The service cannot start as configured; the message says why, for a person."""


@dataclass(frozen=True)
class Config:
    service_url: str
    """Where readers reach the service, without a trailing slash."""
    site_url: str
    """The volume's front page, where the pages lead back to."""
    consent_url: str
    title: str
    house: str
    book_url: str
    notify: Notify
    secret: str
    dev: bool = False
    mail_folder: Path | None = None
    """Where emails are written as files instead of sent (`sourcebook serve` without SMTP)."""
    extra_origins: frozenset[str] = field(default_factory=frozenset)

    @property
    def statement(self) -> Statement:
        return statement(self.title, self.house)

    @property
    def allowed_origins(self) -> frozenset[str]:
        """The origins a POST may come from: the site's, and the service's own pages."""
        return frozenset({origin(self.site_url), origin(self.service_url)} | self.extra_origins)

    @property
    def site_origin(self) -> str:
        return origin(self.site_url)


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def from_settings(
    settings: Settings,
    *,
    dev: bool = False,
    service_url: str | None = None,
    site_url: str | None = None,
    environ: dict[str, str] | None = None,
) -> Config:
    """The service's configuration; `service_url` and `site_url` override the settings."""
    env = os.environ if environ is None else environ
    site = settings.site
    site_url = site_url or f"{site.base_url.rstrip('/')}{site.base_path.rstrip('/')}/"
    service_url = (service_url or settings.notify.url).rstrip("/")
    if not service_url.startswith(("http://", "https://")):
        raise ConfigError("[notify] url in sourcebook.toml must be the service's http(s) URL")
    if not site_url.startswith(("http://", "https://")):
        raise ConfigError("[site] base_url in sourcebook.toml must be set for the service")
    secret = env.get(SECRET_ENV, "")
    if not secret:
        if not dev:
            raise ConfigError(
                f"set {SECRET_ENV} to a long random secret (or use --dev to try it out)"
            )
        secret = secrets.token_urlsafe(32)
    elif len(secret.encode()) < 32:
        raise ConfigError(f"{SECRET_ENV} must be at least 32 bytes long")
    if not settings.notify.sender and not dev:
        raise ConfigError("[notify] sender in sourcebook.toml must say who the emails are from")
    return Config(
        service_url=service_url,
        site_url=site_url,
        consent_url=f"{site_url.rstrip('/')}/consent",
        title=settings.book.title,
        house=settings.book.house,
        book_url=site.book_url,
        notify=settings.notify,
        secret=secret,
        dev=dev,
    )


def with_mail_folder(config: Config, folder: Path | None) -> Config:
    return replace(config, mail_folder=folder)


def default_database(record: Path, dev: bool = False) -> str:
    """The SQLite file in the record's own git-ignored folder for the service."""
    name = "dev.sqlite3" if dev else "notify.sqlite3"
    return str(record / NOTIFY_FOLDER / name)
