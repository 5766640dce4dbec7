"""Records from anyone, round two: inputs sized to run a build away, children that print
what a record says, and builds killed part way.

Each route is tried through the CLI, as CI runs it: `sourcebook` as a process of its own,
under a memory limit, in a folder the test made and compares before and after (only the
site and the record's state folder may change), with its scratch place (TMPDIR) one of
the test's own. Where a budget of time is the point, the budget is made small for the
test, in this process, rather than waited out.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CHAPTER, SETTINGS, term

from sourcebook.children import alive, one_line, orphanless
from sourcebook.publish.site.drawing import typeset, vega

MEMORY = 2 * 1024**3
"""The memory (the data a process writes, RLIMIT_DATA) each run may use."""
LINE = re.compile(r"^[^\s:][^:]*:\d+:\d+: (error|warning) [A-Z]\d{3} \S.*$")
OUTPUTS = ("site", ".site.spare", ".site.building-", "record/.sourcebook-cache")
"""What a run may change in the folder around the record: the site, its spare, what a
killed build was writing (which the next removes), and the record's state folder."""
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""Characters a terminal acts on, or that reorder what it shows (tab and line feed aside)."""


def _limited(memory: int) -> Callable[[], None]:
    return lambda: resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))


class Box:
    """A record at tmp/box/record whose site is built to tmp/box/site; each run's scratch
    place is under tmp/scratch, and its processes carry a mark in their environment."""

    def __init__(self, tmp: Path, files: dict[str, str], settings: str = SETTINGS):
        self.box = tmp / "box"
        self.record = self.box / "record"
        self.site = self.box / "site"
        self.scratch = tmp / "scratch"
        self.scratch.mkdir()
        self.mark = f"sourcebook-test-{uuid.uuid4().hex}"
        files = {"chapters/chapter-1.md": CHAPTER, "terms/cluster.md": term("Cluster"), **files}
        self.write("sourcebook.toml", settings)
        for name, content in files.items():
            self.write(name, content)
        self.before = self.snapshot()

    def write(self, name: str, content: str) -> None:
        path = self.record / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(content), encoding="utf-8")

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "TMPDIR": str(self.scratch), "SOURCEBOOK_TEST_MARK": self.mark}

    def command(self, *args: str) -> list[str]:
        target = ["."] + (["-o", str(self.site)] if args[0] == "build" else [])
        return [sys.executable, "-m", "sourcebook", *args, *target]

    def snapshot(self) -> dict[str, tuple[int, int]]:
        found = {}
        for folder, dirs, files in os.walk(self.box):
            for name in dirs + files:
                path = Path(folder, name)
                relative = path.relative_to(self.box).as_posix()
                if not relative.startswith(OUTPUTS):
                    stat = path.lstat()
                    found[relative] = (0, 0) if name in dirs else (stat.st_size, stat.st_mtime_ns)
        return found

    def sourcebook(self, *args: str, memory: int = MEMORY) -> subprocess.CompletedProcess[str]:
        """`sourcebook ARGS RECORD` (with `-o SITE` for build), bounded in memory."""
        result = subprocess.run(
            self.command(*args),
            capture_output=True,
            text=True,
            timeout=300,
            cwd=self.record,
            env=self.env,
            preexec_fn=_limited(memory),
        )
        output = result.stdout + result.stderr
        assert "Traceback" not in output, output
        assert self.snapshot() == self.before, "a file outside the site changed"
        assert not _marked(self.mark), "a process it started outlived it"
        return result

    def refused(self, command: str, code: str, where: str, memory: int = MEMORY) -> list[str]:
        """Run `command`; it must fail with `code` at `where` (file:line), one line each."""
        result = self.sourcebook(command, memory=memory)
        assert result.returncode == 1, result.stdout + result.stderr
        lines = [line for line in result.stdout.splitlines() if f" {code} " in line]
        assert lines and all(LINE.match(line) for line in lines), result.stdout + result.stderr
        assert any(line.startswith(where) for line in lines), lines
        if command == "build":
            assert not self.site.exists() or not any(self.site.rglob("*.html"))
        return lines


@pytest.fixture
def box(tmp_path: Path) -> Callable[..., Box]:
    return lambda files=None, settings=SETTINGS: Box(tmp_path, files or {}, settings)


def _marked(mark: str) -> list[int]:
    """The processes (zombies aside) whose environment holds `mark`."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/environ", "rb") as environ:
                    if mark.encode() in environ.read():
                        found.append(int(entry.name))
            except OSError:
                continue
    return found


