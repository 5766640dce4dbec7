"""`sourcebook serve HOUSE` run as a user runs it: one server for the house, rebuilt when a
file of either volume changes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from house_fixtures import write_house

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return str(response.read().decode("utf-8"))
    except OSError:
        return ""


def until(predicate: Callable[[], bool], seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.25)
    return False


def test_serve_rebuilds_the_house_when_either_volume_changes(tmp_path: Path) -> None:
    house = write_house(tmp_path / "house")
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    command = [sys.executable, "-m", "sourcebook", "serve", str(house), "-p", str(port)]
    server = subprocess.Popen(
        [*command, "--no-notify"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        assert until(lambda: "The Power Race" in fetch(f"{origin}/")), "the house is not served"
        assert "Crusoe misspelt as Cruso" in fetch(f"{origin}/corrections")
        # A file of volume 2 changes: its correction's title on the house's page follows.
        correction = house / "power-race" / "corrections" / "grid-report-year.md"
        correction.write_text(correction.read_text().replace("year", "date", 1))
        assert until(lambda: "The grid report’s date" in fetch(f"{origin}/corrections"))
        # A file of volume 1 changes: the house's page follows too.
        cruso = house / "compute-race" / "corrections" / "tomshardware-cruso.md"
        cruso.write_text(cruso.read_text().replace("Crusoe misspelt as Cruso", "Crusoe as Cruso"))
        assert until(lambda: "Crusoe as Cruso" in fetch(f"{origin}/corrections"))
        assert "Crusoe as Cruso" in fetch(f"{origin}/vol1/corrections/sources")
    finally:
        server.terminate()
        output = server.communicate(timeout=20)[0].decode("utf-8", "replace")
    assert f"Serving {house.as_posix()} on {origin}/" in output
