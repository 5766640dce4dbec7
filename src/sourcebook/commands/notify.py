"""`sourcebook notify`: the sign-up service ("Tell me when it is out") and its upkeep."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sourcebook.commands.common import (
    RECORD,
    RECORD_FOLDER,
    fail,
    loopback,
    need_file_path,
    need_record,
)

if TYPE_CHECKING:
    from sourcebook.notify.database import Database
    from sourcebook.notify.service import Service

DB = click.option(
    "--db",
    envvar="SOURCEBOOK_NOTIFY_DB",
    default=None,
    help="A SQLite file or a postgresql:// URL (default: RECORD/.sourcebook-notify/"
    "notify.sqlite3; or $SOURCEBOOK_NOTIFY_DB).",
)
DEV = click.option(
    "--dev", is_flag=True, help="Try it out: no secret needed, emails written as files."
)


@click.group()
def notify() -> None:
    """The sign-up service: readers leave an address, confirm it, hear once when it is out."""


@contextmanager
def _errors_as_lines() -> Iterator[None]:
    """The service's errors for a person: one line, never a traceback."""
    import psycopg

    from sourcebook.notify.config import ConfigError
    from sourcebook.notify.database import DatabaseError

    try:
        yield
    except (ConfigError, DatabaseError) as exc:
        fail(str(exc))
    except psycopg.Error as exc:
        fail(f"the database refused: {str(exc).strip().splitlines()[0]}")


@contextmanager
def _database(record: Path, db: str | None, dev: bool = False) -> Iterator[Database]:
    from sourcebook.notify.setup import database_target, open_migrated, require_record

    if db is None and not dev:  # the database is the record's own: there must be a record
        need_record(record)
    with _errors_as_lines():
        require_record(record)
        database = open_migrated(database_target(record, db, dev), make_folder=db is None)
        try:
            yield database
        finally:
            database.close()


@contextmanager
def _service(record: Path, db: str | None, dev: bool, **urls: str | None) -> Iterator[Service]:
    from sourcebook.notify.service import Service
    from sourcebook.notify.setup import record_settings, service_config

    with _errors_as_lines():
        config = service_config(record, record_settings(record), dev=dev, **urls)
        with _database(record, db, dev) as database:
            yield Service(config, database)


@notify.command()
@RECORD
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("-p", "--port", default=8001, show_default=True, type=int, help="The port.")
@DB
@DEV
@click.option("--no-sender", is_flag=True, help="Only answer requests; another process sends.")
@click.option("--url", "service_url", default=None, help="Override [notify] url.")
@click.option("--site-url", default=None, help="Override the site's URL (base_url/base_path).")
def serve(
    record: Path,
    host: str,
    port: int,
    db: str | None,
    dev: bool,
    no_sender: bool,
    service_url: str | None,
    site_url: str | None,
) -> None:
    """Serve the sign-up service of RECORD, and send its emails."""
    from sourcebook.notify.logs import log
    from sourcebook.notify.server import run

    if not loopback(host):
        click.echo(
            f"warning: listening on {host}, beyond this machine; put it behind a reverse "
            "proxy with TLS (see docs/notify.md)",
            err=True,
        )
    with _service(record, db, dev, service_url=service_url, site_url=site_url) as service:
        log("listening", host=host, port=port, db=service.db.shown, sender=not no_sender)
        try:
            run(service, host, port, sender=not no_sender)
        except OSError as exc:
            fail(f"cannot listen on {host}:{port}: {exc.strerror}")


@notify.command()
@RECORD
@DB
@DEV
@click.option("--once", is_flag=True, help="Send what is due, then stop.")
def send(record: Path, db: str | None, dev: bool, once: bool) -> None:
    """Deliver the outbox (the server does too, unless it runs with --no-sender)."""
    import threading

    with _service(record, db, dev) as service:
        if once:
            while service.sender.run_once():
                pass
            return
        try:
            service.sender.run(threading.Event())
        except KeyboardInterrupt:
            click.echo("Stopped.", err=True)


@notify.command()
@RECORD
@click.option("--campaign", default="published", show_default=True, help="The announcement's name.")
@DB
@DEV
@click.option(
    "--patience",
    default=None,
    type=float,
    help="Seconds to wait for emails another sender holds (default: twice the lease).",
)
def announce(record: Path, campaign: str, db: str | None, dev: bool, patience: float) -> None:
    """Send the book's announcement to every confirmed reader, once; run it again to resume."""
    import time

    from sourcebook.notify import announce as announcement

    with _service(record, db, dev) as service:
        added = announcement.enqueue(service.db, campaign, int(time.time()))
        wait = patience if patience is not None else 2.0 * service.config.notify.lease_seconds
        done = announcement.deliver(service.sender, campaign, wait)
    click.echo(
        f"Announcement '{campaign}': {done.enqueued} readers ({added} added now); "
        f"{done.sent} sent, {done.pending} waiting, {done.dead} dead, "
        f"{done.cancelled} cancelled."
    )
    if done.dead:
        click.echo("error: some emails are dead; 'sourcebook notify stats' counts them", err=True)
        sys.exit(1)


@notify.command("list")
@RECORD_FOLDER
@DB
@click.option("--state", type=click.Choice(["pending", "confirmed", "unsubscribed"]), default=None)
def list_readers(record: Path, db: str | None, state: str | None) -> None:
    """List the readers: id, state, address and dates, under a header line."""
    from sourcebook.notify.ops import readers

    with _database(record, db) as database:
        click.echo("\t".join(READER_COLUMNS))
        for row in readers(database, state):
            click.echo("\t".join(str(value) for value in row))


READER_COLUMNS = ("id", "state", "address", "created", "confirmed", "unsubscribed")
"""The columns `notify list` prints, as `notify.ops.readers` gives them."""


@notify.command()
@RECORD_FOLDER
@DB
@click.option(
    "-o",
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    callback=lambda _, __, path: need_file_path(path),
    help="Write to this file (default: the standard output).",
)
def export(record: Path, db: str | None, out: Path | None) -> None:
    """Write the confirmed readers as CSV (to standard output, or OUT)."""
    from sourcebook.notify.ops import export as write_csv

    with _database(record, db) as database:
        if out is None:
            write_csv(database, sys.stdout)
            return
        # Written beside OUT and renamed over it: OUT is never half a file. The one name
        # means that what a killed export left is written over by the next.
        temporary = out.with_name(f".{out.name}.tmp")
        try:
            with temporary.open("w", encoding="utf-8", newline="") as handle:
                count = write_csv(database, handle)
            temporary.replace(out)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
    click.echo(f"Wrote {count} confirmed readers to {out}", err=True)


@notify.command()
@RECORD_FOLDER
@DB
@click.option("--format", "output", type=click.Choice(["text", "json"]), default="text")
def stats(record: Path, db: str | None, output: str) -> None:
    """Count readers, emails and announcements by state."""
    from sourcebook.notify.ops import stats as count

    with _database(record, db) as database:
        counts = count(database)
    if output == "json":
        click.echo(json.dumps(counts, sort_keys=True))
        return
    for group, states in counts.items():
        shown = ", ".join(f"{name} {value}" for name, value in states.items()) or "none"
        click.echo(f"{group}: {shown}")


@notify.command()
@RECORD_FOLDER
@DB
def migrate(record: Path, db: str | None) -> None:
    """Bring the database's schema up to date (serve does it too)."""
    from sourcebook.notify.migrations import LATEST

    with _database(record, db) as database:
        click.echo(f"{database.shown}: schema version {LATEST}")
