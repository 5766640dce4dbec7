"""One line for every bad value: what check lets pass, build publishes.

Each case writes one bad value into `sourcebook init`'s record (with one entity of every
kind added), then runs `sourcebook check` and `sourcebook build` as processes of their
own: both must fail on one line at the record's file and line, with the same code, never
with a traceback or an error that names one of sourcebook's own templates; nothing
outside the site may change in the folder around the record. Then a fuzz of each kind's
front matter holds the same of values nobody listed.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import BUNDLED
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

MEMORY = 2 * 1024**3
LINE = re.compile(r"^[^\s:][^:]*:\d+:\d+: (error|warning) [A-Z]\d{3} \S.*$")
OUTPUTS = ("box/site", "box/.site.", "box/record/.sourcebook-cache")
"""What a run may change in the folder around the record: the site, what build keeps beside
it, and the record's state folder."""

CAMPUS = """\
---
title: Alpha
location: Memphis, Tennessee
country: US
status: operating
parties:
  - party: commonmark
    roles: [owner]
figures:
  - id: alpha-power
    metric: it-power
    value: 150
    unit: MW
    status: operating
    as_of: 2024-07
    grade: reported
    source: commonmark-spec
  - id: alpha-chips
    metric: chips
    value: 1000
    unit: chips
    status: operating
    as_of: 2024-07
    grade: estimated
    method: its power over the power of a chip
    inputs: [alpha-power]
---
A campus.
"""
INDICATOR = """\
---
title: Largest
row: 1
description: The largest campus by power.
query: |
  SELECT base_value AS value, 'W' AS unit, id AS figure FROM figures
  ORDER BY base_value DESC LIMIT 1
---
"""
TEST = """\
---
title: Big
claim: Alpha runs 100 MW.
deadline: 2030-01-01
rule: Holds if a figure is over 100 MW.
chapter: chapter-1
query: |
  SELECT MAX(base_value) > 1e8 AS holds, 'a figure says so' AS why FROM figures
---
"""
CORRECTION = """\
---
title: A slip
scope: source
date: 2024-02-01
source: commonmark-spec
wrong: It said one thing.
right: It is another.
---
"""
SCENARIO = """\
---
title: Alpha's futures
campus: alpha
start: 2026
end: 2030
power_per_chip: kw
cost_per_power: cost
parameters:
  - id: kw
    title: Power per chip
    value: 1
    unit: kW/H100e
    source: commonmark-spec
  - id: cost
    title: Cost
    value: 29
    unit: billion USD/GW
    source: commonmark-spec
  - id: revenue
    title: Revenue
    value: 12
    unit: billion USD/GW/year
    source: commonmark-spec
  - id: ramp
    title: Two gigawatts
    value: 2
    unit: GW
    year: 2028
    source: commonmark-spec
futures:
  - id: one
    title: One
    ramp: [ramp]
    revenue: revenue
---
"""
CHART = """\
---
title: Power
description: The power of each campus.
query: |
  SELECT campus, base_value AS power FROM figures WHERE metric = 'it-power'
spec:
  mark: bar
  encoding:
    x: {field: campus, type: nominal}
    y: {field: power, type: quantitative}
---
"""
PAPER = """\
---
title: The paper
date: 2024-03-01
summary: What it finds.
---
# A heading

Text citing [@commonmark-spec].
"""
EVERY_KIND = {
    "campuses/alpha.md": CAMPUS,
    "indicators/largest.md": INDICATOR,
    "tests/big.md": TEST,
    "corrections/slip.md": CORRECTION,
    "scenarios/alpha-futures.md": SCENARIO,
    "charts/power.md": CHART,
    "papers/paper.md": PAPER,
}


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_DATA, (MEMORY, MEMORY))


def sourcebook(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sourcebook", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        preexec_fn=_limited,
    )


