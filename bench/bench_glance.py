#!/usr/bin/env python3
"""What the record at a glance and The Paper add to a build of a synthetic record.

    python bench/bench_glance.py [--size 10000] [--seed 0] [--repeat 3]

Generates a record of N entities into bench/out/glance-n<N>-seed<S>/ (bench/generate.py),
then builds it, each in a fresh process, the best of R: first as generated; then with the
bundled record's charts but the one of power by campus and month (their SQL reads only
the tables every record has) and a paper citing twenty of its sources and embedding two
charts. Prints both builds, the difference and the share it adds, with the charts drawn
afresh (as on a fresh clone) and kept from the build before (see publish/site/vega.py):
the target is under 10% of the full build.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

from generate import generate

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


def build_seconds(record: Path, repeat: int, kept: bool = True) -> float:
    """The best of `repeat` builds; each draws its charts afresh unless `kept`."""
    best = float("inf")
    for _ in range(repeat):
        if not kept:
            shutil.rmtree(record / ".sourcebook-cache" / "charts", ignore_errors=True)
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "sourcebook", "build", str(record), "--quiet"],
            check=True,
            capture_output=True,
        )
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    record = HERE / "out" / f"glance-n{args.size}-seed{args.seed}"
    if record.exists():
        shutil.rmtree(record)
    generate(args.size, record, args.seed)
    plain = build_seconds(record, args.repeat)
    (record / "charts").mkdir()
    for chart in sorted((BUNDLED / "charts").glob("*.md")):
        if chart.stem != "power-over-time":  # a row per campus a month: too many at 10,000
            front = chart.read_text(encoding="utf-8").split("\n---\n", 1)[0]
            (record / "charts" / chart.name).write_text(front + "\n---\n", encoding="utf-8")
    sources = sorted(p.stem for p in (record / "sources").glob("*.md"))[:20]
    (record / "papers").mkdir()
    (record / "papers" / "synthetic.md").write_text(paper(sources), encoding="utf-8")
    drawn = build_seconds(record, args.repeat, kept=False)
    pages = build_seconds(record, args.repeat)
    print(f"N={args.size:,}: build {plain:.2f} s; with 7 charts and a paper {pages:.2f} s")
    for what, seconds in (("drawn afresh", drawn), ("kept from the last build", pages)):
        added = seconds - plain
        print(f"  the charts {what} and The Paper add {added:.2f} s ({added / plain:.1%})")


if __name__ == "__main__":
    main()