def _holds(pid: int, library: str) -> bool:
    """Whether process `pid` has `library` (a part of a file name) mapped."""
    try:
        return library in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def chart(query: str, spec: str, title: str = "A chart") -> str:
    return (
        f"---\ntitle: {title}\norder: 1\ndescription: What it shows.\nquery: {query}\n"
        f"spec:\n{textwrap.indent(textwrap.dedent(spec), '  ')}---\n"
    )


def paper(body: str) -> str:
    return f"---\ntitle: A paper\ndate: 2026-11-01\nsummary: What it finds.\n---\n{body}\n"


# Route 4: linear time for every input.


def test_prose_that_opens_and_never_closes_is_checked_in_one_pass(box) -> None:
    """Each of these took check seconds to minutes, in the square of its length."""
    body = "\n\n".join(
        [
            "](" * 80_000,  # a link target never closed, 160 KB: 18.7 s once
            "<a://" * 20_000,  # an address in brackets never closed
            "[@a, x" + " " * 50_000 + "y]",  # a citation's locator of spaces
            "[“a”]{.scare}“" * 4_000,  # unbalanced marks among marked spans
            "[[" * 20_000 + "[@" * 20_000,  # wiki links and citations never closed
        ]
    )
    hostile = box({"terms/big.md": term("Big", body=body)})
    result = hostile.sourcebook("check")
    lines = [line for line in result.stdout.splitlines()[:-1] if not line.startswith("  hint:")]
    assert lines and all(LINE.match(line) for line in lines), result.stdout[-2000:]
    assert " L003 " in result.stdout  # the citation of no source, found all the same


def test_forty_thousand_unknown_settings_are_each_at_their_line(box) -> None:
    """40,000 short keys (430 KB) took 44 s: each key's line was looked for from the top."""
    keys = "".join(f"k{i} = 1\n" for i in range(40_000))
    hostile = box(settings=keys + SETTINGS)
    lines = hostile.refused("check", "S002", "sourcebook.toml:1:1")
    assert len(lines) == 40_000
    assert lines[-1].startswith("sourcebook.toml:40000:1: error S002 unknown setting 'k39999'")


# Route 5: budgets for the whole build.

TOO_MUCH = (
    '"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) '
    "SELECT i AS x, printf('%.*c', 50000, 'a') AS y FROM n\""
)
XY = """\
mark: bar
encoding:
  x: {field: x, type: quantitative}
  y: {field: y, type: nominal}
"""


def test_a_query_that_answers_too_much_is_refused_by_check_and_build(box) -> None:
    """5,000 rows of 50 KB from a 1 KB chart once took the build to 3 GB and a 956 MB site."""
    hostile = box({"charts/big.md": chart(TOO_MUCH, XY)})
    for command in ("check", "build"):
        lines = hostile.refused(command, "X004", "charts/big.md:5:", memory=1024**3)
        assert "more than 1,000,000 bytes" in lines[0]


def test_a_field_of_millions_of_characters_is_refused_by_check_and_build(box) -> None:
    hostile = box({"terms/long.md": term("Long", definition="word " * 220_000)})
    for command in ("check", "build"):
        lines = hostile.refused(command, "S013", "terms/long.md:3:")
        assert "holds 1,099,999 characters; a field holds at most 1,000,000" in lines[0]


