"""Opening the service from a record, for the commands: settings, database, configuration."""

from __future__ import annotations

import os
from pathlib import Path

from sourcebook.model.settings import Settings
from sourcebook.notify.config import (
    DB_ENV,
    NOTIFY_FOLDER,
    Config,
    ConfigError,
    default_database,
    from_settings,
    with_mail_folder,
)
from sourcebook.notify.database import Database, open_database
from sourcebook.notify.migrations import migrate


def record_settings(record: Path) -> Settings:
    """The record's sourcebook.toml; ConfigError, in one line, where it cannot be read."""
    from sourcebook.diagnostics import Diagnostics
    from sourcebook.read.settings import RecordError, read_settings

    diagnostics = Diagnostics()
    try:
        settings = read_settings(record, record.as_posix(), diagnostics)
    except RecordError as exc:
        raise ConfigError(str(exc)) from None
    if settings is None:
        first = diagnostics.errors[0]
        raise ConfigError(first.format())
    return settings


def require_record(record: Path) -> None:
    """ConfigError, in one line, where `record` is not a record's folder (before anything,
    such as the default database's folder, is made in it)."""
    from sourcebook.read.paths import SETTINGS_FILE

    if not record.is_dir():
        raise ConfigError(f"{record.as_posix()}: no such folder")
    if not (record / SETTINGS_FILE).is_file():
        raise ConfigError(
            f"{record.as_posix()}: no {SETTINGS_FILE} here, so this is not a record "
            "(run 'sourcebook init DIR' to start one)"
        )


def database_target(record: Path, db: str | None, dev: bool = False) -> str:
    return db or os.environ.get(DB_ENV) or default_database(record, dev)


def open_migrated(target: str, make_folder: bool = True) -> Database:
    """The database at `target`, its schema brought up to date (a newer one is refused);
    `make_folder` as for `open_database`."""
    db = open_database(target, make_folder)
    try:
        migrate(db)
    except Exception:
        db.close()
        raise
    return db


def service_config(
    record: Path,
    settings: Settings,
    *,
    dev: bool,
    service_url: str | None = None,
    site_url: str | None = None,
) -> Config:
    config = from_settings(settings, dev=dev, service_url=service_url, site_url=site_url)
    if dev and not settings.notify.smtp_host:
        config = with_mail_folder(config, record / NOTIFY_FOLDER / "mail")
    return config
