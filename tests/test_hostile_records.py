"""Records from anyone: each route by which a record once escaped, ran code or ran away,
tried through the CLI as CI runs it.

Every case runs `sourcebook` as a process of its own under a memory limit, in a folder the
test made, and asserts a one-line diagnostic (or a one-line error), no traceback, a
bounded time, and that nothing was written outside the site: the whole folder around the
record is compared before and after. The routes served by `library add` and `serve` have
cases of their own in the library and serve tests.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import BUNDLED, CHAPTER, SETTINGS, term
from selectolax.lexbor import LexborHTMLParser as HTMLParser

from sourcebook.publish.site.pages.render import TEMPLATES

MEMORY = 2 * 1024**3
"""The memory each run may use: the bombs below once took several GB. It limits the data
a process writes (RLIMIT_DATA), not its address space: the chart renderer's JavaScript
engine reserves gigabytes of address space it never uses."""
CPU_SECONDS = 30
"""The processor time each run may take, its children's included: what a hostile input
costs, counted as work, not raced against a clock that a loaded machine slows. (The
bombs below once took minutes; a run of the bundled record takes a few seconds.)"""
STOP_SECONDS = 300
"""Where a run that never ends is stopped: far past any budget, a safety net only."""
LINE = re.compile(r"^[^\s:][^:]*:\d+:\d+: (error|warning) [A-Z]\d{3} \S.*$")

# The folder around the record is compared before and after; only these may change.
OUTPUTS = ("box/site", "box/.site.spare", "box/record/.sourcebook-cache")


def _children_cpu() -> float:
    """Processor time, user and system, of every child this process has waited for."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _limited(memory: int = MEMORY):
    return lambda: resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))


class Box:
    """A record at tmp/box/record whose site is built to tmp/box/site."""

    def __init__(self, tmp: Path, files: dict[str, str | bytes], settings: str = SETTINGS):
        self.tmp = tmp
        self.record = tmp / "box" / "record"
        self.site = tmp / "box" / "site"
        files = {"chapters/chapter-1.md": CHAPTER, "terms/cluster.md": term("Cluster"), **files}
        self.write("sourcebook.toml", settings)
        for name, content in files.items():
            self.write(name, content)
        self.before = self.snapshot()

    def write(self, name: str, content: str | bytes) -> Path:
        path = self.record / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content), encoding="utf-8")
        return path

    def link(self, name: str, target: str | Path) -> None:
        path = self.record / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(target)
        self.before = self.snapshot()

    def snapshot(self) -> dict[str, tuple[int, int]]:
        found = {}
        for folder, dirs, files in os.walk(self.tmp):
            for name in dirs + files:
                path = Path(folder, name)
                relative = path.relative_to(self.tmp).as_posix()
                if not relative.startswith(OUTPUTS):
                    stat = path.lstat()  # a folder's own time changes as outputs appear in it
                    found[relative] = (0, 0) if name in dirs else (stat.st_size, stat.st_mtime_ns)
        return found

    def sourcebook(self, *args: str, memory: int = MEMORY) -> subprocess.CompletedProcess[str]:
        """`sourcebook ARGS RECORD` (with `-o SITE` for build), bounded in time and memory."""
        target = ["."] + (["-o", str(self.site)] if args[0] == "build" else [])
        before = _children_cpu()
        result = subprocess.run(
            [sys.executable, "-m", "sourcebook", *args, *target],
            capture_output=True,
            text=True,
            timeout=STOP_SECONDS,
            cwd=self.record,
            preexec_fn=_limited(memory),
        )
        self.cpu = _children_cpu() - before
        output = result.stdout + result.stderr
        assert self.cpu < CPU_SECONDS, f"took {self.cpu:.1f} s of processor time:\n{output}"
        assert "Traceback" not in output, output
        assert self.snapshot() == self.before, "a file outside the site changed"
        return result

    def refused(self, command: str, code: str, where: str) -> str:
        """Run `command`; it must fail with `code` at `where` (a file, or file:line)."""
        result = self.sourcebook(command)
        assert result.returncode == 1, result.stdout + result.stderr
        lines = [line for line in result.stdout.splitlines() if f" {code} " in line]
        assert lines, result.stdout + result.stderr
        assert all(LINE.match(line) for line in lines), lines
        assert any(line.startswith(where) for line in lines), lines
        if command == "build":
            assert not self.site.exists() or not any(self.site.rglob("*.html"))
        return "\n".join(lines)


