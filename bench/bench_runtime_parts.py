#!/usr/bin/env python3
"""What the smallest speed-up saves, timed on the work it speeds up, which a machine shared
with other work measures more steadily than whole builds: `exit`, the end of a process
holding the read, linked and checked record.

    python bench/bench_runtime_parts.py [--size 10000] [--seed 0] [--repeat 3]

Each is timed both ways (SOURCEBOOK_PLAIN set to its name or not), the best of R.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from bench_runtime import record
from installed import as_installed


def main() -> None:
    as_installed()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    root = record(args.size, args.seed)

    # The exit: a process that checks the record, then leaves by exit_now or not.
    exit_code = (
        "import sys, time; from sourcebook.pipeline import check; from sourcebook.cli import "
        f"exit_now; c = check({str(root)!r}); print(time.perf_counter(), flush=True); exit_now(0)"
    )

    def exit_seconds(plain: str) -> float:
        runs = []
        for _ in range(args.repeat):
            env = {**os.environ, "SOURCEBOOK_PLAIN": plain}
            done = subprocess.run(
                [sys.executable, "-c", exit_code], env=env, capture_output=True, text=True
            )
            runs.append(time.perf_counter() - float(done.stdout.split()[-1]))
        return min(runs)

    figures = {"exit": (exit_seconds(""), exit_seconds("exit"))}
    print(f"N={args.size:,}, best of {args.repeat}: seconds with the speed-up, without it")
    for name, (fast, plain) in figures.items():
        print(f"  {name:<10} {fast:6.2f} s  {plain:6.2f} s  saves {plain - fast:5.2f} s")


if __name__ == "__main__":
    main()
