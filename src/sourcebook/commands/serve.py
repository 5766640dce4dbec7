"""`sourcebook serve`: build the site, serve it on 127.0.0.1, rebuild and reload on change."""

from __future__ import annotations

import signal
import threading
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sourcebook.commands.common import RECORD_OR_HOUSE, fail, house_path, loopback, need_record

if TYPE_CHECKING:
    from sourcebook.live import LiveSite
    from sourcebook.notify.local import LocalService

WATCH_START_SECONDS = 10.0
"""How long the first build waits for the watcher to be on; past that (a watch that
cannot start), it goes on, and the watcher's first rebuild takes every file's stat."""


@click.command()
@RECORD_OR_HOUSE
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("-p", "--port", default=8000, show_default=True, type=int, help="The port.")
@click.option("--no-watch", is_flag=True, help="Build once; do not rebuild on change.")
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="Print every warning, and log every request (the site's and the sign-up service's).",
)
@click.option("--no-notify", is_flag=True, help="Without the sign-up service beside the site.")
def serve(
    record: Path, host: str, port: int, no_watch: bool, verbose: bool, no_notify: bool
) -> None:
    """Build RECORD's site, drafts and all, and serve it; where check finds errors, the
    pages show them. RECORD may be a house: every volume and the house's pages, rebuilt on
    any change."""
    from sourcebook.live import LiveSite
    from sourcebook.publish.site.serving.serve import SiteServer

    if not verbose:  # the preview's sign-up service logs its requests with -v alone
        from sourcebook.notify.logs import quiet

        quiet()
    services: list[LocalService] = []
    live: LiveSite
    if house_path(record):
        from sourcebook.live import LiveHouse

        urls = {} if no_notify else house_notify(record, host, port, services)
        live = LiveHouse(record, notify_urls=urls)
    else:
        need_record(record)
        notify = None if no_notify else local_notify(record, host, port)
        services += [notify] if notify else []
        live = LiveSite(record, notify_url=notify.url if notify else None)
    if not loopback(host):
        click.echo(
            f"warning: serving on {host} lets other machines read the site, its drafts and "
            "its errors; serve is for previewing, so publish with 'sourcebook build'",
            err=True,
        )
    # Stopped by a service manager or `kill` as by Ctrl+C: the temporary folder goes too.
    signal.signal(signal.SIGTERM, _interrupt)
    stop = threading.Event()
    if not no_watch:  # run between saves, by the watcher (`runtime.collector.Bursts`)
        live.collector.hold()
    try:
        show = partial(report, verbose=verbose)
        if not no_watch:  # on before the first build reads a file: no save falls between
            started = threading.Event()
            watching = threading.Thread(target=live.watch, args=(stop, show, started))
            watching.daemon = True
            watching.start()
            started.wait(WATCH_START_SECONDS)
        live.rebuild()
        show(live)
        try:
            server = SiteServer(live.site, host, port, live=live, verbose=verbose)
        except OSError as exc:
            fail(f"cannot listen on {host}:{port}: {exc.strerror}")
        click.echo(f"Serving {record.as_posix()} on {server.url}{server.home} (Ctrl+C to stop)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            click.echo("Stopped.")
        finally:
            server.server_close()
    except KeyboardInterrupt:  # before the server was up
        click.echo("Stopped.")
    finally:
        stop.set()
        live.close()
        for service in services:
            service.stop()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


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


def house_notify(house: Path, host: str, port: int, started: list[LocalService]) -> dict[str, str]:
    """The sign-up service of each volume that asks for one, started (into `started`); the
    URL each volume's form posts to, by the volume's name."""
    from sourcebook.diagnostics import Diagnostics
    from sourcebook.notify.config import ConfigError
    from sourcebook.notify.setup import record_settings
    from sourcebook.read import RecordError
    from sourcebook.read.house import read_house

    try:
        found = read_house(house, Diagnostics())
    except RecordError:
        return {}
    urls = {}
    for volume in found.volumes if found else []:
        try:
            name = record_settings(volume.root).site.base_path.strip().strip("/")
        except ConfigError:
            continue  # check reports it, and the pages show it
        service = local_notify(volume.root, host, port)
        if service is not None:
            started.append(service)
            urls[name] = service.url
    return urls


def report(live: LiveSite, verbose: bool = False) -> None:
    """After each build: the errors, as check prints them, or one line saying it is built
    and how many warnings check gave (each of them with --verbose)."""
    if live.errors:
        click.echo(f"The record has {len(live.errors)} error(s); the pages show them:", err=True)
        for diagnostic in live.errors:
            click.echo(f"  {diagnostic.format()}", err=True)
    elif live.failure:
        said = f" {live.failure}" if "\n" not in live.failure else f"\n{live.failure}"
        click.echo(f"The build failed; the pages show why:{said}", err=True)
    else:
        kept = ""
        if live.written is not None:
            kept = f" ({live.written} file{'s' * (live.written != 1)} written, the rest kept)"
        click.echo(f"Built version {live.version}{kept}.")
    count = len(live.warnings)
    if count:
        more = ":" if verbose else " (-v to list them)."
        click.echo(f"check gave {count} warning{'s' * (count != 1)}{more}", err=True)
    if verbose:
        for diagnostic in live.warnings:
            click.echo(f"  {diagnostic.format()}", err=True)
