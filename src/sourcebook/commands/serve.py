"""`sourcebook serve`: build the site, serve it on 127.0.0.1, rebuild and reload on change."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sourcebook.commands.common import RECORD, fail

if TYPE_CHECKING:
    from sourcebook.publish.site.serve import LiveSite


@click.command()
@RECORD
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("-p", "--port", default=8000, show_default=True, type=int, help="The port.")
@click.option("--no-watch", is_flag=True, help="Build once; do not rebuild on change.")
@click.option("-v", "--verbose", is_flag=True, help="Log every request.")
def serve(record: Path, host: str, port: int, no_watch: bool, verbose: bool) -> None:
    """Build RECORD's site and serve it; where check finds errors, the pages show them."""
    from sourcebook.publish.site.serve import LiveSite, SiteServer
    from sourcebook.read.settings import SETTINGS_FILE

    if not (record / SETTINGS_FILE).is_file():
        fail(f"{record.as_posix()}: no {SETTINGS_FILE} here, so this is not a record")
    live = LiveSite(record)
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