@pytest.fixture
def box(tmp_path: Path):
    return lambda files=None, settings=SETTINGS: Box(tmp_path, files or {}, settings)


# 1. Writes outside the site


def test_a_base_path_that_climbs_out_is_refused(box) -> None:
    hostile = box(settings=SETTINGS.replace('"/vol1"', '"/../../x"'))
    hostile.refused("check", "S003", "sourcebook.toml:7:1")
    hostile.refused("build", "S003", "sourcebook.toml:7:1")
    assert not (hostile.tmp / "x").exists()


def _with_release(hostile: Box) -> Path:
    shutil.copytree(BUNDLED / "releases" / "2026-11-08", hostile.record / "releases" / "2026-11-08")
    return hostile.record / "releases" / "2026-11-08" / "release.json"


def test_a_release_that_names_another_version_or_a_file_outside_is_refused(box) -> None:
    hostile = box()
    manifest = _with_release(hostile)
    text = manifest.read_text()
    manifest.write_text(text.replace('"version": "2026-11-08"', '"version": "../../../x"'))
    hostile.before = hostile.snapshot()
    found = hostile.refused("build", "R013", "releases/2026-11-08/release.json:")
    assert "names version '../../../x', but its folder is '2026-11-08'" in found
    manifest.write_text(text.replace('"csv/aliases.csv"', '"../../../../etc/passwd"'))
    hostile.before = hostile.snapshot()
    found = hostile.refused("build", "R013", "releases/2026-11-08/release.json:")
    assert "is not a plain path inside the release" in found
    assert not (hostile.tmp / "x").exists()


# 2. Code execution


def test_a_template_override_cannot_reach_python(box) -> None:
    hostile = box({"templates/term.html": "{{ lipsum.__globals__['os'].popen('touch pwned') }}"})
    result = hostile.sourcebook("build")
    assert result.returncode == 2
    assert "templates/term.html:1: SecurityError" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not list(hostile.tmp.rglob("pwned")) and not Path("pwned").exists()


def test_a_template_error_names_the_templates_file_and_line(box) -> None:
    hostile = box({"templates/term.html": "line one\n{{ entity.title }}\n{{ 1 / 0 }}\n"})
    result = hostile.sourcebook("build")
    assert result.returncode == 2
    assert re.search(
        r"templates/term\.html:3: ZeroDivisionError: .* \(while rendering /vol1/", result.stderr
    )
    assert len(result.stderr.strip().splitlines()) == 1


def test_scripts_the_record_publishes_are_reported(box) -> None:
    hostile = box({"static/site.js": "alert(1)", "static/x.svg": "<svg onload='alert(1)'/>"})
    result = hostile.sourcebook("check")
    warned = [line for line in result.stdout.splitlines() if " U003 " in line]
    assert [line.split(":")[0] for line in warned] == ["static/site.js", "static/x.svg"]
    assert all(LINE.match(line) for line in warned)


# 3. Symbolic links out of the record


@pytest.mark.parametrize(
    ("name", "target"),
    [
        ("static/passwd.txt", "/etc/passwd"),
        ("terms/root", "/"),
        ("terms/outside.md", "../../outside.md"),
        ("templates/term.html", "/etc/passwd"),
    ],
)
def test_a_symbolic_link_out_of_the_record_is_never_followed(box, name, target) -> None:
    hostile = box()
    (hostile.tmp / "box" / "outside.md").write_text("---\ntitle: Secret\ndefinition: s\n---\n")
    hostile.link(name, target)
    hostile.refused("check", "R010", name)
    hostile.refused("build", "R010", name)