def test_a_paper_past_what_typst_sets_is_refused_by_check_and_build(box) -> None:
    """100,000 footnotes took Typst to 5.8 GB; 50,000 headings, 128 s."""
    notes = "".join(f"Said.[^n{i}]\n\n[^n{i}]: A note.\n\n" for i in range(2_500))
    headings = "".join(f"## Part {i}\n\nText.\n\n" for i in range(1_200))
    hostile = box({"papers/notes.md": paper(notes), "papers/parts.md": paper(headings)})
    for command in ("check", "build"):
        lines = hostile.refused(command, "S014", "papers/")
        assert any(
            line.startswith("papers/notes.md:6:1:") and "5,000 footnote" in line for line in lines
        )
        assert any(
            line.startswith("papers/parts.md:6:1:") and "1,200 headings" in line for line in lines
        )


def _calculated(expression: str) -> str:
    spec = f"""\
    mark: bar
    transform:
      - {{calculate: "{expression}", as: z}}
    encoding:
      x: {{field: x, type: quantitative}}
      y: {{field: z, type: nominal}}
    """
    return chart('"SELECT 1 AS x"', spec)


def test_the_chart_engine_fails_in_one_line(box) -> None:
    """A JavaScript RangeError's stack, printed by the engine, reaches no terminal; an engine
    out of memory is one line at the chart, not a native stack trace."""
    hostile = box({"charts/ranged.md": _calculated("format(1, '>10000000000')")})
    result = hostile.sourcebook("build")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "RangeError" not in result.stderr and "    at " not in result.stderr
    hostile.write("charts/ranged.md", _calculated("length(sequence(0, 5e9))"))
    hostile.before = hostile.snapshot()
    result = hostile.sourcebook("build", memory=640 * 1024**2)  # the engine fills it soon
    assert result.returncode == 2
    assert result.stderr.startswith("error: charts/ranged.md:"), result.stderr
    assert "chart 'ranged': the engine drawing it ran out of memory" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


SLOW_SPEC = {
    "data": {"values": [{"x": 1}]},
    "mark": "bar",
    "transform": [{"calculate": "length(sequence(0, 3e7))", "as": "z"}],
    "encoding": {"x": {"field": "x", "type": "quantitative"}},
}


def test_all_the_charts_of_a_build_share_one_drawing_budget(monkeypatch) -> None:
    """Twenty charts that each drew within their own time once made a build of 151 s.

    Forty charts, each a tenth of a second or more of the engine's work on a fast machine,
    against a budget of one second: the budget, not the machine, ends the drawing."""
    monkeypatch.setattr(vega, "TOTAL_SECONDS", 1.0)
    drawing = vega.Drawing([(f"slow-{i}", SLOW_SPEC) for i in range(40)])
    with pytest.raises(vega.ChartRenderError) as raised:
        drawing.result()
    assert "the charts together took longer than 1 s to draw" in str(raised.value), raised.value


@pytest.mark.parametrize(
    ("budget", "value", "said"),
    [
        ("TYPESET_MEMORY", 700 * 1024**2, "it needs more memory than Typst may use"),
        ("TYPESET_SECONDS", 1.0, "it took longer than 1 s"),
    ],
)
def test_typst_is_stopped_at_its_budget(monkeypatch, tmp_path, budget, value, said) -> None:
    """Typst over 100,000 footnotes once took 5.8 GB, was killed at 120 s, and the build
    then waited 120 s more for it to end."""
    monkeypatch.setattr(typeset, budget, value)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    source = "".join(f"Said.#footnote[Note {i}]\n\n" for i in range(40_000))
    with pytest.raises(typeset.RenderError) as raised:
        typeset.compile_typst(source, {}, typeset.day_start("2026-11-01"))
    assert str(raised.value) == f"the paper could not be typeset: {said}" + (
        " (700 MiB)" if budget == "TYPESET_MEMORY" else ""
    )
    assert list(tmp_path.rglob("paper*")) == []


# Route 6: terminal control from a record.

CONTROLS = r"\e]0;pwned\a\e]52;c;cHduZWQ=\a\e[2J\u202e"
"""A terminal's title and clipboard set (OSC 0, OSC 52), the screen cleared, and the text
after it reversed, as YAML escapes."""


