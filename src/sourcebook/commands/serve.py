"""`sourcebook serve`: build the site, serve it on 127.0.0.1, rebuild and reload on change."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sourcebook.commands.common import RECORD, fail

if TYPE_CHECKING:
    from sourcebook.live import LiveSite
    from sourcebook.notify.local import LocalService


@click.command()
@RECORD
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("-p", "--port", default=8000, show_default=True, type=int, help="The port.")
@click.option("--no-watch", is_flag=True, help="Build once; do not rebuild on change.")
@click.option("-v", "--verbose", is_flag=True, help="Log every request.")
@click.option("--no-notify", is_flag=True, help="Without the sign-up service beside the site.")
def serve(
    record: Path, host: str, port: int, no_watch: bool, verbose: bool, no_notify: bool
) -> None:
    """Build RECORD's site and serve it; where check finds errors, the pages show them."""
    from sourcebook.live import LiveSite
    from sourcebook.publish.site.serve import SiteServer
    from sourcebook.read.settings import SETTINGS_FILE

    if not (record / SETTINGS_FILE).is_file():
        fail(f"{record.as_posix()}: no {SETTINGS_FILE} here, so this is not a record")
    notify = None if no_notify else local_notify(record, host, port)
    live = LiveSite(record, notify_url=notify.url if notify else None)
    stop = threading.Event()
    try:
        live.rebuild()
        report(live)
        try:
            server = SiteServer(live.site, host, port, live=live, verbose=verbose)
        except OSError as exc:
            fail(f"cannot listen on {host}:{port}: {exc.strerror}")
        if not no_watch:
            threading.Thread(target=live.watch, args=(stop, report), daemon=True).start()
        click.echo(f"Serving {record.as_posix()} on {server.url}{server.home} (Ctrl+C to stop)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            click.echo("Stopped.")
        finally:
            server.server_close()
    finally:
        stop.set()
        live.close()
        if notify is not None:
            notify.stop()


def local_notify(record: Path, host: str, port: int) -> LocalService | None:
    """The sign-up service for the local site, started; None (and why) where it cannot be."""
    from sourcebook.notify.config import ConfigError
    from sourcebook.notify.database import DatabaseError
    from sourcebook.notify.local import LocalService

    try:
        notify = LocalService.for_record(record, host, port)
    except (ConfigError, DatabaseError) as exc:
        click.echo(f"warning: the sign-up form will not work: {exc}", err=True)
        return None
    if notify is None:
        return None
    notify.start()
    click.echo(f"The sign-up form posts to {notify.url}; its emails go to {notify.mail}/")
    return notify


def report(live: LiveSite) -> None:
    """After each build: the errors, as check prints them, or one line saying it is built."""
    if live.errors:
        click.echo(f"The record has {len(live.errors)} error(s); the pages show them:", err=True)
        for diagnostic in live.errors:
            click.echo(f"  {diagnostic.format()}", err=True)
    elif live.failure:
        click.echo(f"The build failed; the pages show why:\n{live.failure}", err=True)
    else:
        click.echo(f"Built version {live.version}.")
