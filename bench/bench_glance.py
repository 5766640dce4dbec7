#!/usr/bin/env python3
"""What the record at a glance and The Paper add to a build of a synthetic record.

    python bench/bench_glance.py [--size 10000] [--seed 0] [--repeat 5]

Generates a record of N entities into bench/out/glance-n<N>-seed<S>-plain/
(bench/generate.py), and a copy of it into bench/out/glance-n<N>-seed<S>/ with the
bundled record's charts but the one of power by campus and month (their SQL reads only
the tables every record has) and a paper citing twenty of its sources and embedding two
charts. Builds each in a fresh process, R rounds interleaved: the record as generated,
the copy with its charts drawn afresh (as on a fresh clone), and the copy with the
drawings kept from the build before (see publish/site/drawing/vega.py). Prints the best of R
builds of each, and the share the charts and the paper add, best to best and as the
median of the rounds' ratios (the steadier on a shared machine): the target is under 10%
of the full build.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path
from statistics import median

from generate import generate
from installed import as_installed

HERE = Path(__file__).resolve().parent
BUNDLED = HERE.parent / "examples" / "compute-race"


def paper(sources: list[str]) -> str:
    cites = "\n\n".join(
        f"Paragraph {i + 1} reads the record's evidence as of its close [@{s}, p. {i + 1}]."
        f"[^{i + 1}]"
        for i, s in enumerate(sources)
    )
    notes = "\n".join(f"[^{i + 1}]: A note on source {i + 1}." for i in range(len(sources)))
    return (
        "---\ntitle: A synthetic paper\ndate: 2026-11-08\nsummary: What the record shows.\n---\n"
        f"# Evidence\n\n{cites}\n\n![[chart:campus-timeline]]\n\n## Tables\n\n"
        f"![[chart:quotes-proved|table]]\n\n{notes}\n"
    )


def build_seconds(record: Path, kept: bool = True) -> float:
    """One build of `record`, in a fresh process; its charts drawn afresh unless `kept`."""
    if not kept:
        shutil.rmtree(record / ".sourcebook-cache" / "charts", ignore_errors=True)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "sourcebook", "build", str(record), "--quiet"],
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def with_charts_and_paper(generated: Path, record: Path) -> None:
    """`generated`, copied to `record` with the bundled record's charts and a paper."""
    if record.exists():
        shutil.rmtree(record)
    shutil.copytree(generated, record, ignore=shutil.ignore_patterns(".sourcebook-cache", "_site"))
    (record / "charts").mkdir()
    for chart in sorted((BUNDLED / "charts").glob("*.md")):
        if chart.stem != "power-over-time":  # a row per campus a month: too many at 10,000
            front = chart.read_text(encoding="utf-8").split("\n---\n", 1)[0]
            (record / "charts" / chart.name).write_text(front + "\n---\n", encoding="utf-8")
    sources = sorted(p.stem for p in (record / "sources").glob("*.md"))[:20]
    (record / "papers").mkdir()
    (record / "papers" / "synthetic.md").write_text(paper(sources), encoding="utf-8")


def main() -> None:
    as_installed()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    generated = HERE / "out" / f"glance-n{args.size}-seed{args.seed}-plain"
    record = HERE / "out" / f"glance-n{args.size}-seed{args.seed}"
    if generated.exists():
        shutil.rmtree(generated)
    generate(args.size, generated, args.seed)
    with_charts_and_paper(generated, record)
    build_seconds(generated)  # the Library's cache and the compiled templates, made once
    build_seconds(record)
    runs: dict[str, list[float]] = {"plain": [], "drawn": [], "kept": []}
    for _ in range(args.repeat):  # interleaved, so that load on the machine falls on each alike
        runs["plain"].append(build_seconds(generated))
        runs["drawn"].append(build_seconds(record, kept=False))
        runs["kept"].append(build_seconds(record))
    plain, drawn, kept = (min(runs[name]) for name in ("plain", "drawn", "kept"))
    print(f"N={args.size:,}, best of {args.repeat}: build {plain:.2f} s", end="")
    print(f"; with 7 charts and a paper {kept:.2f} s (drawings kept), {drawn:.2f} s (drawn afresh)")
    for what, name in (("drawn afresh", "drawn"), ("kept from the last build", "kept")):
        added = min(runs[name]) - plain
        # each round's builds ran one after the other, so their ratio is the steadier figure
        paired = median(b / a for a, b in zip(runs["plain"], runs[name], strict=True))
        print(
            f"  the charts {what} and The Paper add {added:.2f} s ({added / plain:.1%} best"
            f" to best; {paired - 1:.1%} the median of the {args.repeat} rounds' ratios)"
        )


if __name__ == "__main__":
    main()
