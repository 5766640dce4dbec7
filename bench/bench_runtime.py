#!/usr/bin/env python3
"""What each speed-up of sourcebook.runtime saves: `sourcebook build` of a synthetic record
with all of them on, with each turned off alone (SOURCEBOOK_PLAIN=NAME), and with all off.

    python bench/bench_runtime.py [--size 10000] [--seed 0] [--repeat 2]

Each build is a fresh `python -m sourcebook build -q` into a folder of its own, timed from
outside (start-up and exit included); the best of R runs is printed, with what turning the
speed-up off costs against all on.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from generate import STAMP, generate, stamp

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
TRICKS = ("workers", "collector", "templates", "yaml", "pickling", "exit")


def record(n: int, seed: int) -> Path:
    root = OUT / f"site-n{n}-seed{seed}"
    if not ((root / STAMP).is_file() and (root / STAMP).read_text() == stamp(n, seed)):
        generate(n, root, seed)
    return root


def timed(root: Path, plain: str) -> float:
    out = OUT / f"{root.name}-runtime-{plain or 'fast'}"
    env = {**os.environ, "SOURCEBOOK_PLAIN": plain}
    os.sync()
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "sourcebook", "build", str(root), "--out", str(out), "-q"],
        check=True,
        env=env,
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    root = record(args.size, args.seed)
    timed(root, "")  # the Library's cache and the compiled templates, made once
    runs = {name: [] for name in ("", *TRICKS, "1")}
    for _ in range(args.repeat):  # interleaved, so that load on the machine falls on each alike
        for name in runs:
            runs[name].append(timed(root, name))
    best = {name: min(seconds) for name, seconds in runs.items()}
    base = best[""]
    print(f"N={args.size:,}: all speed-ups on: {base:.2f} s (best of {args.repeat})")
    for name in (*TRICKS, "1"):
        shown = "all off" if name == "1" else f"{name} off"
        cost = best[name] - base
        print(f"  {shown:<15} {best[name]:6.2f} s  {cost:+6.2f} s  ({cost / base:+6.1%})")


if __name__ == "__main__":
    main()
