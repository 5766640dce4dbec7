"""The record as of a day is the record with what was not known by then removed.

For random records — sources dated, undated or stated, campuses whose figures and roles
rest on them, corrections that retire figures — and a random day D, the site built
`--as-of D` is byte for byte the site built from a copy of the record from which every
file, figure, role and correction entry not known by D has been deleted by hand. Deleted
list items leave blank lines, so that what stays keeps its line; every figure has an id of
its own, so that what stays keeps its name.
"""

from __future__ import annotations

import filecmp
import shutil
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from thorough import examples

from sourcebook import derive
from sourcebook.derive.scorecard import history_months
from sourcebook.diagnostics import Diagnostics
from sourcebook.incremental import Memos
from sourcebook.model.known import known
from sourcebook.pipeline import build, check
from sourcebook.read import read_record

CLOSE = date(2026, 11, 8)
FIRST = date(2024, 1, 1)
SETTINGS = """\
[book]
title = "A Small Book"
house = "HOUSE"
closes = 2026-11-08

[site]
base_path = "/vol1"
"""
CHAPTER = "---\ntitle: The Stakes\nnumber: 1\nsummary: What the race is for.\n---\n"
INDICATOR = """\
---
title: Largest evidenced operating site
row: 1
description: The biggest site the evidence shows running.
query: |
  SELECT watts / 1e6 AS value, 'MW' AS unit, figure FROM campus_power
  ORDER BY watts DESC, campus LIMIT 1
---
"""
STATUSES = ["announced", "planned", "under construction", "operating", "projected"]
METRICS = [("it-power", "MW"), ("facility-power", "MW"), ("chips", "chips")]
GRADES = ["documented", "reported", "claimed"]
EVIDENCED = {"    grade: documented", "    grade: reported"}

days = st.integers(0, (CLOSE - FIRST).days).map(lambda n: FIRST + timedelta(days=n))


def partial(day: date, precision: int) -> str:
    """A day, a month or a year, as a record writes them."""
    return day.isoformat()[: (4, 7, 10)[precision]]


@dataclass
class Lines:
    """A file's lines, each item of a list a run of its own, so that it can be blanked."""

    head: list[str] = field(default_factory=list)
    items: list[tuple[str, list[str]]] = field(default_factory=list)
    """(what the item is: `figure:ID`, `role:CAMPUS:N`, `corrects:ID`, its lines)."""
    tail: list[str] = field(default_factory=list)

    def text(self, blanked: set[str]) -> str:
        lines = list(self.head)
        for name, item in self.items:
            lines.extend("" if name in blanked else line for line in item)
        return "\n".join([*lines, *self.tail]) + "\n"


@st.composite
def records(draw: st.DrawFn) -> dict[str, Lines]:
    files: dict[str, Lines] = {}
    sources = [f"s{n}" for n in range(draw(st.integers(1, 4)))]
    for source in sources:
        dated = draw(st.none() | days.map(lambda d: partial(d, draw(st.integers(0, 2)))))
        head = ["---", f"title: Story {source}", "category: press"]
        if dated:
            head.append(f'date: "{dated}"')
        files[f"sources/{source}.md"] = Lines(head, [], ["---"])
    figure_ids: list[str] = []
    for c in range(draw(st.integers(1, 3))):
        campus = f"campus-{c}"
        lines = Lines(["---", f"title: Campus {c}", "location: Somewhere", "country: US"])
        lines.head.append("status: operating")
        roles = draw(st.lists(st.sampled_from(["p0", "p1"]), max_size=2, unique=True))
        if roles:
            lines.items.append(("parties-head", ["parties:"]))
        for n, party in enumerate(roles):
            role = [f"  - party: {party}", "    roles: [owner]"]
            if draw(st.booleans()):
                role.append(f"    source: {draw(st.sampled_from(sources))}")
            lines.items.append((f"role:{campus}:{n}", role))
        count = draw(st.integers(0, 4))
        if count:
            lines.items.append(("figures-head", ["figures:"]))
        for n in range(count):
            figure = f"{campus}-f{n}"
            metric, unit = draw(st.sampled_from(METRICS))
            as_of = partial(draw(days), draw(st.integers(0, 2)))
            item = [
                f"  - id: {figure}",
                f"    metric: {metric}",
                f"    value: {draw(st.integers(1, 900))}",
                f"    unit: {unit}",
                f"    status: {draw(st.sampled_from(STATUSES))}",
                f'    as_of: "{as_of}"',
                f"    grade: {draw(st.sampled_from(GRADES))}",
            ]
            if item[-1] in EVIDENCED or draw(st.booleans()):  # evidence names its source
                item.append(f"    source: {draw(st.sampled_from(sources))}")
            if draw(st.booleans()):
                item.append(f'    stated: "{partial(draw(days), 2)}"')
            lines.items.append((f"figure:{figure}", item))
            figure_ids.append(figure)
        lines.tail = ["---", f"Campus {c} is one of the sites; Campus {(c + 1) % 3} is another."]
        files[f"campuses/{campus}.md"] = lines
    for party in ("p0", "p1"):
        files[f"parties/{party}.md"] = Lines(["---", f"title: Party {party}", "type: company"])
        files[f"parties/{party}.md"].tail = ["---"]
    for n in range(draw(st.integers(0, 2)) if figure_ids else 0):
        corrected = draw(st.lists(st.sampled_from(figure_ids), min_size=1, max_size=2, unique=True))
        lines = Lines(
            [
                "---",
                f"title: Correction {n}",
                "scope: source",
                f'date: "{draw(days).isoformat()}"',
                "wrong: What was said.",
                "right: What is so.",
            ]
        )
        if corrected:
            lines.items.append(("corrects-head", ["corrects:"]))
        lines.items.extend((f"corrects:{f}", [f"  - {f}"]) for f in corrected)
        lines.tail = ["---"]
        files[f"corrections/c{n}.md"] = lines
    return files


