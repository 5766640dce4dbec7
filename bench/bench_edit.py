#!/usr/bin/env python3
"""What an edit costs an author: `sourcebook serve`, `build` and `check` beside Hugo's.

    python bench/bench_edit.py [--sizes 10000] [--seed 0] [--repeat R]

Each record is the one bench_site.py generates into bench/out/site-n<N>-seed<S>/ (reused
while its size, seed and generator are unchanged), and Hugo's content the one it writes
from it; the edits go to one glossary term, in the record and in Hugo's content alike.
For each size it prints a line per figure, the best (min) of R and the median, beside
Hugo's and their ratio where Hugo has one (Debian's hugo; skipped with a message where
it is missing):

- serve: `sourcebook serve` (and `hugo server`, rendering to memory) running on
  127.0.0.1, from appending a sentence with a new marker to the term's file until a GET
  of its page returns HTML holding the marker (polled every 20 ms);
- build after a one-file edit: the whole `sourcebook build --quiet` process, after an
  earlier build, beside `hugo` building into the public/ folder of its last build;
- check, unchanged record: `sourcebook check` of a record checked before;
- check after a one-file edit: `sourcebook check` after a sentence is appended;
- cold check: `sourcebook check --no-cache` with the state folder removed;
- cold build: `sourcebook build --quiet` with the state folder removed, beside `hugo`
  building into an empty folder followed by Pagefind indexing Hugo's pages (what a Hugo
  site with search pays); and the peak memory of each (the largest process's resident
  set, as the kernel reports it when the process ends).

Targets (a "target:" line after each figure that has one), the issue's: serve a sentence
≤ 0.2 s, a figure ≤ 0.5 s, an alias ≤ 1.5 s; build after an edit ≤ 1.0 s; check after
an edit ≤ 0.5 s, of an unchanged record ≤ 0.3 s; cold check ≤ 3 s, judged at every size;
cold build ≤ Hugo's build and Pagefind's index together, in time and in peak memory,
judged at 10,000 (where start-up no longer dominates).
Every edit is undone at the end and every server stopped (its whole process group), on
an error, Ctrl-C or `kill` too. The script exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import tomllib
import urllib.request
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median
from urllib.parse import urlsplit

from bench_site import (
    HUGO,
    HUGO_CONFIG,
    HUGO_SECTIONS,
    hugo_site,
    record_dir,
    run_hugo,
    run_pagefind,
    settled,
)
from generate import CACHE
from installed import as_installed

HERE = Path(__file__).resolve().parent
SOURCEBOOK = [sys.executable, "-m", "sourcebook"]
HOST = "127.0.0.1"
POLL_SECONDS = 0.02
START_SECONDS = 900.0
"""How long a server may take to serve the page at all (its first build)."""
EDIT_SECONDS = 120.0
STOP_SECONDS = 60.0
SETTLE_SECONDS = 300.0
IDLE_CPU = 0.05
"""CPU seconds a server may use in half a second and count as idle."""
# Opened without the environment's proxies: nothing may leave 127.0.0.1.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))

SERVE = "serve: one-file prose edit -> page updated"
SERVE_FIGURE = "serve: a figure edit -> its campus page"
SERVE_ALIAS = "serve: a new alias -> its pages updated"
BUILD_EDIT = "build after a one-file edit"
CHECK_SAME = "check, unchanged record"
CHECK_EDIT = "check after a one-file edit"
COLD_CHECK = "cold check"
COLD_BUILD = "cold build"
ORDER = (
    SERVE,
    SERVE_FIGURE,
    SERVE_ALIAS,
    BUILD_EDIT,
    CHECK_SAME,
    CHECK_EDIT,
    COLD_CHECK,
    COLD_BUILD,
)
TARGET_SECONDS = {
    SERVE: 0.2,
    SERVE_FIGURE: 0.5,
    SERVE_ALIAS: 1.5,
    BUILD_EDIT: 1.0,
    CHECK_SAME: 0.3,
    CHECK_EDIT: 0.5,
    COLD_CHECK: 3.0,
}
TARGET_NOTES = {SERVE: " (Hugo's server about 1.6 s at 10,000, in the issue)"}
TARGET_RATIO = 1.0
"""Cold build within Hugo's full build and Pagefind's index of its pages, together."""
THEIRS = f"{TARGET_RATIO:.1f}× Hugo's build and Pagefind's index"
TARGET_SIZE = 10_000
"""The size the ratio is judged at; at other sizes it is printed, not judged."""


@dataclass
class Figure:
    name: str
    ours: list[float] = field(default_factory=list)
    hugo: list[float] = field(default_factory=list)
    """Hugo's, for the same work (for the cold build: Hugo's build and Pagefind's index)."""


