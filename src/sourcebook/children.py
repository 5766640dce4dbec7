"""The processes sourcebook starts: each dies with the process that started it, and what
it prints reaches a person as one line of plain text.

A build starts children that may run long on a record's say: Typst over the paper, the
JavaScript engine that draws the charts, the process that runs the record's queries,
Pagefind. Killed from outside (`kill -9`, a CI job cancelled), a build cannot stop them
itself, so each asks the kernel, as it starts, to kill it when its parent ends (Linux's
parent-death signal, `die_with`); a program that is not Python is started through a few
lines of Python that ask the same and then become it (`orphanless`).

What a child prints on failure (a JavaScript stack, Typst's message, a native backtrace)
may hold the record's words, and so anything: escape sequences that drive a terminal,
bidi controls, lines that forge others. `one_line` makes it one line without them.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import threading
from multiprocessing.connection import Connection
from pathlib import Path
from typing import IO, Any

_PR_SET_PDEATHSIG = 1


def die_with(parent: int) -> None:
    """In a child: be killed when `parent`, the process that started it, ends; and end at
    once where it has ended already (before the kernel was asked). Nothing where the
    system has no parent-death signal."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if not alive(parent):
        os._exit(1)


def cap_data(more: int) -> None:
    """In a child: let its data (the memory it writes) grow by `more` bytes at most past
    what it holds now, so that an allocation past that fails, in the child alone. The data
    limit, not the address space: a JavaScript engine reserves far more address space than
    it uses."""
    with contextlib.suppress(OSError, ValueError, StopIteration):
        with open("/proc/self/status") as status:
            data = next(line for line in status if line.startswith("VmData:"))
        held = int(data.split()[1]) * 1024
        _, hard = resource.getrlimit(resource.RLIMIT_DATA)
        limit = held + more if hard == resource.RLIM_INFINITY else min(hard, held + more)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))


def alive(pid: int) -> bool:
    """Whether the process `pid` runs: one that has ended and is not yet reaped (a
    zombie, as a killed parent is until its own parent waits for it) does not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            found = stat.read()
    except OSError:  # no /proc: as the signal said
        return True
    state = found[found.rfind(b")") + 2 :][:1]  # after the name, which may hold anything
    return state not in (b"Z", b"X")


_BECOME = """
import ctypes, os, sys
try:
    ctypes.CDLL(None, use_errno=True).prctl(1, 9, 0, 0, 0)
except (OSError, AttributeError):
    pass
if os.getppid() != int(sys.argv[1]):
    os._exit(1)
os.execv(sys.argv[2], sys.argv[2:])
"""
"""Run as `python -c _BECOME PARENT PROGRAM ARGS…`: ask to die with PARENT, then become
PROGRAM (the signal asked for outlives exec). Where PARENT ended before the kernel was
asked, the process has another parent already (the kernel gives an orphan to another as
its parent dies, before anyone reaps it), and it ends at once."""


def orphanless(command: list[str]) -> list[str]:
    """`command` (a program and its arguments) as a command that dies with this process."""
    return [sys.executable, "-I", "-S", "-c", _BECOME, str(os.getpid()), *command]


STOP_SECONDS = 1.0
"""How long a killed child's end is waited for, at most: a child that took gigabytes may
take long to give them back, and nothing here needs it gone first."""


def stop(child: Any) -> None:
    """Kill a `multiprocessing` child where it still runs, waiting STOP_SECONDS at most for
    its end (the kernel reaps it, or the next `multiprocessing` call does)."""
    if child.is_alive():
        child.kill()
    child.join(timeout=STOP_SECONDS)


def bounded_run(
    command: list[str],
    seconds: float,
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> tuple[int, bytes, bytes]:
    """Run `command` to its end within `seconds`: its exit status, what it wrote to its
    output and to its error stream. Past `seconds` it is killed, with every process it
    started (it leads a session of its own), and TimeoutExpired is raised at once."""
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=env,
        start_new_session=True,
    )
    try:
        out, err = process.communicate(timeout=seconds)
    except BaseException:
        _abandon(process)
        raise
    return process.returncode, out, err


def _abandon(process: subprocess.Popen[bytes]) -> None:
    """Kill `process` and its own, and let it go: its end is reaped by a thread of its own
    where it is not over within STOP_SECONDS."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()
    try:
        process.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        threading.Thread(target=process.wait, daemon=True).start()


def stderr_file() -> IO[bytes]:
    """A file, already gone from its folder, for a child to write its error stream into
    (`for_child`): nothing of it outlives the process, however it ends."""
    return tempfile.TemporaryFile()


def for_child(file: IO[bytes]) -> Connection:
    """`file` as a `multiprocessing` child is given it (an argument of its Process): a
    Connection over a copy of its descriptor, the one kind of descriptor a Process hands
    to its child however it starts it. Close it once the child has started."""
    return Connection(os.dup(file.fileno()))


def write_stderr_to(file: Connection) -> None:
    """In a child: send what it writes to its error stream (its own, and what native code
    writes to the descriptor) into the file given by `for_child`, not the terminal."""
    sys.stderr.flush()
    os.dup2(file.fileno(), 2)
    file.close()


def written(file: IO[bytes], most: int = 65536) -> str:
    """The last `most` bytes a child wrote into `file`, as text."""
    file.seek(0, os.SEEK_END)
    size = file.tell()
    file.seek(max(0, size - most))
    return file.read().decode("utf-8", "replace")


_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"  # CSI: colours, cursor, erasing
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC…
    r"|\x1b[ -/]*[0-~]?"  # any other escape
)
"""Terminal escape sequences. Each part reads on only through characters its end cannot
be, so the pattern is linear whatever the text."""
_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_SPACED = {
    code: " "
    for code in [*range(0x20), *range(0x7F, 0xA0), *map(ord, _BIDI), 0x2028, 0x2029, 0xFEFF]
}


def one_line(text: str, most: int = 400) -> str:
    """`text` as one line of at most `most` characters: escape sequences taken out, other
    control characters (C0, C1, bidi controls, line and paragraph separators) made spaces,
    runs of white space one space."""
    plain = _SEQUENCE.sub("", text).translate(_SPACED)
    line = " ".join(plain.split())
    return line if len(line) <= most else line[: most - 1].rstrip() + "…"


def last_line(text: str) -> str:
    """The last line of what a child printed that says something, as `one_line`."""
    for line in reversed(text.splitlines()):
        said = one_line(line)
        if said:
            return said
    return ""