def write(root: Path, files: dict[str, Lines], blanked: dict[str, set[str]]) -> None:
    root.mkdir(parents=True)
    (root / "sourcebook.toml").write_text(SETTINGS, encoding="utf-8")
    for name, text in {"chapters/chapter-1.md": CHAPTER, "indicators/i.md": INDICATOR}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    for name, lines in files.items():
        if "*" in blanked.get(name, set()):
            continue
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(lines.text(blanked.get(name, set())), encoding="utf-8")


def unknown_by(root: Path, day: date, files: dict[str, Lines]) -> dict[str, set[str]]:
    """Per file, the items to blank so that nothing not known by `day` is left, as the
    record's own clock dates them; None for a file to delete whole."""
    record = read_record(root, Diagnostics())
    assert record is not None
    clock = known(record)
    late = {f"figure:{f}" for f, d in clock.figures.items() if d > day}
    late |= {f"corrects:{f}" for f, d in clock.figures.items() if d > day}
    late |= {f"role:{c}:{n}" for (c, n), d in clock.roles.items() if d > day}
    gone = {
        f"{FOLDERS[kind]}/{entity_id}.md"
        for (kind, entity_id), d in clock.entities.items()
        if d > day
    }
    blanked: dict[str, set[str]] = {}
    for name, lines in files.items():
        if name in gone:
            blanked[name] = {"*"}
            continue
        names = {n for n, _ in lines.items if n in late}
        for head, prefix in (
            ("figures-head", "figure:"),
            ("corrects-head", "corrects:"),
            ("parties-head", "role:"),
        ):
            items = [n for n, _ in lines.items if n.startswith(prefix)]
            if items and all(n in names for n in items):  # a list left empty goes whole
                names.add(head)
        blanked[name] = names
    return blanked


FOLDERS = {
    "campus": "campuses",
    "party": "parties",
    "source": "sources",
    "correction": "corrections",
}


def site_of(root: Path, out: Path, day: date) -> Path:
    done = build(root, out, as_of=day, search=False, kept=Memos.in_memory(), jobs=1)
    assert done.site is not None, [d.format() for d in done.checked.diagnostics.errors]
    return out


def differences(left: Path, right: Path) -> list[str]:
    found: list[str] = []

    def walk(compared: filecmp.dircmp[str], at: str) -> None:
        found.extend(f"{at}{n} only in one" for n in compared.left_only + compared.right_only)
        _, mismatch, errors = filecmp.cmpfiles(
            compared.left, compared.right, compared.common_files, shallow=False
        )
        found.extend(f"{at}{n}" for n in mismatch + errors)
        for name, sub in compared.subdirs.items():
            walk(sub, f"{at}{name}/")

    walk(filecmp.dircmp(left, right), "")
    return found


@settings(
    max_examples=examples(15),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(files=records(), day=days)
def test_a_build_as_of_a_day_is_the_build_of_what_was_known_by_then(tmp_path_factory, files, day):
    work = tmp_path_factory.mktemp("as-of")
    whole = work / "whole" / "record"
    write(whole, files, {})
    cut = work / "cut" / "record"
    blanked = unknown_by(whole, day, files)
    event("something left out" if any(blanked.values()) else "nothing left out")
    write(cut, files, blanked)
    left = site_of(whole, work / "whole-site", day)
    right = site_of(cut, work / "cut-site", day)
    assert differences(left, right) == []
    shutil.rmtree(work)


@settings(
    max_examples=examples(20),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(files=records())
def test_each_month_of_the_history_is_the_record_as_it_stood_then(tmp_path_factory, files):
    """The scorecard's history walks the compiled record back a month at a time; each step
    gives what the record cut at that month's end gives."""
    work = tmp_path_factory.mktemp("history")
    root = work / "record"
    write(root, files, {})
    checked = check(root)
    assert checked.ok, [d.format() for d in checked.diagnostics.errors]
    with derive.open_image(checked.image) as db:
        (row,) = derive.scorecard(db)
        months = history_months(db)
    event(f"{len(months)} months" if len(months) < 3 else "3 or more months")
    for month_end in months:
        then = check(root, as_of=month_end)
        with derive.open_image(then.image) as db:
            (was,) = derive.scorecard(db, history=False)
        shown = [p for p in row.history if p.day <= month_end.isoformat()[:7]]
        if was.answer is None:
            assert not shown or shown[-1].day < month_end.isoformat()[:7], month_end
        else:
            assert shown and shown[-1].answer.same(was.answer), month_end
    shutil.rmtree(work)
