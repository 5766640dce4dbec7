#!/usr/bin/env python3
"""What the search index costs a build: made whole, and after a one-file edit.

    python bench/bench_search.py [--sizes 10000] [--seed 0]

On the record bench_site.py generates (bench/out/site-n<N>-seed<S>/, reused), copied
aside so that its edits touch nothing else: a build with the state folder removed (every
bucket of the index made), then a sentence appended to one glossary term and the record
built again (only the buckets whose pages changed made). One line each: the build's
seconds, the index's seconds, the pages and records given to Pagefind, and the buckets
made of all. Each build runs in a fresh process, as `sourcebook build` does.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

from bench_site import OUT, record_dir

CHILD = """
import json, sys, time
from pathlib import Path
from sourcebook.pipeline import build

if __name__ == "__main__":
    started = time.perf_counter()
    done = build(Path(sys.argv[1]), Path(sys.argv[2]))
    whole = time.perf_counter() - started
    index = done.site.search if done.site is not None else None
    figures = {"whole": whole, "index": None}
    if index is not None:
        figures.update(
            index=index.seconds, pages=index.pages, records=index.records,
            made=index.made, buckets=index.buckets,
        )
    print(json.dumps(figures))
"""


def timed(root: Path, out: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), str(out)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def line(name: str, n: int, figures: dict[str, float]) -> str:
    if figures["index"] is None:
        return f"{name:<28} N={n:>6,}  build {figures['whole']:6.2f} s  no index made"
    return (
        f"{name:<28} N={n:>6,}  build {figures['whole']:6.2f} s  index {figures['index']:5.2f} s"
        f"  ({figures['pages']:,.0f} pages and {figures['records']:,.0f} records to Pagefind,"
        f" {figures['made']:.0f} of {figures['buckets']:.0f} buckets made)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for n in (int(size) for size in args.sizes.split(",")):
        root = OUT / f"search-n{n}-seed{args.seed}"
        out = OUT / f"search-n{n}-seed{args.seed}-site"
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(record_dir(n, args.seed), root, ignore=shutil.ignore_patterns("_site"))
        shutil.rmtree(root / ".sourcebook-cache", ignore_errors=True)
        print(line("build, the whole index", n, timed(root, out)), flush=True)
        term = sorted((root / "terms").glob("*.md"))[0]
        term.write_text(term.read_text() + "\nA sentence with the marker quartzwhistle.\n")
        print(line("build after a one-file edit", n, timed(root, out)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