@dataclass
class Memory:
    """The peak resident memory of each cold build (MiB): ours, Hugo's, Pagefind's."""

    ours: list[float] = field(default_factory=list)
    hugo: list[float] = field(default_factory=list)
    pagefind: list[float] = field(default_factory=list)


@dataclass
class Page:
    """The entity edited: its file and the URL path of its page, for one side."""

    file: Path
    path: str


# Edits, each undone.

Shown = Callable[[str], bool]
"""Whether a page's HTML shows an edit."""
Edit = Callable[[str], Shown]
"""Make an edit, given the page's HTML before it."""


@contextlib.contextmanager
def kept_as_it_was(path: Path) -> Iterator[None]:
    """The file's bytes put back on leaving, however the run ends."""
    original = path.read_bytes()
    try:
        yield
    finally:
        path.write_bytes(original)


@contextlib.contextmanager
def edited(path: Path) -> Iterator[Edit]:
    """An edit appending a sentence with a new marker to `path`; shown where the page
    holds the marker."""
    count = 0

    def append(before: str) -> Shown:
        nonlocal count
        count += 1
        marker = f"benchedit{count}x{time.time_ns()}"
        # One appending write, never a truncated file, is what the watcher sees.
        with path.open("a", encoding="utf-8") as file:
            file.write(f"\n\nThe author adds a sentence, {marker}.\n")
        return lambda page: marker in page

    with kept_as_it_was(path):
        yield append


FIGURE = re.compile(r"^    as_of: (?P<year>\d{4})(?P<rest>(?:-\d\d)*)$", re.M)
"""The date of a campus's first figure."""
ERRORS = "<title>The record has errors</title>"


def figure_file(root: Path) -> Path:
    """The first campus with a figure (after the first, as `term_page` takes the first)."""
    for file in sorted((root / "campuses").glob("*.md")):
        if FIGURE.search(file.read_text(encoding="utf-8")):
            return file
    raise SystemExit(f"{root}: no campus has a figure to edit")


@contextlib.contextmanager
def figure_edited(path: Path) -> Iterator[Edit]:
    """An edit moving the file's first figure a year back, and the next time forward again
    (its number cannot change alone: its quote, which carries it, is proved against the
    Library's copy); shown where the page differs from the page before, and is no page of
    errors."""
    with kept_as_it_was(path):
        count = 0

        def move(before: str) -> Shown:
            nonlocal count
            count += 1
            text = path.read_text(encoding="utf-8")
            found = FIGURE.search(text)
            assert found is not None
            year = int(found["year"]) + (-1 if count % 2 else 1)
            moved = f"    as_of: {year}{found['rest']}"
            path.write_text(text[: found.start()] + moved + text[found.end() :], encoding="utf-8")
            return lambda page: page != before and ERRORS not in page

        yield move


PLAIN = re.compile(r"[a-z]{3,}")


def alias_phrase(root: Path) -> str:
    """Two words that stand together in about one file in a hundred and name nothing yet:
    an alias that then links there."""
    counts: dict[str, int] = {}
    names: set[str] = set()
    files = sorted(root.glob("*/*.md"))
    for file in files:
        front, _, prose = file.read_text(encoding="utf-8").partition("\n---\n")
        names.update(n.casefold() for n in re.findall(r"^title: (.*)$", front, re.M))
        for listed in re.findall(r"^aliases: \[(.*)\]$", front, re.M):
            names.update(n.strip().casefold() for n in listed.split(","))
        words = prose.split()
        pairs = zip(words, words[1:], strict=False)
        # plain words in lower case, as no name is written, longer than the 'p' of 'p. 4'
        for pair in {f"{a} {b}" for a, b in pairs if PLAIN.fullmatch(a) and PLAIN.fullmatch(b)}:
            counts[pair] = counts.get(pair, 0) + 1
    aim = len(files) / 100
    for pair in sorted(counts, key=lambda pair: (abs(counts[pair] - aim), pair)):
        if not any(pair in name for name in names):
            return pair
    raise SystemExit(f"{root}: no two words to make an alias of")