@pytest.fixture(scope="module")
def initialised(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`sourcebook init`'s record with one entity of every kind, made once."""
    root = tmp_path_factory.mktemp("init") / "record"
    made = sourcebook("init", str(root))
    assert made.returncode == 0, made.stderr
    for name, text in EVERY_KIND.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    checked = sourcebook("check", str(root))
    assert checked.returncode == 0, checked.stdout
    return root


class Box:
    """A copy of the record at tmp/box/record, built to tmp/box/site."""

    def __init__(self, tmp: Path, record: Path):
        self.tmp = tmp
        self.record = tmp / "box" / "record"
        self.site = tmp / "box" / "site"
        shutil.copytree(record, self.record, ignore=shutil.ignore_patterns(".sourcebook-cache"))

    def edit(self, name: str, change: Callable[[str], str]) -> None:
        path = self.record / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(change(path.read_text(encoding="utf-8") if path.exists() else ""))

    def write(self, name: str, text: str) -> None:
        self.edit(name, lambda _old: text)

    def snapshot(self) -> dict[str, tuple[int, int]]:
        found = {}
        for folder, dirs, files in os.walk(self.tmp):
            for name in dirs + files:
                path = Path(folder, name)
                relative = path.relative_to(self.tmp).as_posix()
                if not relative.startswith(OUTPUTS):
                    stat = path.lstat()
                    found[relative] = (0, 0) if name in dirs else (stat.st_size, stat.st_mtime_ns)
        return found

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        """`sourcebook ARGS .` in the record (with `-o SITE` for build): no traceback, no
        error blaming sourcebook's own templates, nothing changed around the record."""
        before = self.snapshot()
        target = ["."] + (["-o", str(self.site)] if args[0] == "build" else [])
        result = sourcebook(*args, *target, cwd=self.record)
        output = result.stdout + result.stderr
        assert "Traceback" not in output, output
        assert "sourcebook/templates" not in output, output
        assert self.snapshot() == before, "a file outside the site changed"
        return result

    def refused(self, code: str, where: str) -> list[str]:
        """check, then build: each fails with `code` on one line at `where` (file:line)."""
        found: list[str] = []
        for command in ("check", "build"):
            result = self.run(command)
            assert result.returncode == 1, result.stdout + result.stderr
            lines = [line for line in result.stdout.splitlines() if f" {code} " in line]
            assert lines, result.stdout + result.stderr
            assert all(LINE.match(line) for line in lines), lines
            assert any(line.startswith(where) for line in lines), lines
            found = lines
        assert not self.site.exists() or not any(self.site.rglob("*.html"))
        return found

    def built(self) -> None:
        """check, then build: both pass."""
        for command in ("check", "build"):
            result = self.run(command)
            assert result.returncode == 0, result.stdout + result.stderr
        assert (self.site / "index.html").is_file()


@pytest.fixture
def box(tmp_path: Path, initialised: Path) -> Box:
    return Box(tmp_path, initialised)


def line_of(box: Box, name: str, needle: str) -> str:
    """`name:LINE:` of the first line of the file holding `needle`."""
    lines = (box.record / name).read_text(encoding="utf-8").splitlines()
    return f"{name}:{next(n for n, text in enumerate(lines, 1) if needle in text)}:"


def replacing(old: str, new: str) -> Callable[[str], str]:
    def change(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, 1)

    return change


# -- sourcebook.toml ----------------------------------------------------------------------


def test_an_integer_of_thousands_of_digits_in_the_settings_is_one_line(box: Box) -> None:
    box.edit("sourcebook.toml", lambda t: t + "\n[limits]\nquery_seconds = " + "9" * 5000 + "\n")
    box.refused("R001", line_of(box, "sourcebook.toml", "9999"))


@pytest.mark.parametrize(
    "base_path", ["/" + "a" * 300, "/a" * 3000], ids=["a long segment", "many segments"]
)
def test_a_base_path_no_file_system_takes_is_refused(box: Box, base_path: str) -> None:
    box.edit("sourcebook.toml", replacing('base_path = ""', f'base_path = "{base_path}"'))
    box.refused("S003", line_of(box, "sourcebook.toml", "base_path"))


# -- ids, keys and paths past what a file system takes ------------------------------------


def test_an_id_too_long_for_a_file_name_is_refused(box: Box) -> None:
    name = "terms/" + "a" * 251 + ".md"
    box.write(name, "---\ntitle: Long\ndefinition: A long one.\nchapters: [chapter-1]\n---\n")
    assert any(
        "characters long; an id has at most 200" in line for line in box.refused("S005", name)
    )


def test_an_imported_key_too_long_for_an_id_is_refused(box: Box) -> None:
    items = [
        {"id": "k" * 260, "type": "report", "title": "A report", "issued": {"date-parts": [[2025]]}}
    ]
    (box.tmp / "box" / "items.json").write_text(json.dumps(items), encoding="utf-8")
    before = box.snapshot()
    result = sourcebook("import", str(box.tmp / "box" / "items.json"), str(box.record))
    assert result.returncode == 1
    errors = result.stderr.splitlines()
    assert len(errors) == 1 and "makes an id of 260 characters; an id has at most 200" in errors[0]
    assert "Traceback" not in result.stdout + result.stderr
    assert box.snapshot() == before


def _with_release(box: Box) -> Path:
    shutil.copytree(BUNDLED / "releases" / "2026-11-08", box.record / "releases" / "2026-11-08")
    return box.record / "releases" / "2026-11-08" / "release.json"


MANIFEST = "releases/2026-11-08/release.json"


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("path", "a" * 5000, "is longer than the 1,000 bytes"),
        ("path", "csv/" + "b" * 300 + ".csv", "has a name longer than the 200 bytes"),
        ("bytes", "abc", "input should be a valid integer"),
        ("bytes", 10**400, "less than or equal to 9223372036854775807"),
        ("bytes", -1, "greater than or equal to 0"),
    ],
    ids=["path of 5,000", "name of 300", "bytes abc", "bytes 10**400", "bytes -1"],
)
def test_a_release_manifest_value_the_site_cannot_show_is_refused(
    box: Box, field: str, value: Any, said: str
) -> None:
    manifest = _with_release(box)
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data["files"][3][field] = value
    sys.set_int_max_str_digits(0)
    try:
        manifest.write_text(json.dumps(data, indent=2), encoding="utf-8")
    finally:
        sys.set_int_max_str_digits(4300)
    lines = manifest.read_text(encoding="utf-8").splitlines()
    at = next(
        n for n, text in enumerate(lines, 1) if f'"{field}": ' + json.dumps(value)[:20] in text
    )
    found = box.refused("R013", f"{MANIFEST}:{at}:")
    assert any(said in line for line in found), found


