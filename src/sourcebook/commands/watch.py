"""`sourcebook watch`: visit every source's addresses on the live web, and write down what
each holds in the record's watch/ log; `--report` counts what the last watch found."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sourcebook.commands.common import OUTPUT, RECORD, fail

if TYPE_CHECKING:
    from sourcebook.model.watch import Summary, Tally
    from sourcebook.watch.run import Watched

MAX_SECONDS = 7 * 24 * 3600
MAX_BYTES = 1 << 40


@click.command()
@RECORD
@OUTPUT
@click.option(
    "--report", is_flag=True, help="Visit nothing: count what the last watch found, by state."
)
@click.option(
    "--delay",
    type=click.FloatRange(0, 3600),
    default=1.0,
    show_default=True,
    help="Seconds between the starts of two requests to one host (more where its robots.txt asks).",
)
@click.option(
    "--per-host",
    type=click.IntRange(1, 2),
    default=1,
    show_default=True,
    help="Requests to one host at once.",
)
@click.option(
    "--hosts", type=click.IntRange(1, 64), default=8, show_default=True, help="Hosts at once."
)
@click.option(
    "--timeout",
    type=click.FloatRange(0, 3600, min_open=True),
    default=60.0,
    show_default=True,
    help="Seconds one address's whole download may take, however slowly the server sends.",
)
@click.option(
    "--max-bytes",
    type=click.IntRange(1, 1 << 30),
    default=64 * 1024 * 1024,
    show_default=True,
    help="Bytes one address's body may hold, on the wire and again once decompressed.",
)
@click.option(
    "--total-seconds",
    type=click.FloatRange(0, MAX_SECONDS, min_open=True),
    default=3600.0,
    show_default=True,
    help="Seconds the whole watch may take; what is left is visited by the next watch.",
)
@click.option(
    "--total-bytes",
    type=click.IntRange(1, MAX_BYTES),
    default=1 << 30,
    show_default=True,
    help="Bytes the whole watch may download; what is left is visited by the next watch.",
)
@click.option(
    "--day",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    default=None,
    help="The day the visits are written under, YYYY-MM-DD (default: today, in UTC).",
)
@click.option(
    "--fresh", is_flag=True, help="Begin a new watch, even where one was stopped half-way."
)
def watch(
    record: Path,
    output: str,
    report: bool,
    delay: float,
    per_host: int,
    hosts: int,
    timeout: float,
    max_bytes: int,
    total_seconds: float,
    total_bytes: int,
    day: datetime | None,
    fresh: bool,
) -> None:
    """Visit every address of every source of RECORD (default: this folder), politely, and
    append what each holds to watch/SOURCE.jsonl: its status, where it redirected, its
    content's hash, and whether each quote of the source still stands in it. A watch
    stopped half-way is taken up by the next. Then show what check makes of it."""
    if report:
        _print_report(record, output)
        return
    from sourcebook.library.fetch import Budget
    from sourcebook.read.settings import RecordError
    from sourcebook.watch.polite import Polite
    from sourcebook.watch.run import WatchError, user_agent, watch_record

    try:
        settings = _settings(record)
        polite = Polite(
            delay=delay,
            per_host=per_host,
            hosts=hosts,
            budget=Budget(seconds=timeout, max_bytes=max_bytes),
            total_seconds=total_seconds,
            total_bytes=total_bytes,
            user_agent=user_agent(settings),
        )
        done = watch_record(record, polite, day.date() if day else None, fresh)
    except (WatchError, RecordError) as exc:
        fail(str(exc), output, status=1)
    _print_watched(done, output)


def _settings(record: Path):  # type: ignore[no-untyped-def]
    from sourcebook.diagnostics import Diagnostics
    from sourcebook.read.settings import RecordError, read_settings

    diagnostics = Diagnostics()
    settings = read_settings(record, record.as_posix(), diagnostics)
    if settings is None:
        first = diagnostics.errors[0].format() if diagnostics.errors else "unreadable"
        raise RecordError(f"the record's settings cannot be read: {first}")
    return settings


def _print_watched(done: Watched, output: str) -> None:
    """What the watch did, then what check makes of the log: its W warnings and the count
    of addresses by state."""
    from sourcebook.pipeline import check
    from sourcebook.publish.site.view.wording import file_size

    left = done.addresses - done.visited - done.before
    checked = check(done.root)
    verdicts = [d for d in checked.diagnostics if d.code.startswith("W")]
    summary = _summary(done.root, checked)
    if output == "json":
        data = {
            "run": done.run,
            "day": done.day.isoformat(),
            "addresses": done.addresses,
            "visited": done.visited,
            "visited_before": done.before,
            "left": left,
            "requests": done.requests,
            "bytes": done.size,
            "seconds": round(done.seconds, 3),
            "finished": done.finished,
            "diagnostics": [d.as_json() for d in verdicts],
            "report": _report_json(summary) if summary is not None else None,
        }
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return
    before = f", {done.before} of them before the watch was stopped" if done.before else ""
    click.echo(
        f"watched {done.visited + done.before} of {done.addresses} addresses{before}, "
        f"on {done.day.isoformat()}, in {done.seconds:.1f} s: {done.requests} requests, "
        f"{file_size(done.size)}"
    )
    if not done.finished:
        click.echo(
            f"stopped at the watch's budget (--total-seconds, --total-bytes): {left} "
            "addresses left; run 'sourcebook watch' again to go on"
        )
    for diagnostic in verdicts:
        click.echo(diagnostic.format())
    if summary is not None:
        counts = ", ".join(f"{n} {name}" for name, n in summary.total.counts.items())
        click.echo(f"{summary.total.total} addresses: {counts}")


def _summary(record: Path, checked=None) -> Summary | None:  # type: ignore[no-untyped-def]
    from sourcebook.check.watched import watch_summary
    from sourcebook.pipeline import check

    checked = checked if checked is not None else check(record)
    if checked.record is None:
        return None
    return watch_summary(checked.record, checked.proofs)


def _print_report(record: Path, output: str) -> None:
    summary = _summary(record)
    if summary is None:
        fail(f"{record.as_posix()}: the record cannot be read: run sourcebook check", output)
    if output == "json":
        click.echo(json.dumps(_report_json(summary), indent=2, ensure_ascii=False))
        return
    if summary.day is None:
        click.echo("no watch yet: run 'sourcebook watch' to visit the sources' addresses")
        sys.exit(0)
    click.echo(f"the last watch, {summary.day.isoformat()}: {summary.total.total:,} addresses")
    rows = [("", summary.total)]
    rows += [("by category", tally) for tally in summary.by_category]
    rows += [("by age of the source", tally) for tally in summary.by_age]
    _print_table(rows)
    if summary.unvisited:
        click.echo(f"{summary.unvisited} address{'es' * (summary.unvisited != 1)} not yet watched")


def _print_table(rows: list[tuple[str, Tally]]) -> None:
    from sourcebook.model.watch import COLUMNS

    width = max(len(tally.heading) for _, tally in rows) + 2
    header = "".join(f"{name:>9}" for name in (*COLUMNS, "total"))
    click.echo(f"{'':{width}}{header}")
    group = None
    for heading, tally in rows:
        if heading and heading != group:
            click.echo(heading)
            group = heading
        cells = "".join(f"{tally.counts[name]:>9}" for name in COLUMNS) + f"{tally.total:>9}"
        click.echo(f"{tally.heading:{width}}{cells}")


def _report_json(summary: Summary) -> dict[str, object]:
    def tally(t: Tally) -> dict[str, object]:
        return {"heading": t.heading, **t.counts, "total": t.total}

    return {
        "day": summary.day.isoformat() if summary.day else None,
        "total": tally(summary.total),
        "by_category": [tally(t) for t in summary.by_category],
        "by_age": [tally(t) for t in summary.by_age],
        "unvisited": summary.unvisited,
    }
