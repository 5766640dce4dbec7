"""`serve`'s cycle collector runs between saves, not in one (`runtime.collector.Bursts`):
held off for the process, what a rebuild made moved among the oldest objects unscanned,
and the oldest collected once the process waits for the next save, or after MOST_BURSTS
saves without a wait. With the `collector` speed-up off, Python runs it as it does."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
from site_fixtures import write_record

from sourcebook.live import LiveSite
from sourcebook.runtime.collector import MOST_BURSTS, Bursts


class Node:
    """An object in a cycle: freed by the cycle collector alone."""

    def __init__(self) -> None:
        self.me = self


def cycle() -> weakref.ref[Node]:
    """A cycle let go at once: alive until the collector frees it."""
    return weakref.ref(Node())


@pytest.fixture
def bursts() -> Iterator[Bursts]:
    """A collector to hold; the process's own as it was, however the test ends."""
    enabled = gc.isenabled()
    made = Bursts()
    try:
        yield made
    finally:
        made.release()
        if enabled:
            gc.enable()


def test_a_bursts_cycles_are_freed_when_the_process_waits(bursts: Bursts) -> None:
    bursts.hold()
    assert bursts.held and not gc.isenabled()
    made = cycle()
    for _ in range(3):
        bursts.worked()  # a save over: nothing collected in it
    assert made() is not None and bursts.collected == 0
    bursts.idle()  # the wait for the next save
    assert made() is None and bursts.collected == 1
    bursts.idle()  # nothing worked since: nothing to collect
    assert bursts.collected == 1


def test_saves_with_no_wait_between_are_collected_after_the_most(bursts: Bursts) -> None:
    bursts.hold()
    made = cycle()
    for _ in range(MOST_BURSTS - 1):
        bursts.worked()
    assert made() is not None
    bursts.worked()
    assert made() is None and bursts.collected == 1 and bursts.due == 0


def test_with_the_speed_up_off_python_runs_the_collector(
    bursts: Bursts, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCEBOOK_PLAIN", "collector")
    bursts.hold()
    assert not bursts.held and gc.isenabled()
    bursts.worked()
    bursts.idle()
    assert bursts.collected == 0 and bursts.due == 0


def test_serve_collects_once_it_has_waited_for_a_save(tmp_path: Path) -> None:
    live = LiveSite(write_record(tmp_path / "record"), out=tmp_path / "out")
    stop = threading.Event()
    enabled = gc.isenabled()
    try:
        live.collector.hold()
        live.rebuild()
        assert live.collector.due == 1 and live.collector.collected == 0
        made = cycle()
        watching = threading.Thread(target=live.watch, args=(stop,), daemon=True)
        watching.start()
        waited = 0.0
        while live.collector.collected == 0 and waited < 120:  # the wait is two seconds
            time.sleep(0.1)
            waited += 0.1
        assert live.collector.collected == 1 and made() is None
    finally:
        stop.set()
        live.collector.release()
        if enabled:
            gc.enable()
        live.close()


def test_a_wait_collects_what_was_made_since_though_no_burst_came(bursts: Bursts) -> None:
    """A server's requests make objects between saves: a wait collects them once there are
    enough, so that a server left alone does not grow."""
    from sourcebook.runtime.collector import IDLE_OBJECTS

    bursts.hold()
    bursts.worked()
    bursts.idle()
    made = cycle()
    bursts.idle()  # too few made since
    assert made() is not None and bursts.collected == 1
    kept = [[] for _ in range(2 * IDLE_OBJECTS)]  # more made than a wait collects past
    bursts.idle()
    assert made() is None and bursts.collected == 2
    del kept


@pytest.mark.parametrize("plain", ["", "collector"])
@pytest.mark.parametrize("command", ["build", "check"])
def test_a_command_runs_with_the_collector_held_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str, plain: str
) -> None:
    """`check` and `build` end their process when done: the record's objects live as long
    as it does, and the collector, which would look them over again and again to free
    nothing, is held off for the command (on again after it; Python's with the speed-up
    off)."""
    from click.testing import CliRunner

    from sourcebook import pipeline
    from sourcebook.cli import main

    root = write_record(tmp_path / "record")
    seen: list[bool] = []
    real = pipeline.build

    def build(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "build", build)
    monkeypatch.setenv("SOURCEBOOK_PLAIN", plain)
    args = [command, str(root), "--no-cache"] + (["-q"] if command == "build" else [])
    enabled = gc.isenabled()
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert seen == [bool(plain)]
    assert gc.isenabled() == enabled
