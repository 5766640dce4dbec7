"""Where `serve` starts the record's queries' children from a fork server (its process has
threads), that server holds the modules of the jobs they run: a child forked from it
starts with them, and with the registry of units made, rather than importing and making
them as it takes its job, twice a save."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

TESTS = Path(__file__).resolve().parent

CHILD = textwrap.dedent(
    """
    import sys, threading
    sys.path.insert(0, {tests!r})
    import sandbox_probe
    from sourcebook.derive import sandbox

    stop = threading.Event()
    waiting = threading.Thread(target=stop.wait)
    waiting.start()  # a second thread: children come from the fork server
    try:
        assert sandbox._start_method() == "forkserver", sandbox._start_method()
        context = sandbox._context()
        ours, theirs = context.Pipe(duplex=False)
        child = context.Process(
            target=sandbox_probe.loaded, args=(theirs, list(sandbox.PRELOADED))
        )
        child.start()
        theirs.close()
        held, made = ours.recv()
        print(sorted(held), made)
        child.join()
    finally:
        stop.set()
        waiting.join()
    """
)


def test_a_child_of_the_fork_server_starts_with_the_jobs_modules_and_the_units() -> None:
    from sourcebook.derive.sandbox import PRELOADED

    script = CHILD.format(tests=str(TESTS))
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"{sorted(PRELOADED)!r} True"