def test_what_a_record_says_never_drives_the_terminal(box) -> None:
    field = f'"{CONTROLS}"'
    spec = f"mark: bar\nencoding:\n  x: {{field: {field}, type: quantitative}}\n"
    evil = chart(f'"SELECT 1 AS \\"{CONTROLS}\\""', spec, title="Evil")
    related = term("Odd", extra=f"related: [{field}]\n")
    hostile = box({"charts/evil.md": evil, "terms/odd.md": related})
    checked = hostile.sourcebook("check")
    assert " L001 " in checked.stdout and "\\x1b]0;pwned\\x07" in checked.stdout
    as_json = hostile.sourcebook("check", "--format", "json")
    assert json.loads(as_json.stdout)["diagnostics"]
    hostile.write("terms/odd.md", term("Odd"))
    hostile.before = hostile.snapshot()
    built = hostile.sourcebook("build")
    assert built.returncode == 2
    assert built.stderr.startswith("error: charts/evil.md:")
    assert "Access path missing open bracket" in built.stderr
    assert len(built.stderr.strip().splitlines()) == 1, built.stderr
    for result in (checked, as_json, built):
        assert not RAW.search(result.stdout + result.stderr), result.stdout + result.stderr


def test_one_line_takes_out_what_a_terminal_acts_on() -> None:
    said = "Error:\n\x1b]0;title\x07\x1b]52;c;eA==\x1b\\ \x1b[31mred\x1b[0m \x9b2J\u202eevil\r\x00"
    assert one_line(said) == "Error: red evil"
    assert one_line("x" * 1000, 10) == "x" * 9 + "…"


# Route 9: no orphans.

QUERYING = """\
---
title: Slow
row: 1
description: A query that counts for a while.
query: |
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000000)
  SELECT count(*) AS value FROM n
---
"""
PHASES = {
    "querying": (
        {"indicators/slow.md": QUERYING},
        "\n[limits]\nquery_seconds = 10\n",
        lambda pid: not _holds(pid, "vl_convert"),
    ),
    "drawing": (
        {"charts/slow.md": _calculated("length(sequence(0, 2e8))")},
        "",
        lambda pid: _holds(pid, "vl_convert"),
    ),
    "typesetting": (
        {"papers/long.md": paper("".join(f"Said.^[Note {i}.]\n\n" for i in range(3_900)))},
        "",
        lambda pid: _holds(pid, "typst"),
    ),
}