@contextlib.contextmanager
def alias_edited(path: Path, alias: str) -> Iterator[Edit]:
    """An edit giving the term `alias` and, the next time, taking it back; shown where the
    term's page lists it, or no longer does."""
    with kept_as_it_was(path):
        original = path.read_text(encoding="utf-8")
        given = original.replace("\ndefinition:", f"\naliases: [{alias}]\ndefinition:", 1)
        assert given != original and "\naliases:" not in original
        count = 0

        def toggle(before: str) -> Shown:
            nonlocal count
            count += 1
            path.write_text(given if count % 2 else original, encoding="utf-8")
            adds = count % 2 == 1
            return lambda page: (alias.capitalize() in page or alias in page) == adds

        yield toggle


# Whole processes.


def whole(command: list[str], peaks: list[float] | None = None) -> float:
    """Seconds of one process, start-up to exit; its output drained, its failure fatal.
    `peaks`: where to add its peak resident memory, MiB (its largest process's, its
    workers included, as `wait4` reports it)."""
    settled()
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None
    said = process.stderr.read()  # drained while it runs: a full pipe would block it
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    process.returncode = code
    if code != 0:
        tail = "\n".join(said.decode("utf-8", "replace").strip().splitlines()[-5:])
        raise SystemExit(f"{' '.join(command[2:])} failed ({code}):\n{tail}")
    if peaks is not None:
        peaks.append(usage.ru_maxrss / 1024)
    return seconds


def hugo_build(site: Path, public: Path) -> float:
    return run_hugo(site, public, "hugo.toml").seconds


# Servers.


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