def test_a_manifest_day_that_is_no_day_is_refused(box: Box) -> None:
    manifest = _with_release(box)
    manifest.write_text(
        manifest.read_text().replace('"date": "2026-11-08"', '"date": "2026-02-31"')
    )
    box.refused("R013", line_of(box, MANIFEST, '"date"'))


# -- figures and scenarios ----------------------------------------------------------------


def test_a_circle_of_estimates_is_an_error(box: Box) -> None:
    box.edit(
        "campuses/alpha.md",
        replacing(
            "    grade: reported\n    source: commonmark-spec\n",
            "    grade: estimated\n    method: from the chips\n    inputs: [alpha-chips]\n",
        ),
    )
    found = box.refused("F018", line_of(box, "campuses/alpha.md", "inputs: [alpha-power]"))
    assert any("alpha-power → alpha-chips → alpha-power" in line for line in found), found


@pytest.mark.parametrize("value", [".inf", "-.inf", ".nan"])
def test_a_figure_that_is_not_a_finite_number_is_refused(box: Box, value: str) -> None:
    box.edit("campuses/alpha.md", replacing("value: 150\n", f"value: {value}\n"))
    box.refused("S003", line_of(box, "campuses/alpha.md", f"value: {value}"))


def test_a_figure_past_what_is_computed_with_is_refused(box: Box) -> None:
    box.edit(
        "campuses/alpha.md", replacing("value: 150\n    unit: MW", "value: 1.0e+99\n    unit: GW")
    )
    box.refused("F019", line_of(box, "campuses/alpha.md", "value: 1.0e+99"))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("value: 1\n    unit: kW/H100e", "value: 0\n    unit: kW/H100e"),
        ("value: 1\n    unit: kW/H100e", "value: 1.0e-310\n    unit: kW/H100e"),
        ("value: 2\n    unit: GW", "value: 1.0e+95\n    unit: GW"),
    ],
    ids=["no power per chip", "a chip's power near none", "a ramp past 1e100 W"],
)
def test_a_scenario_that_cannot_be_computed_is_refused(box: Box, old: str, new: str) -> None:
    box.edit("scenarios/alpha-futures.md", replacing(old, new))
    box.refused("F019", "scenarios/alpha-futures.md:")


