#!/usr/bin/env python3
"""What each speed-up of sourcebook.runtime saves: `sourcebook build` of a synthetic record
with all of them on, with each turned off alone (SOURCEBOOK_PLAIN=NAME), and with all off.

    python bench/bench_runtime.py [--size 10000] [--seed 0] [--repeat 2]

Each build is a fresh `python -m sourcebook build -q` into a folder of its own, timed from
outside (start-up and exit included). For each way, the best of R runs is printed, of the
wall-clock time and of the CPU time (the build's and its workers'), with what turning the
speed-up off costs against all on. On a machine shared with other work the CPU time is the
steadier measure of what a speed-up saves, but for the workers, which spend more CPU time
to take less wall-clock time.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from generate import STAMP, generate, stamp
from installed import as_installed

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
TRICKS = ("workers", "collector", "exit")


def record(n: int, seed: int) -> Path:
    root = OUT / f"site-n{n}-seed{seed}"
    if not ((root / STAMP).is_file() and (root / STAMP).read_text() == stamp(n, seed)):
        generate(n, root, seed)
    return root


def timed(root: Path, plain: str) -> tuple[float, float]:
    """(wall-clock seconds, CPU seconds) of one build."""
    out = OUT / f"{root.name}-runtime-{plain or 'fast'}"
    env = {**os.environ, "SOURCEBOOK_PLAIN": plain}
    os.sync()
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "sourcebook", "build", str(root), "--out", str(out), "-q"],
        env=env,
    )
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the build with SOURCEBOOK_PLAIN={plain!r} failed")
    return seconds, usage.ru_utime + usage.ru_stime


def main() -> None:
    as_installed()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    root = record(args.size, args.seed)
    timed(root, "")  # the Library's cache and the compiled templates, made once
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in ("", *TRICKS, "1")}
    names = list(runs)
    for round_ in range(args.repeat):  # interleaved, each round from another start, so that
        turn = round_ % len(names)  # load on the machine falls on each way alike
        for name in names[turn:] + names[:turn]:
            runs[name].append(timed(root, name))
    wall = {name: min(r[0] for r in found) for name, found in runs.items()}
    cpu = {name: min(r[1] for r in found) for name, found in runs.items()}
    print(
        f"N={args.size:,}, best of {args.repeat}: all speed-ups on: {wall['']:.2f} s,"
        f" {cpu['']:.2f} s of CPU"
    )
    for name in (*TRICKS, "1"):
        shown = "all off" if name == "1" else f"{name} off"
        print(
            f"  {shown:<14} {wall[name]:6.2f} s ({_cost(wall, name)})"
            f"   CPU {cpu[name]:6.2f} s ({_cost(cpu, name)})"
        )


def _cost(best: dict[str, float], name: str) -> str:
    cost = best[name] - best[""]
    return f"{cost:+5.2f} s, {cost / best['']:+6.1%}"


if __name__ == "__main__":
    main()