def test_a_library_copy_linked_out_of_the_record_is_never_read(box) -> None:
    """A Library item whose text is a link to /etc/passwd: the item is not read, so no
    quote could be proved from whatever the machine holds there."""
    hostile = box(
        {
            "library/S1.yaml": (
                "kind: text\nsha256: " + "0" * 64 + "\nfile: copy.txt\nmedia_type: text/plain\n"
                "size: 10\ncaptured: '2026-11-08'\nhow: a copy\nby: the maintainers\n"
                "holds: the whole of the original\n"
            )
        }
    )
    hostile.link("library/S1.txt", "/etc/passwd")
    hostile.refused("check", "R010", "library/S1.txt")


def test_a_release_file_linked_out_of_the_record_is_never_read(box) -> None:
    hostile = box()
    _with_release(hostile)
    changelog = hostile.record / "releases" / "2026-11-08" / "CHANGELOG.md"
    changelog.unlink()
    hostile.link("releases/2026-11-08/CHANGELOG.md", "/etc/passwd")
    hostile.refused("check", "R010", "releases/2026-11-08/CHANGELOG.md")


# 4. Unbounded time and memory

ALIAS_BOMB = (
    "---\n"
    "a: &a [x, x, x, x, x, x, x, x, x]\n"
    + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}]\n"
        for i in range(8)
    )
    + "title: Bomb\ndefinition: d\n---\n"
)


def test_a_yaml_alias_bomb_is_refused_at_once(box) -> None:
    assert len(ALIAS_BOMB.encode()) < 1000  # 9**9 values once expanded
    hostile = box({"terms/bomb.md": ALIAS_BOMB})
    message = hostile.refused("check", "R011", "terms/bomb.md:")
    assert "100,000 values" in message


def test_yaml_nested_without_end_is_refused(box) -> None:
    hostile = box({"terms/deep.md": "---\ntitle: " + "[" * 5000 + "]" * 5000 + "\n---\n"})
    hostile.refused("check", "R011", "terms/deep.md:")


def test_a_number_of_thousands_of_digits_is_one_line(box) -> None:
    hostile = box({"terms/big.md": term("Big", extra=f"row: {'9' * 5000}\n")})
    message = hostile.refused("check", "R001", "terms/big.md:5:6")
    assert "more than 4,300 digits" in message


INSTR_BOMB = """\
---
title: Bomb
row: 1
description: One call that never yields to the time limit.
query: |
  SELECT instr(printf('%.*c', 50000000, 'a'), printf('%.*c', 200000, 'a') || 'b') AS value
---
"""


def test_one_long_call_is_stopped_by_the_time_limit(box) -> None:
    hostile = box({"indicators/bomb.md": INSTR_BOMB})
    hostile.refused("check", "X003", "indicators/bomb.md:")


@pytest.mark.parametrize("seconds", ["nan", "inf", "100000", "-1", "0"])
def test_the_query_time_limit_cannot_be_switched_off(box, seconds) -> None:
    hostile = box(settings=SETTINGS + f"\n[limits]\nquery_seconds = {seconds}\n")
    hostile.refused("check", "S003", "sourcebook.toml:")


SLOW = """\
---
title: Slow
row: 99
description: A second or more on every month of the record's history but its last day.
query: |
  WITH RECURSIVE n(i) AS (
    SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < (
      SELECT CASE WHEN value < '{close}' THEN {count} ELSE 1 END FROM meta WHERE key = 'as_of'
    )
  )
  SELECT count(*) AS value FROM n
---
"""


