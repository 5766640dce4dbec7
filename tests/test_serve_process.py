"""`sourcebook serve` run as a user runs it, in a process of its own: what it prints, how
it stops, and what it does with requests a browser would never send."""

from __future__ import annotations

import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from host_fixtures import SRC, fetch, origin_of, serve_process, stop
from site_fixtures import write_record

from sourcebook.commands.common import loopback
from sourcebook.publish.site.serving.serve import LISTEN_BACKLOG, make_server


@pytest.fixture
def record(tmp_path: Path) -> Path:
    root = write_record(tmp_path / "record")
    (root / "static").mkdir()
    (root / "static" / "big.bin").write_bytes(b"\0" * 8_000_000)  # more than a socket holds
    return root


def raw(origin: str, request: bytes, reset: bool = False) -> bytes:
    """Send `request` as it is; the answer, or b'' where `reset` drops the connection at
    once with a reset, as a browser tab closed mid-download does."""
    host, port = origin.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(request)
        if reset:
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return b""
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
        return answer


def status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def get(path: bytes) -> bytes:
    return b"GET " + path + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"


def test_warnings_are_counted_on_start_and_listed_with_verbose(record: Path) -> None:
    env = {"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"}
    checked = subprocess.run(
        [sys.executable, "-m", "sourcebook", "check", str(record)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    count = checked.stdout.count(": warning ")
    assert count > 1 and checked.stdout.count("warning Q003") == 4
    with serve_process(record, "--no-notify", "--no-watch") as running:
        pass
    assert "Built version 1." in running.output
    assert f"check gave {count} warnings (-v to list them)." in running.output
    assert "warning Q003" not in running.output
    with serve_process(record, "--no-notify", "--no-watch", "-v") as running:
        pass
    assert f"check gave {count} warnings:" in running.output
    assert running.output.count(": warning ") == count


def test_sigterm_removes_the_temporary_folder(record: Path, tmp_path: Path) -> None:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    ours = "sourcebook-*/serve-*"  # beside it, Jinja's own cache of compiled templates stays
    with serve_process(record, "--no-notify", env={"TMPDIR": str(temporary)}) as running:
        assert len(list(temporary.glob(ours))) == 1
        assert fetch(origin_of(running) + "/vol1/").status == 200
        stop(running.child)
        assert running.child.returncode == 0
    assert list(temporary.glob(ours)) == []
    assert "Stopped." in running.output and "Traceback" not in running.output


def test_a_browser_going_away_is_not_an_error(record: Path) -> None:
    with serve_process(record, "--no-notify", "--no-watch") as running:
        origin = origin_of(running)
        for _ in range(5):
            raw(origin, get(b"/vol1/static/big.bin"), reset=True)
        raw(origin, get(b"/__sourcebook/wait?version=1"), reset=True)
        time.sleep(0.5)
        assert fetch(origin + "/vol1/glossary/cluster").status == 200
    assert "Traceback" not in running.output
    assert "Broken pipe" not in running.output and "reset by peer" not in running.output


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[str]]]:
    """One real server for the hostile paths; (its origin, what it has printed)."""
    root = write_record(tmp_path_factory.mktemp("hostile") / "record")
    with serve_process(root, "--no-notify", "--no-watch") as running:
        yield origin_of(running), running.lines


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (b"/vol1/glossary/cl%00uster", 400),
        (b"/vol1/%00", 400),
        (b"/vol1/" + b"a" * 300, 400),
        (b"/vol1/" + b"%41" * 300, 400),
        (b"/vol1/../../etc/passwd", 400),
        (b"/vol1/%2e%2e/%2e%2e/etc/passwd", 400),
        (b"/vol1/glossary/%ff", 400),
        (b"/" + b"a/" * 2000, 404),  # every segment short; the whole past what a system takes
        (b"//example.org/vol1/ledger", 404),  # never a redirect to another site
    ],
)
def test_a_hostile_path_is_refused_without_a_traceback(
    served: tuple[str, list[str]], path: bytes, expected: int
) -> None:
    origin, printed = served
    answer = raw(origin, get(path))
    assert status(answer) == expected, answer[:200]
    assert b"Location: //" not in answer
    assert fetch(origin + "/vol1/").status == 200
    assert "Traceback" not in "".join(printed)


def test_a_redirect_keeps_to_the_site(record: Path) -> None:
    with serve_process(record, "--no-notify", "--no-watch") as running:
        answer = raw(origin_of(running), get(b"//vol1//ledger"))
    assert status(answer) == 301 and b"\r\nLocation: /vol1/ledger/\r\n" in answer


def test_serving_beyond_this_machine_is_warned_of(record: Path) -> None:
    assert loopback("127.0.0.1") and loopback("::1") and loopback("localhost")
    assert not loopback("0.0.0.0") and not loopback("192.0.2.1") and not loopback("example.org")
    # 192.0.2.1 is for documentation: no machine has it, so nothing is ever served there.
    command = [sys.executable, "-m", "sourcebook", "serve", str(record), "--host", "192.0.2.1"]
    command += ["--no-notify", "--no-watch"]
    env = {"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"}
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert "warning: serving on 192.0.2.1 lets other machines read the site" in result.stderr
    assert "cannot listen on 192.0.2.1:8000" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.fixture
def quick_server(record: Path, tmp_path: Path) -> Iterator[str]:
    from site_fixtures import build

    server = make_server(build(record, tmp_path / "site"), port=0, base_path="/vol1")
    server.request_timeout = 0.5
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.url
    server.shutdown()
    server.server_close()


def test_a_slow_client_is_dropped_and_holds_nobody_up(quick_server: str) -> None:
    host, port = quick_server.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as slow:
        slow.sendall(b"GET /vol1/ HTTP/1.1\r\nHo")  # and then nothing more
        assert fetch(quick_server + "/vol1/glossary/cluster").status == 200
        started = time.monotonic()
        assert slow.recv(100) == b""  # closed by the server
        assert time.monotonic() - started < 5


def test_many_clients_at_once_are_all_answered(quick_server: str) -> None:
    assert LISTEN_BACKLOG >= 128
    host, port = quick_server.removeprefix("http://").split(":")
    sockets = [socket.create_connection((host, int(port)), timeout=10) for _ in range(100)]
    try:
        for conn in sockets:
            conn.sendall(get(b"/vol1/"))
        for conn in sockets:
            assert conn.recv(12).startswith(b"HTTP/1.1 200")
    finally:
        for conn in sockets:
            conn.close()