@pytest.mark.parametrize("phase", PHASES)
def test_a_killed_build_leaves_no_process_and_no_folder_that_lasts(box, phase) -> None:
    files, limits, child = PHASES[phase]
    hostile = box(files, SETTINGS + limits)
    build = subprocess.Popen(
        hostile.command("build"),
        cwd=hostile.record,
        env=hostile.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        children = _waited(lambda: [p for p in _marked(hostile.mark) if p != build.pid], child)
        assert children, f"no child seen {phase}"
    finally:
        build.send_signal(signal.SIGKILL)  # the build's process alone, not its group
        build.wait()
    assert _gone(hostile.mark), "a child of the killed build runs on"
    place = hostile.scratch / f"sourcebook-{os.getuid()}"
    left = list(place.glob("paper-*")) if place.is_dir() else []
    assert bool(left) == (phase == "typesetting")
    for name in files:
        (hostile.record / name).unlink()
    hostile.write("papers/short.md", paper("A short paper, typeset at once."))
    hostile.before = hostile.snapshot()
    assert hostile.sourcebook("build").returncode == 0
    assert list(place.iterdir()) == []  # the next run that typesets swept it


def _waited(found: Callable[[], list[int]], wanted: Callable[[int], bool]) -> list[int]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        matching = [pid for pid in found() if wanted(pid)]
        if matching:
            return matching
        time.sleep(0.05)
    return []


def _gone(mark: str) -> bool:
    deadline = time.monotonic() + 20
    while _marked(mark):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_program_whose_parent_ended_before_it_asked_ends_at_once(tmp_path) -> None:
    """The parent may be killed after it starts a program and before the program asks to
    die with it (a killed parent is a zombie until reaped, and a signal still finds it):
    the program, whose parent is then another, ends and never becomes what it was to be."""
    ran = tmp_path / "ran"
    command = orphanless(["/bin/mkdir", str(ran)])
    command[command.index(str(os.getpid()))] = "1"  # a parent that is not its parent
    assert subprocess.run(command, check=False).returncode == 1
    assert not ran.exists()
    assert subprocess.run(orphanless(["/bin/mkdir", str(ran)]), check=False).returncode == 0
    assert ran.is_dir()


def test_a_process_ended_but_not_reaped_is_not_alive() -> None:
    """What a child started in Python asks of its parent (`die_with`): a parent killed, and
    not yet waited for, is not alive."""
    child = subprocess.Popen(["/bin/true"])
    try:
        assert _waited(lambda: [child.pid], lambda pid: _state(pid) == "Z")
        assert not alive(child.pid)
    finally:
        child.wait()
    assert not alive(child.pid)
    assert alive(os.getpid())


def _state(pid: int) -> str:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat[stat.rfind(")") + 2 :][:1]


def test_a_program_started_orphanless_dies_with_its_parent(tmp_path) -> None:
    """As Pagefind is started: a program that is not Python dies with the build too."""
    mark = f"sourcebook-test-{uuid.uuid4().hex}"
    starter = (
        "import subprocess, sys, time\n"
        "from sourcebook.children import orphanless\n"
        "subprocess.Popen(orphanless(['/bin/sleep', '300']))\n"
        "time.sleep(300)\n"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", starter], env={**os.environ, "SOURCEBOOK_TEST_MARK": mark}
    )
    try:
        assert _waited(lambda: _marked(mark), lambda pid: pid != parent.pid)
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    assert _gone(mark)
    assert orphanless(["x"])[-1] == "x"


class Serving:
    """`sourcebook serve` of a box's record, its output read as it comes."""

    def __init__(self, hostile: Box, port: int):
        self.hostile = hostile
        self.port = port
        self.process = subprocess.Popen(
            [*hostile.command("serve")[:-1], str(hostile.record), "-p", str(port), "--no-notify"],
            env=hostile.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            preexec_fn=_limited(MEMORY),
        )
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        assert self.said("Serving"), "".join(self.lines)

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)

    def said(self, words: str, seconds: float = 120) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if any(words in line for line in self.lines):
                return True
            time.sleep(0.05)
        return False

    def page(self) -> str:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/vol1/") as answer:
                return str(answer.read().decode())
        except urllib.error.HTTPError as refused:
            return str(refused.read().decode())

    def stop(self, how: int = signal.SIGINT) -> None:
        self.process.send_signal(how)
        self.process.wait(timeout=60)
        self.reader.join(timeout=60)
        assert self.process.stdout is not None
        self.process.stdout.close()


def _port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_killed_serve_leaves_its_site_for_the_next_run_to_sweep(box) -> None:
    hostile = box()
    place = hostile.scratch / f"sourcebook-{os.getuid()}"
    serving = Serving(hostile, _port())
    assert [p.name[:6] for p in place.iterdir()] == ["serve-"]
    serving.stop(signal.SIGKILL)
    assert _gone(hostile.mark)
    left = list(place.iterdir())
    assert len(left) == 1 and (left[0] / "site").is_dir()
    again = Serving(hostile, _port())
    assert [p for p in place.iterdir() if p in left] == []
    again.stop()
    assert list(place.iterdir()) == []


def test_a_record_deleted_while_serving_is_one_line(box) -> None:
    hostile = box()
    serving = Serving(hostile, _port())
    for count in range(60):  # an edit rebuilds once the watching has begun
        hostile.write("terms/other.md", term(f"Other {count}"))
        if serving.said("Built version 2", seconds=2):
            break
    shutil.rmtree(hostile.record)
    try:
        assert serving.said("The build failed"), "".join(serving.lines)
        said = [line for line in serving.lines if "The build failed" in line]
        assert said == [f"The build failed; the pages show why: {hostile.record}: no such folder\n"]
        page = serving.page()
        assert f"<pre>{hostile.record}: no such folder</pre>" in page
        assert "Traceback" not in "".join(serving.lines) + page
    finally:
        serving.stop()