def test_history_months_share_one_query_budget(tmp_path: Path) -> None:
    """A query that passes check runs again for each month of history in build; months
    share the one limit, so the build is bounded by it, not by months times it."""
    record = tmp_path / "box" / "record"
    shutil.copytree(BUNDLED, record, ignore=shutil.ignore_patterns("_site", ".*"))
    hostile = Box.__new__(Box)
    hostile.tmp, hostile.record, hostile.site = tmp_path, record, tmp_path / "box" / "site"
    settings = (record / "sourcebook.toml").read_text()
    assert "[limits]" not in settings  # the limit is the default's
    hostile.write("sourcebook.toml", settings + "\n[limits]\nquery_seconds = 3.0\n")
    hostile.before = hostile.snapshot()
    assert hostile.sourcebook("build", "--no-cache").returncode == 0
    plain = hostile.cpu
    # As the record stands on its last day, where check runs it, the query does nothing, so
    # check passes however slow or busy the machine; each earlier month of the history does
    # a second's work or more (6,000,000 rows), and the months together go past the limit.
    (close,) = re.findall(r"^closes = (\S+)$", settings, re.M)
    hostile.write("indicators/slow.md", SLOW.format(close=close, count=6_000_000))
    hostile.before = hostile.snapshot()
    result = hostile.sourcebook("build", "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr
    # check's run and the history's months share one limit of 3 s of the query's each
    # (in the child that runs the record's queries): a few limits' work, not one a month.
    assert hostile.cpu - plain < 4 * 3.0, (plain, hostile.cpu)
    # its history starts where the limit stopped it, months after the record's first
    scorecard = json.loads((hostile.site / "vol1/api/scorecard.json").read_text())
    starts = {r["id"]: r["computed"]["history"][0]["day"] for r in scorecard["rows"]}
    assert starts["slow"] > starts["campuses-over-1gw"], starts


# 5. javascript: through address fields


HOSTILE_URLS = ["java\\tscript:alert(1)", "\\u0001javascript:alert(1)", "java\\nscript:x"]


@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_address_fields_take_only_what_a_browser_reads_as_a_web_address(box, url) -> None:
    hostile = box(
        {
            "sources/s.md": f'---\ntitle: S\ncategory: press\nurls: ["{url}"]\n---\n',
            "people/p.md": f'---\ntitle: P\nrole: r\nurl: "{url}"\n---\n',
            "parties/q.md": f'---\ntitle: Q\ntype: company\nurl: "{url}"\n---\n',
        }
    )
    result = hostile.sourcebook("check")
    assert result.returncode == 1
    for file in ("sources/s.md", "people/p.md", "parties/q.md"):
        assert re.search(rf"^{file}:\d+:\d+: error S009 ", result.stdout, re.M), result.stdout


@pytest.mark.parametrize("field", ["base_url", "book_url", "notify_url", "series_corrections_url"])
@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_settings_addresses_take_only_web_addresses(box, field, url) -> None:
    hostile = box(settings=SETTINGS + f'{field} = "{url}"\n')
    hostile.refused("check", "S003", "sourcebook.toml:8:1")


# 6. One line, whatever the bytes


def test_file_names_of_any_bytes_are_shown_on_one_line(box) -> None:
    hostile = box()
    terms = os.fsencode(hostile.record / "terms")
    for name in (b"\xff\xfe.md", b"bad\nname.md", b"x\x1b[31m.md", b"\xe2\x80\xaeevil.md"):
        with open(os.path.join(terms, name), "wb") as file:
            file.write(b"---\ntitle: X\ndefinition: d\n---\n")
    hostile.before = hostile.snapshot()
    result = hostile.sourcebook("build")
    assert result.returncode == 1
    lines = [line for line in result.stdout.splitlines() if not line.startswith("  hint:")]
    assert all(LINE.match(line) and line.isprintable() for line in lines[:-1]), lines
    shown = "\n".join(lines)
    for escaped in (
        r"terms/\xff\xfe.md",
        r"terms/bad\x0aname.md",
        r"terms/x\x1b[31m.md",
        r"\u202eevil",
    ):
        assert escaped in shown


def test_running_out_of_memory_is_one_line(box) -> None:
    prose = "word [[cluster]] “quoted text” " * 600_000
    hostile = box(
        {"terms/big.md": term("Big", body=prose)},
        settings=SETTINGS + "\n[limits]\nmax_file_bytes = 50000000\n",
    )
    result = hostile.sourcebook("check", memory=500 * 1024**2)
    assert result.returncode == 1
    assert (
        result.stderr
        == "sourcebook: error: the input needs more memory than it may use; nothing was written\n"
    )


# 8. Leftovers of killed runs


def _killed_while(command: list[str], leftover: str, parent: Path) -> None:
    """Run `command`; SIGKILL it once `leftover` (a glob in `parent`) appears."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not list(parent.glob(leftover)):
        assert process.poll() is None, "finished before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.002)
    process.send_signal(signal.SIGKILL)
    process.wait()


def test_a_killed_build_leaves_nothing_that_lasts(tmp_path: Path) -> None:
    record = tmp_path / "record"
    shutil.copytree(BUNDLED, record, ignore=shutil.ignore_patterns("_site", ".*"))
    site = tmp_path / "site"
    build = [sys.executable, "-m", "sourcebook", "build", str(record), "-o", str(site)]
    _killed_while(build, ".site.building-*", tmp_path)
    assert list(tmp_path.glob(".site.building-*"))
    subprocess.run(build, check=True, capture_output=True)
    assert not list(tmp_path.glob(".site.building-*")) and not list(
        tmp_path.glob(".sourcebook-claim-*")
    )
    assert (site / "vol1" / "index.html").is_file()


def test_a_killed_release_leaves_nothing_that_lasts(tmp_path: Path) -> None:
    record = tmp_path / "record"
    shutil.copytree(BUNDLED, record, ignore=shutil.ignore_patterns("_site", ".*"))
    releases = record / "releases"
    release = [sys.executable, "-m", "sourcebook", "release", "2026-11-09", str(record)]
    _killed_while(release, ".2026-11-09.*.partial", releases)
    subprocess.run(release, check=True, capture_output=True)
    assert not [p for p in releases.iterdir() if p.name.startswith(".")]
    assert (releases / "2026-11-09" / "release.json").is_file()


def test_a_running_build_is_not_swept_by_another(tmp_path: Path) -> None:
    from sourcebook.publish.claimed import claimed, sweep

    with claimed(tmp_path, ".site.building-") as running:
        (running / "page.html").write_text("half-written")
        abandoned = tmp_path / ".site.building-dead"
        abandoned.mkdir()
        assert sweep(tmp_path, ".site.building-*") == [abandoned]
        assert (running / "page.html").is_file()


# 9. Smaller


def test_a_limit_below_one_is_refused(box) -> None:
    hostile = box(settings=SETTINGS + "\n[limits]\nmax_file_bytes = -1\n")
    hostile.refused("check", "S003", "sourcebook.toml:")


def test_quote_marks_in_a_link_title_stay_in_the_attribute(box) -> None:
    source = (
        "---\ntitle: A report\ncategory: press\n"
        "annotation: 'See [the report](https://example.com \"“quoted”\") and “quoted”.'\n---\n"
    )
    hostile = box({"sources/report.md": source})
    result = hostile.sourcebook("build")
    assert result.returncode == 0, result.stdout
    sources = hostile.site / "vol1" / "sources"
    page = next(p for p in (sources / "press.html", sources / "press" / "index.html") if p.exists())
    page = page.read_text()
    tree = HTMLParser(page)
    link = tree.css_first('a[href="https://example.com"]')
    assert link.attributes["title"] == "“quoted”"
    assert all("<" not in (value or "") for value in link.attributes.values())


# 10. Templates and releases: what they reach, the files they name, the scripts they add


def _bundled(tmp_path: Path) -> Box:
    """A copy of the bundled record, in a box."""
    hostile = Box(tmp_path, {})
    shutil.rmtree(hostile.record)
    ignored = shutil.ignore_patterns("_site", ".sourcebook-cache")
    shutil.copytree(BUNDLED, hostile.record, ignore=ignored)
    hostile.before = hostile.snapshot()
    return hostile


def _initialised(tmp_path: Path, files: dict[str, str] | None = None) -> Box:
    """The record `sourcebook init` writes, with `files` of an attacker's, in a box."""
    hostile = Box(tmp_path, {})
    shutil.rmtree(hostile.record)
    made = subprocess.run(
        [sys.executable, "-m", "sourcebook", "init", str(hostile.record)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert made.returncode == 0, made.stdout + made.stderr
    for name, content in (files or {}).items():
        hostile.write(name, content)
    hostile.before = hostile.snapshot()
    return hostile


def _slow(hostile: Box, *args: str) -> subprocess.CompletedProcess[str]:
    """`sourcebook ARGS` as `Box.sourcebook` runs it, for the bundled record, whose build
    draws charts and typesets a paper: bounded in memory, not timed."""
    target = ["."] + (["-o", str(hostile.site)] if args[0] == "build" else [])
    result = subprocess.run(
        [sys.executable, "-m", "sourcebook", *args, *target],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=hostile.record,
        preexec_fn=_limited(),
    )
    assert "Traceback" not in result.stdout + result.stderr, result.stdout + result.stderr
    assert hostile.snapshot() == hostile.before, "a file outside the site changed"
    return result


@pytest.mark.parametrize(
    ("expression", "error"),
    [
        ("view.record.root.read_text()", "SecurityError"),
        ("view.record.root.joinpath('pwned.pth').write_text('import os')", "SecurityError"),
        ("entity.parse_file('/etc/passwd')", "SecurityError"),
        ("entity.model_dump()", "SecurityError"),
        ("prose.env.loader.searchpath", "SecurityError"),
        ("view.drawn | attr('kept')", "SecurityError"),
        ("[view] | map(attribute='env') | list", "SecurityError"),
        ("'{0.record.root}'.format(view)", "SecurityError"),
        ("links.urls.site.base_url", "SecurityError"),
        ("structured('__loader__', view)", "KeyError"),
        ("dict.fromkeys('a')", "SecurityError"),
    ],
)
def test_a_record_template_reaches_values_not_python_objects(
    tmp_path: Path, expression: str, error: str
) -> None:
    hostile = _initialised(
        tmp_path, {"templates/term.html": "line one\n{{ " + expression + " }}\n"}
    )
    result = hostile.sourcebook("build")
    assert result.returncode == 2
    assert re.search(rf"templates/term\.html:2: {error}: ", result.stderr), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not list(hostile.tmp.rglob("pwned*"))
    assert not hostile.site.exists() or not any(hostile.site.rglob("*.html"))


@pytest.mark.parametrize("anchor", ["{outside}/figure", "no-such-folder/figure", "../../../x"])
def test_no_value_a_template_writes_becomes_a_file_name(tmp_path: Path, anchor: str) -> None:
    """The paper's figures, set out by a template of the record's with ids that name
    places: the PDF is typeset all the same, its charts named by the typesetter."""
    hostile = _bundled(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    figure = (TEMPLATES / "fragments" / "paper_figure.html").read_text(encoding="utf-8")
    assert 'id="{{ anchor }}"' in figure
    named = figure.replace('id="{{ anchor }}"', f'id="{anchor.format(outside=outside)}"')
    hostile.write("templates/fragments/paper_figure.html", named)
    hostile.before = hostile.snapshot()
    result = _slow(hostile, "build")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (hostile.site / "vol1" / "paper.pdf").read_bytes().startswith(b"%PDF")
    assert not any(outside.iterdir())
    assert not list(tmp_path.rglob("figure.svg")) and not list(tmp_path.rglob("x.svg"))


BASE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{{ book.title }}</title>
ADDED
</head><body>{% block main %}{% endblock %}</body></html>
"""
"""A base.html of the record's own: no content security policy, and a script added."""


@pytest.mark.parametrize(
    ("added", "what"),
    [
        ("<script>window.ran = 1</script>", "adds a script"),
        ('<script src="{{ static }}x.txt"></script>', "adds a script"),
        ('<img src="x" onerror="window.ran = 1">', "adds an event handler"),
        ('<a href="javascript:window.ran = 1">x</a>', "adds a javascript: address"),
        ('<meta http-equiv="Content-Security-Policy" content="script-src *">', "sets a header"),
        ("<{{ 'scr' ~ 'ipt' }}>window.ran = 1</{{ 'script' }}>", "computes"),
    ],
)
def test_a_template_that_adds_a_script_is_warned_of_and_keeps_the_policy(
    tmp_path: Path, added: str, what: str
) -> None:
    files = {"templates/base.html": BASE.replace("ADDED", added), "static/x.txt": "1"}
    hostile = _initialised(tmp_path, files)
    checked = hostile.sourcebook("check")
    warned = [line for line in checked.stdout.splitlines() if " U003 " in line]
    assert any(line.startswith("templates/base.html:4:") and what in line for line in warned)
    assert all(LINE.match(line) for line in warned), warned
    built = hostile.sourcebook("build")
    assert built.returncode == 0, built.stdout + built.stderr
    for page in hostile.site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        policy = html.find('<meta http-equiv="Content-Security-Policy" content="default-src')
        assert 0 < policy < html.find("<title>"), page
    headers = (hostile.site / "_headers").read_text(encoding="utf-8")
    assert "/*\n  Content-Security-Policy: default-src 'self'; script-src 'self'" in headers
    assert "X-Content-Type-Options: nosniff" in headers


def test_a_template_that_writes_a_script_first_still_comes_after_the_policy(
    tmp_path: Path,
) -> None:
    first = "<script>window.ran = 1</script>\n" + BASE.replace("ADDED", "")
    hostile = _initialised(tmp_path, {"templates/base.html": first})
    assert hostile.sourcebook("build").returncode == 0
    html = (hostile.site / "index.html").read_text(encoding="utf-8")
    assert html.startswith('<meta http-equiv="Content-Security-Policy" content="default-src')
    assert html.index("Content-Security-Policy") < html.index("<script>")


def _active_release(hostile: Box) -> Path:
    """The bundled release, with a page and a drawing that run scripts among its files."""
    manifest = _with_release(hostile)
    files = {
        "evil.html": "<script>window.ran = 1</script>",
        "drawings/evil.svg": '<svg xmlns="http://www.w3.org/2000/svg" onload="window.ran=1"/>',
    }
    listed = []
    for name, text in files.items():
        hostile.write(f"releases/2026-11-08/{name}", text)
        digest = hashlib.sha256(text.encode()).hexdigest()
        listed.append(f'{{"path": "{name}", "bytes": {len(text)}, "sha256": "{digest}"}}')
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace('"files": [', '"files": [' + ", ".join(listed) + ", ", 1))
    hostile.before = hostile.snapshot()
    return manifest


def test_a_release_publishes_data_not_pages(tmp_path: Path) -> None:
    hostile = _initialised(tmp_path)
    manifest = _active_release(hostile)
    checked = hostile.sourcebook("check")
    warned = [line for line in checked.stdout.splitlines() if " U003 " in line]
    assert len(warned) == 2 and all(LINE.match(line) for line in warned), checked.stdout
    line = next(n for n, text in enumerate(manifest.read_text().splitlines(), 1) if "evil" in text)
    assert all(w.startswith(f"releases/2026-11-08/release.json:{line}:") for w in warned)
    assert "'evil.html', a file a browser would run" in warned[0]
    built = hostile.sourcebook("build")
    assert built.returncode == 0, built.stdout + built.stderr
    release = hostile.site / "data" / "releases" / "2026-11-08"
    assert (release / "release.json").is_file() and (release / "csv").is_dir()
    assert not (release / "evil.html").exists() and not (release / "drawings").exists()
    data = HTMLParser((hostile.site / "data" / "releases" / "index.html").read_text())
    cells = [cell.text() for cell in data.css("td") if "evil" in cell.text()]
    assert len(cells) == 2 and all("not published" in cell for cell in cells)
    assert not [a for a in data.css("a") if "evil" in (a.attributes.get("href") or "")]
    headers = (hostile.site / "_headers").read_text(encoding="utf-8")
    rule = "/data/releases/2026-11-08/*\n  Content-Security-Policy: default-src 'none'"
    assert rule + "; sandbox\n  Content-Disposition: attachment" in headers


# 11. A record's templates doing more than linear work

NESTED = "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}"
DOUBLED = (
    "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}"
    "{% endfor %}{{ ns.s | length }}"
)
FORKED = (
    "{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(60) }}"
)


@pytest.mark.parametrize(
    ("line", "said"),
    [
        (NESTED, "steps a page may take"),
        (FORKED, "steps a page may take"),
        ("{% for i in range(100000) %}{{ 'x' * 1000000 }}{% endfor %}", "the page would be"),
        ("{{ 'x' * 10 ** 10 }}", "the repeated value would hold"),
        ("{{ [0] * 10 ** 10 }}", "the repeated value would hold"),
        ("{{ 10 ** (10 ** 9) }}", "the power would hold"),
        (DOUBLED, "the joined string would hold"),
        ("{{ '%0999999999d' % 1 }}", "a format may pad to"),
        ("{{ '%0*d' % (999999999, 1) }}", "a format may pad to"),
        ("{{ '%0999999999d' | format(1) }}", "a format may pad to"),
        ("{{ '{:>999999999}'.format(1) }}", "a format may pad to"),
        ("{{ '{:>{}}'.format(1, 999999999) }}", "a format may pad to"),
        ("{{ 'x' | center(999999999) }}", "a format may pad to"),
        ("{{ [1] | batch(999999999, 0) | list }}", "a format may pad to"),
        ("{{ ('x' * 10000000) | replace('', 'yyyyyyyyyy') }}", "the replaced string would"),
        ("{{ [[1]] * 100000 | sum(start=[]) }}", "sum adds numbers only"),
    ],
)
def test_a_record_template_works_within_a_budget_linear_in_the_record(
    tmp_path: Path, line: str, said: str
) -> None:
    """Each once ran for minutes or took gigabytes; each is now refused in one line at the
    template's line, within the box's processor time and memory."""
    hostile = _initialised(tmp_path, {"templates/term.html": "line one\n" + line + "\n"})
    result = hostile.sourcebook("build")
    assert result.returncode == 2, result.stdout + result.stderr
    assert re.search(r"^error: templates/term\.html:2: TemplateBudgetError: ", result.stderr), (
        result.stderr
    )
    assert said in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert not hostile.site.exists() or not any(hostile.site.rglob("*.html"))


def test_a_template_within_its_budget_renders_as_written(tmp_path: Path) -> None:
    """The budget counts work; a template that loops, calls macros and formats within it
    renders what it says."""
    fine = (
        "{% macro twice(s) %}{{ s ~ s }}{% endmacro %}"
        "{% for i in range(3) %}{{ twice(i) }}{% endfor %}|{{ '%05d' % 42 }}|{{ 'ab' * 3 }}|"
        "{{ '{:>6}'.format('x') }}|{{ [1, 2, 3] | sum }}|{{ 'a-b' | replace('-', '+') }}"
    )
    hostile = _initialised(tmp_path, {"templates/term.html": fine})
    result = hostile.sourcebook("build")
    assert result.returncode == 0, result.stdout + result.stderr
    page = next(hostile.site.rglob("glossary/*/index.html")).read_text(encoding="utf-8")
    assert page.endswith("001122|00042|ababab|     x|6|a+b"), page[-200:]


def test_all_the_pages_of_a_build_share_one_budget(tmp_path: Path, monkeypatch) -> None:
    """A page within its own budget, on every one of a record's pages, adds up: the pages of
    a build share a budget linear in the record as well."""
    from sourcebook.pipeline import build
    from sourcebook.publish.site.build import BuildError
    from sourcebook.publish.site.pages import template_budget

    each = "{% for i in range(20000) %}{% endfor %}"
    files = {f"terms/t{i}.md": term(f"T{i}") for i in range(12)}
    hostile = _initialised(tmp_path, {**files, "templates/term.html": each})
    monkeypatch.setattr(template_budget, "STEPS_BASE", 50_000)
    monkeypatch.setattr(template_budget, "BUILD_STEPS_BASE", 100_000)
    monkeypatch.setattr(template_budget, "BUILD_STEPS_PER_ENTITY", 0)
    monkeypatch.setattr(template_budget, "STEPS_PER_ENTITY", 0)
    with pytest.raises(BuildError, match="steps a build's pages may take"):
        build(hostile.record, hostile.site, search=False, jobs=1)