@pytest.mark.parametrize(
    ("name", "old", "new"),
    [
        ("chapters/chapter-1.md", "number: 1", "number: 100000000000000000000000000000"),
        ("indicators/largest.md", "row: 1", "row: 9223372036854775808"),
        ("charts/power.md", "title: Power", "title: Power\norder: -9223372036854775809"),
        ("scenarios/alpha-futures.md", "year: 2028", "year: 100000000000000000000"),
    ],
    ids=["chapter number", "indicator row", "chart order", "parameter year"],
)
def test_an_integer_past_64_bits_is_refused(box: Box, name: str, old: str, new: str) -> None:
    box.edit(name, replacing(old, new))
    box.refused("S003", line_of(box, name, new.splitlines()[-1]))


@pytest.mark.parametrize("value", [".inf", "100000000000000000000000000000"])
def test_a_chart_spec_number_json_does_not_carry_is_refused(box: Box, value: str) -> None:
    box.edit("charts/power.md", replacing("  mark: bar\n", f"  mark: bar\n  width: {value}\n"))
    box.refused("S003", line_of(box, "charts/power.md", f"width: {value}"))


@pytest.mark.parametrize(
    ("name", "field", "day"),
    [
        ("sources/commonmark-spec.md", "date", "2024-02-31"),
        ("campuses/alpha.md", "as_of", "2023-02-29"),
        ("tests/big.md", "deadline", "0000"),
        ("papers/paper.md", "date", "9999-12"),
    ],
)
def test_a_day_that_is_not_in_the_calendar_is_refused(
    box: Box, name: str, field: str, day: str
) -> None:
    box.edit(
        name,
        lambda text: re.sub(rf"(?m)^(\s*){field}: .*$", rf"\g<1>{field}: '{day}'", text, count=1),
    )
    box.refused("S003", line_of(box, name, f"{field}: '{day}'"))


# -- what the record's queries return -----------------------------------------------------


@pytest.mark.parametrize(
    ("name", "query"),
    [
        ("indicators/largest.md", "SELECT 1e999 AS value, 'W' AS unit"),
        ("indicators/largest.md", "SELECT -1e999 AS value"),
        ("indicators/largest.md", "SELECT x'00ff' AS value"),
        ("indicators/largest.md", "SELECT 1 AS value, x'00' AS unit"),
        ("indicators/largest.md", "SELECT 1 AS value, 7 AS unit"),
        ("indicators/largest.md", "SELECT 1 AS value, x'00' AS note"),
        ("indicators/largest.md", "SELECT 1 AS value, x'00' AS campus"),
        ("tests/big.md", "SELECT 1 AS holds, x'ff00' AS why"),
        ("charts/power.md", "SELECT x'00ff' AS campus, 1 AS power"),
        ("charts/power.md", "SELECT 'a' AS campus, 1e999 AS power"),
    ],
    ids=[
        "an infinite value",
        "a negative infinite value",
        "a blob for a value",
        "a blob for a unit",
        "a number for a unit",
        "a blob for a note",
        "a blob for a campus",
        "a blob for a test's why",
        "a blob in a chart's rows",
        "an infinite number in a chart's rows",
    ],
)
def test_a_query_value_a_page_cannot_show_fails_check(box: Box, name: str, query: str) -> None:
    box.edit(name, lambda text: re.sub(r"(?ms)^query: \|\n.*?(?=^\S)", f"query: {query}\n", text))
    box.refused("X004", line_of(box, name, "query:"))


