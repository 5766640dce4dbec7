#!/usr/bin/env python3
"""Where the time of one `serve` save goes, stage by stage, in one process.

    python bench/bench_save.py [--sizes 10000] [--seed 0] [--repeat R] [--in-a-row N]

`bench_edit.py` times a save as the author sees it, from the write to the page served;
this runs `serve`'s rebuild (`LiveSite.rebuild`) in-process on the record bench_site.py
generates, and prints, for its first build and for each kind of edit (a sentence appended
to a term, a campus's figure moved a year, an alias given to a term and taken back), the
best of R saves and the time in each stage: read, link, check's rules, compiling the
record, the record's queries, derive, and the site (making its pages' list and writing
what changed). Each save's rebuild is told the edited file, as `serve`'s watcher tells
it, so that the read takes every other file as it was without a stat
(`incremental.FilesSeen`); the first build takes every stat. Then it times N sentence
saves in a row, each whole, the cycle collector included: as Python runs it, and as
`serve` holds it (`runtime.collector.Bursts`). Every edit is undone at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from bench_check import STAGES as CHECK_STAGES
from bench_check import StageTimer
from bench_edit import alias_edited, alias_phrase, edited, figure_edited, figure_file
from bench_site import record_dir
from installed import as_installed

STAGES = {**CHECK_STAGES, "derive_checked": "derive"}
SITE_METHODS = ("__init__", "write")
"""`SiteBuild`'s: its pages' list made, then what changed written."""


@contextlib.contextmanager
def timed_stages() -> Iterator[StageTimer]:
    """The pipeline's stages and the site's build timed, as `serve` calls them."""
    from sourcebook import pipeline
    from sourcebook.publish.site.build import SiteBuild

    timer = StageTimer()
    saved = {name: getattr(pipeline, name) for name in STAGES}
    methods = {name: getattr(SiteBuild, name) for name in SITE_METHODS}
    for name, stage in STAGES.items():
        setattr(pipeline, name, timer.wrap(stage, saved[name]))
    for name, method in methods.items():
        setattr(SiteBuild, name, timer.wrap("site", method))
    try:
        yield timer
    finally:
        for name, function in saved.items():
            setattr(pipeline, name, function)
        for name, method in methods.items():
            setattr(SiteBuild, name, method)


def line(label: str, seconds: float, stages: dict[str, float], written: int | None) -> str:
    order = [*STAGES.values(), "site"]
    parts = [f"{s} {stages[s]:.2f}" for s in order if s in stages]
    other = seconds - sum(stages.values())
    parts += [f"other {other:.2f}"] if other >= 0.01 else []
    files = "all files" if written is None else f"{written:,} file(s)"
    return f"  {label}: {seconds:.2f} s ({files} written; {', '.join(parts)})"


def told(path: Path) -> list[tuple[str, str]]:
    """What `serve`'s watcher tells a rebuild of a file written in place: its real path,
    modified (`LiveSite.watch`)."""
    return [("modified", str(path.resolve()))]


def measure(root: Path, repeat: int) -> None:
    from sourcebook.live import LiveSite

    with tempfile.TemporaryDirectory(prefix="bench-save-") as folder:
        live = LiveSite(root, out=Path(folder))
        try:
            with timed_stages() as timer:
                started = time.perf_counter()
                live.rebuild()
                first = time.perf_counter() - started
            if live.broken:
                raise SystemExit(f"{root}: the record does not build: {live.failure}")
            print(line("first build", first, timer.seconds, live.written), flush=True)
            terms = sorted((root / "terms").glob("*.md"))
            plain = [t for t in terms if "\naliases:" not in t.read_text(encoding="utf-8")]
            figures = figure_file(root)
            with contextlib.ExitStack() as stack:
                edits: list[tuple[str, Callable[[str], object], Path]] = [
                    ("a sentence appended", stack.enter_context(edited(terms[0])), terms[0]),
                    ("a figure moved", stack.enter_context(figure_edited(figures)), figures),
                    (
                        "an alias given or taken back",
                        stack.enter_context(alias_edited(plain[1], alias_phrase(root))),
                        plain[1],
                    ),
                ]
                for label, edit, path in edits:
                    best: tuple[float, dict[str, float], int | None] | None = None
                    for _ in range(repeat):
                        edit("")
                        with timed_stages() as timer:
                            started = time.perf_counter()
                            live.rebuild(told(path))
                            seconds = time.perf_counter() - started
                        if best is None or seconds < best[0]:
                            best = (seconds, dict(timer.seconds), live.written)
                    assert best is not None
                    print(line(f"save, {label}", *best), flush=True)
        finally:
            live.close()
            shutil.rmtree(Path(folder), ignore_errors=True)


def in_a_row(root: Path, saves: int) -> None:
    """`saves` sentence saves in a row, each timed whole (the cycle collector included):
    with the collector as Python runs it, then held as `serve` holds it, collected between
    saves (untimed: `serve`'s watcher does it once it has waited for the next save)."""
    from sourcebook.live import LiveSite

    terms = sorted((root / "terms").glob("*.md"))
    for held in (False, True):
        with tempfile.TemporaryDirectory(prefix="bench-save-") as folder:
            live = LiveSite(root, out=Path(folder))
            if held:
                live.collector.hold()
            try:
                live.rebuild()
                live.collector.idle()
                times = []
                with edited(terms[0]) as edit:
                    for _ in range(saves):
                        edit("")
                        started = time.perf_counter()
                        live.rebuild(told(terms[0]))
                        times.append(time.perf_counter() - started)
                        live.collector.idle()
            finally:
                live.collector.release()
                live.close()
        how = "held, collected between saves" if held else "as Python runs it"
        print(
            f"  {saves} sentence saves in a row, the collector {how}:"
            f" mean {sum(times) / saves:.2f} s, slowest {max(times):.2f} s,"
            f" fastest {min(times):.2f} s",
            flush=True,
        )


def main() -> None:
    as_installed()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000", help="comma-separated N")
    parser.add_argument("--seed", type=int, default=0, help="the generator's seed")
    parser.add_argument("--repeat", type=int, default=3, help="the best of R saves")
    parser.add_argument("--in-a-row", type=int, default=8, help="saves in a row (0: none)")
    args = parser.parse_args()
    for n in (int(size) for size in args.sizes.split(",")):
        root = record_dir(n, args.seed)
        print(f"serve's save, N={n:,} ({root.name}), best of {args.repeat}:", flush=True)
        measure(root, args.repeat)
        if args.in_a_row:
            in_a_row(root, args.in_a_row)


if __name__ == "__main__":
    sys.exit(main())