class Server:
    """A server in a process group of its own, its output drained (the last lines kept)."""

    def __init__(self, name: str, command: list[str]):
        self.name = name
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.output: deque[str] = deque(maxlen=10)
        self._drain = threading.Thread(target=self._read, daemon=True)
        self._drain.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            self.output.append(raw.decode("utf-8", "replace").rstrip())

    def failed(self, why: str) -> SystemExit:
        tail = "\n".join(f"  {text}" for text in self.output)
        return SystemExit(f"{self.name}: {why}; its last output:\n{tail}")

    def stop(self) -> None:
        """The whole group: serve's Pagefind, or anything else it started, goes too."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=STOP_SECONDS)
        # And whatever outlived the leader, or the leader itself if it would not stop.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self._drain.join(timeout=5)

    def cpu_seconds(self) -> float:
        """CPU used so far by the group, the children it has waited for included."""
        ticks = 0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:  # ended meanwhile
                continue
            if int(fields[2]) == self.process.pid:
                ticks += sum(int(value) for value in fields[11:15])
        return ticks / os.sysconf("SC_CLK_TCK")

    def settle(self) -> None:
        """Until the group is idle: an edit made while the server still works on the last
        one (serve indexes each build for search) would race it for the two cores, where
        an author reads the page first."""
        deadline = time.perf_counter() + SETTLE_SECONDS
        used = self.cpu_seconds()
        while time.perf_counter() < deadline:
            time.sleep(0.5)
            used, before = self.cpu_seconds(), used
            if used - before < IDLE_CPU:
                return


@contextlib.contextmanager
def serving(name: str, command: list[str]) -> Iterator[Server]:
    server = Server(name, command)
    try:
        yield server
    finally:
        server.stop()


def fetch(url: str) -> str | None:
    """The page's HTML, or None while the server cannot give it (not up, rebuilding, an
    error page)."""
    try:
        with OPENER.open(url, timeout=EDIT_SECONDS) as answer:
            return answer.read().decode("utf-8", "replace")
    except (OSError, http.client.HTTPException):
        return None


def serve_seconds(
    name: str, command: list[str], edits: list[tuple[str, Edit]], repeat: int
) -> list[list[float]]:
    """For each (URL, edit): from each edit's write until its page shows it, `repeat`
    edits, in one server."""
    times: list[list[float]] = [[] for _ in edits]
    with serving(name, command) as server:
        deadline = time.perf_counter() + START_SECONDS
        while fetch(edits[0][0]) is None:
            if server.process.poll() is not None or time.perf_counter() > deadline:
                raise server.failed(f"{edits[0][0]} was never served")
            time.sleep(0.1)
        for (url, edit), taken in zip(edits, times, strict=True):
            for _ in range(repeat):
                server.settle()
                before = fetch(url) or ""
                started = time.perf_counter()
                shown = edit(before)
                while (page := fetch(url)) is None or not shown(page):
                    if server.process.poll() is not None:
                        raise server.failed("the server stopped")
                    if time.perf_counter() - started > EDIT_SECONDS:
                        raise server.failed(f"{url} did not show the edit in {EDIT_SECONDS:g} s")
                    time.sleep(POLL_SECONDS)
                taken.append(time.perf_counter() - started)
    return times


def sourcebook_serve(root: Path, port: int) -> list[str]:
    return SOURCEBOOK + ["serve", str(root), "--host", HOST, "--port", str(port), "--no-notify"]


def hugo_serve(site: Path, port: int) -> list[str]:
    options = ["--port", str(port), "--bind", HOST, "--disableLiveReload"]
    return [HUGO or "hugo", "server", "--source", str(site), "--config", "hugo.toml", *options]


# The pages edited.


def term_page(root: Path, skip: int = 0) -> Page:
    """The first term with a page in the site `build` wrote (drafts have none), after
    `skip` such terms."""
    site = root / "_site"
    glossary = next(site.glob("**/glossary/*/index.html")).parent.parent
    for file in sorted((root / "terms").glob("*.md")):
        if (glossary / file.stem / "index.html").is_file() and "\naliases:" not in file.read_text():
            if skip == 0:
                return Page(file, "/" + (glossary / file.stem).relative_to(site).as_posix() + "/")
            skip -= 1
    raise SystemExit(f"{site}: no term has a page")


def campus_page(root: Path, file: Path) -> Page:
    site = root / "_site"
    page = next(site.glob(f"**/ledger/{file.stem}/index.html")).parent
    return Page(file, "/" + page.relative_to(site).as_posix() + "/")


def hugo_page(site: Path, stem: str) -> Page:
    base = urlsplit(tomllib.loads(HUGO_CONFIG)["baseURL"]).path
    section = HUGO_SECTIONS["term"]
    return Page(site / "content" / section / f"{stem}.md", f"{base}{section}/{stem}/")


# Each size.


def measure(root: Path, hugo: Path | None, repeat: int) -> tuple[list[Figure], Memory]:
    build = SOURCEBOOK + ["build", str(root), "--quiet"]
    check = SOURCEBOOK + ["check", str(root)]
    whole(build)  # the state folder warm, and a site to find the term's page in
    ours = term_page(root)
    campus = campus_page(root, figure_file(root))
    named = term_page(root, skip=1)
    alias = alias_phrase(root)
    print(f"  edited: {ours.file.relative_to(root)} ({ours.path})", flush=True)
    print(f"  a figure of: {campus.file.relative_to(root)} ({campus.path})", flush=True)
    print(f"  alias '{alias}' given to: {named.file.relative_to(root)} ({named.path})", flush=True)
    figures = {name: Figure(name) for name in ORDER}
    memory = Memory()
    fresh: list[Path] = []
    with contextlib.ExitStack() as stack:
        edit = stack.enter_context(edited(ours.file))
        port = free_port()
        origin = f"http://{HOST}:{port}"
        served = [
            (f"{origin}{ours.path}", edit),
            (f"{origin}{campus.path}", stack.enter_context(figure_edited(campus.file))),
            (f"{origin}{named.path}", stack.enter_context(alias_edited(named.file, alias))),
        ]
        times = serve_seconds("sourcebook serve", sourcebook_serve(root, port), served, repeat)
        figures[SERVE].ours, figures[SERVE_FIGURE].ours, figures[SERVE_ALIAS].ours = times
        if hugo is not None:
            theirs = hugo_page(hugo, ours.file.stem)
            print(f"  edited: {theirs.file.relative_to(hugo.parent)} ({theirs.path})", flush=True)
            edit_hugo = stack.enter_context(edited(theirs.file))
            port = free_port()
            url = f"http://{HOST}:{port}{theirs.path}"
            figures[SERVE].hugo = serve_seconds(
                "hugo server", hugo_serve(hugo, port), [(url, edit_hugo)], repeat
            )[0]
            hugo_build(hugo, hugo / "public-hugo")  # its public/ as its last build left it
        # The figure and the alias serve was given stay in the record: built once first, so
        # that each round after is a build after one file's edit.
        whole(build)
        # Round by round, ours then Hugo's, so that load on the machine falls on each alike.
        for _ in range(repeat):
            edit("")
            figures[BUILD_EDIT].ours.append(whole(build))
            if hugo is not None:
                edit_hugo("")
                figures[BUILD_EDIT].hugo.append(hugo_build(hugo, hugo / "public-hugo"))
        whole(check)  # what the next checks read back
        figures[CHECK_SAME].ours = [whole(check) for _ in range(repeat)]
        for _ in range(repeat):
            edit("")
            figures[CHECK_EDIT].ours.append(whole(check))
        for _ in range(repeat):
            shutil.rmtree(root / CACHE, ignore_errors=True)
            figures[COLD_CHECK].ours.append(whole(check[:4] + ["--no-cache"] + check[4:]))
        try:
            for i in range(repeat):
                shutil.rmtree(root / CACHE, ignore_errors=True)
                figures[COLD_BUILD].ours.append(whole(build, memory.ours))
                if hugo is not None:
                    # New folders, removed only after the timing: as bench_site.py finds,
                    # files made just after many were deleted are slow on some disks.
                    fresh.append(hugo / f"public-new-{i}")
                    shutil.rmtree(fresh[-1], ignore_errors=True)
                    built = run_hugo(hugo, fresh[-1], "hugo.toml")
                    indexed = run_pagefind(fresh[-1])
                    figures[COLD_BUILD].hugo.append(built.seconds + indexed.seconds)
                    memory.hugo.append(built.peak_mib)
                    memory.pagefind.append(indexed.peak_mib)
        finally:
            for folder in fresh:
                shutil.rmtree(folder, ignore_errors=True)
    return [figures[name] for name in ORDER], memory


def report(n: int, figure: Figure) -> bool | None:
    """Print the figure's line and its target's; whether the target is met (None: none)."""
    best = min(figure.ours)
    text = f"{figure.name:<42} N={n:>6,}  {best:6.2f} s (median {median(figure.ours):.2f} s)"
    if figure.hugo:
        hugo = min(figure.hugo)
        theirs = "hugo + pagefind" if figure.name == COLD_BUILD else "hugo"
        text += (
            f"  {theirs} {hugo:6.2f} s (median {median(figure.hugo):.2f} s)"
            f"  {best / hugo:.2f}× theirs"
        )
    print(text, flush=True)
    limit = TARGET_SECONDS.get(figure.name)
    if limit is not None:
        met = best <= limit
        note = TARGET_NOTES.get(figure.name, "")
        print(f"  target: ≤ {limit:g} s{note}: {'met' if met else 'NOT met'}", flush=True)
        return met
    if figure.name != COLD_BUILD:
        return None
    if not figure.hugo:
        print(f"  target: ≤ {THEIRS}: not judged without Hugo", flush=True)
        return None
    if n != TARGET_SIZE:
        print(f"  target: ≤ {THEIRS}: judged at {TARGET_SIZE:,} only", flush=True)
        return None
    met = best / min(figure.hugo) <= TARGET_RATIO
    print(f"  target: ≤ {THEIRS}: {'met' if met else 'NOT met'}", flush=True)
    return met


def bench(n: int, seed: int, repeat: int) -> list[bool]:
    root = record_dir(n, seed)
    print(f"N={n:,}: {root.relative_to(HERE.parent)}", flush=True)
    hugo = hugo_site(root) if HUGO else None
    if hugo is None:
        print("  hugo skipped: hugo is not installed (apt install hugo)", flush=True)
    figures, memory = measure(root, hugo, repeat)
    results = [report(n, figure) for figure in figures]
    results.append(report_memory(n, memory))
    return [met for met in results if met is not None]


def report_memory(n: int, memory: Memory) -> bool | None:
    """Print the cold builds' peak memory, ours beside Hugo's and Pagefind's together;
    whether ours is within theirs (judged at TARGET_SIZE, where Hugo ran)."""
    ours = max(memory.ours)
    text = f"{'peak memory, cold build':<42} N={n:>6,}  ours {ours:7.0f} MiB"
    if not memory.hugo:
        print(text, flush=True)
        return None
    hugo, pagefind = max(memory.hugo), max(memory.pagefind)
    theirs = hugo + pagefind
    print(
        f"{text}  hugo {hugo:.0f} MiB + pagefind {pagefind:.0f} MiB = {theirs:.0f} MiB"
        f"  {ours / theirs:.2f}× theirs",
        flush=True,
    )
    if n != TARGET_SIZE:
        return None
    met = ours <= theirs
    print(f"  target: ≤ Hugo's and Pagefind's: {'met' if met else 'NOT met'}", flush=True)
    return met


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> None:
    as_installed()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000", help="comma-separated N")
    parser.add_argument("--seed", type=int, default=0, help="the generator's seed")
    parser.add_argument("--repeat", type=int, default=3, help="the best and median of R runs")
    args = parser.parse_args()
    # Stopped by `kill` as by Ctrl+C: the same `finally`s stop the servers and undo the edits.
    signal.signal(signal.SIGTERM, _interrupt)
    met: list[bool] = []
    for n in args.sizes.split(","):
        met += bench(int(n.replace("_", "")), args.seed, max(1, args.repeat))
    sys.exit(0 if all(met) else 1)


if __name__ == "__main__":
    main()