def test_a_value_in_only_one_month_of_history_leaves_that_month_out(box: Box) -> None:
    """check runs a query as of the record's close, build again for each month of history:
    a month whose value no page can show is left out of the history, not a failed build."""
    query = (
        "SELECT CASE WHEN (SELECT day FROM record_day) < '2024-08-01' THEN 1e999 ELSE 1 END"
        " AS value, 'W' AS unit"
    )
    box.edit(
        "indicators/largest.md",
        lambda t: re.sub(r"(?ms)^query: \|\n.*?(?=^\S)", f'query: "{query}"\n', t),
    )
    box.built()


# -- text a typesetter refuses ------------------------------------------------------------


def test_control_characters_in_the_papers_summary_are_typeset_without_them(box: Box) -> None:
    box.edit(
        "papers/paper.md", replacing("summary: What it finds.", 'summary: "What \\x1f it finds."')
    )
    box.built()


# -- a fuzz of every kind's front matter --------------------------------------------------

SPECIAL = [
    "",
    "0000",
    "2024-02-31",
    "9999-12",
    "a" * 300,
    "\x1f",
    "x\x00y",
    "\ufffe",
    "\u202e",
    "[[",
    "[@",
    "“",
    "commonmark-spec",
    "alpha",
    "alpha-power",
    "kW/H100e",
    "GW",
    "operating",
    "estimated",
    "javascript:alert(1)",
]
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, -1, 2**63 - 1, 2**63, -(2**63) - 1, 1900, 2201]),
    st.floats(),
    st.sampled_from([1e308, -1e308, 1e-320, 1e100, 1e101]),
    st.text(max_size=20),
    st.sampled_from(SPECIAL),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=5,
)
FILES = [
    *sorted(EVERY_KIND),
    "terms/record.md",
    "chapters/chapter-1.md",
    "sources/commonmark-spec.md",
    "people/john-macfarlane.md",
    "parties/commonmark.md",
]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _paths(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _paths(inner, (*path, index))


def _mutated(text: str, pick: int, value: Any) -> str:
    """The file with one value of its front matter (not inside a chart's spec, whose
    drawing only the engine judges) replaced by `value`."""
    _, front, body = text.split("---\n", 2)
    data = yaml.safe_load(front)
    paths = [p for p in _paths(data) if p and not (p[0] == "spec" and len(p) > 1)]
    path = paths[pick % len(paths)]
    holder = data
    for part in path[:-1]:
        holder = holder[part]
    holder[path[-1]] = value
    return "---\n" + yaml.safe_dump(data, allow_unicode=True, sort_keys=False) + "---\n" + body


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory, initialised: Path) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@settings(
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(name=st.sampled_from(FILES), pick=st.integers(min_value=0, max_value=200), value=VALUES)
@example(name="charts/power.md", pick=0, value="\x08")
@example(name="papers/paper.md", pick=2, value="\x1fH")
@example(name="campuses/alpha.md", pick=13, value=float("inf"))
@example(name="scenarios/alpha-futures.md", pick=10, value=0)
def test_what_check_passes_build_publishes(
    initialised: Path, fuzzed: Path, name: str, pick: int, value: Any
) -> None:
    """Any one value of any kind's front matter: check's verdict holds for build (it passes
    where check finds no error, it fails where check does), neither raises, and every
    diagnostic is at a file of the record."""
    from sourcebook import pipeline
    from sourcebook.incremental import Memos
    from sourcebook.publish.site import BuildError

    root, site = fuzzed / "record", fuzzed / "site"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(initialised, root, ignore=shutil.ignore_patterns(".sourcebook-cache"))
    path = root / name
    path.write_text(_mutated(path.read_text(encoding="utf-8"), pick, value), encoding="utf-8")
    checked = pipeline.check(root, kept=Memos.in_memory())
    assert all(str(d.pos.file).startswith(str(root)) for d in checked.diagnostics)
    try:
        built = pipeline.build(root, site, search=False, kept=Memos.in_memory())
    except BuildError as exc:
        raise AssertionError(f"check passed ({checked.diagnostics.errors}), build: {exc}") from None
    assert (built.site is None) == bool(checked.diagnostics.errors), checked.diagnostics.errors
