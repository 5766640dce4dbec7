#!/usr/bin/env python3
"""Time `sourcebook check` (read → link → check) on synthetic records of several sizes.

    python bench/bench_check.py [--sizes 1000,10000,50000] [--seed 0] [--repeat R]
                                [--profile N]

Each record is generated into bench/out/ (reused while its size, seed and generator are
unchanged) and checked in a fresh Python process, so that the time excludes generation
and the peak memory is the checking process's own.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import pstats
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from generate import CACHE, STAMP, generate, stamp
from installed import as_installed

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
# Size → seconds the whole check may take; and the peak memory any size may use.
TARGET_SECONDS = {10_000: 2.0, 50_000: 10.0}
TARGET_PEAK_MIB = 1024
# The functions pipeline.check calls, and the stage each is shown as.
STAGES = {
    "read_record": "read",
    "link_record": "link",
    "check_record": "check",
    "compiled_image": "compile",
    "check_queries": "queries",
}
PROFILE_ROWS = 15


@dataclass
class Result:
    n: int
    seconds: float
    cpu_seconds: float
    stages: dict[str, float]
    peak_mib: float
    entities: int
    errors: int
    warnings: int
    refs: dict[str, int]
    quotes: int


def record_dir(n: int, seed: int) -> Path:
    """The record of `n` entities, generated unless an identical one is already there."""
    out = OUT / f"n{n}-seed{seed}"
    stamp_file = out / STAMP
    if stamp_file.is_file() and stamp_file.read_text() == stamp(n, seed):
        print(f"generate N={n}: reused {out.relative_to(HERE.parent)}", flush=True)
        return out
    started = time.perf_counter()
    generate(n, out, seed)
    elapsed = time.perf_counter() - started
    print(f"generate N={n}: {elapsed:.2f} s (not part of the check timing)", flush=True)
    return out


class StageTimer:
    """Wraps the functions pipeline.check calls, adding up the seconds spent in each."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def add(self, stage: str, started: float) -> None:
        self.seconds[stage] = self.seconds.get(stage, 0.0) + time.perf_counter() - started

    def wrap(self, stage: str, function):
        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                result = function(*args, **kwargs)
            finally:
                self.add(stage, started)
            return self.context(stage, result) if hasattr(result, "__enter__") else result

        return timed

    @contextlib.contextmanager
    def context(self, stage: str, inner):
        """A context manager's entry and exit count to its stage; its body does not."""
        started = time.perf_counter()
        value = inner.__enter__()
        self.add(stage, started)
        try:
            yield value
        except BaseException:
            if not inner.__exit__(*sys.exc_info()):
                raise
        else:
            started = time.perf_counter()
            inner.__exit__(None, None, None)
            self.add(stage, started)


def cpu_time() -> float:
    """CPU seconds of this process and of the worker processes it has waited for."""
    own, workers = (
        resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def run_stages(root: Path) -> dict:
    """Run `pipeline.check` with each stage timed: what the child process measures."""
    from sourcebook import pipeline

    timer = StageTimer()
    for name, stage in STAGES.items():
        if hasattr(pipeline, name):
            setattr(pipeline, name, timer.wrap(stage, getattr(pipeline, name)))
    started, cpu_started = time.perf_counter(), cpu_time()
    checked = pipeline.check(root)
    seconds, cpu_seconds = time.perf_counter() - started, cpu_time() - cpu_started
    refs: dict[str, int] = {}
    for ref in checked.graph.refs:
        refs[ref.via] = refs.get(ref.via, 0) + 1
    return {
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "stages": timer.seconds,
        "peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "entities": len(checked.record) if checked.record else 0,
        "errors": len(checked.diagnostics.errors),
        "warnings": len(checked.diagnostics.warnings),
        "refs": refs,
        "quotes": len(checked.graph.quotes),
    }


def child(root: Path, profile: bool) -> None:
    """The fresh process: import, then time one check; print the figures as JSON."""
    import sourcebook.pipeline  # noqa: F401  (imports are not part of the timing)

    if not profile:
        print(json.dumps(run_stages(root)))
        return
    profiler = cProfile.Profile()
    profiler.enable()
    figures = run_stages(root)
    profiler.disable()
    for order in ("cumulative", "tottime"):
        text = io.StringIO()
        stats = pstats.Stats(profiler, stream=text)
        stats.strip_dirs().sort_stats(order).print_stats(PROFILE_ROWS)
        body = text.getvalue().split("\n\n", 2)[-1].strip("\n")
        print(f"top {PROFILE_ROWS} by {order} time:\n{body}\n", file=sys.stderr)
    print(json.dumps(figures))


def measure(n: int, root: Path, profile: bool = False) -> Result:
    command = [sys.executable, __file__, "--child", str(root)]
    done = subprocess.run(
        command + (["--profile-child"] if profile else []),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"check of N={n} failed:\n{done.stderr}")
    if profile:
        print(done.stderr.rstrip())
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return Result(
        n=n,
        seconds=figures["seconds"],
        cpu_seconds=figures["cpu_seconds"],
        stages=figures["stages"],
        peak_mib=figures["peak_kib"] / 1024,
        entities=figures["entities"],
        errors=figures["errors"],
        warnings=figures["warnings"],
        refs=figures["refs"],
        quotes=figures["quotes"],
    )


def stage_text(result: Result) -> str:
    parts = [f"{s} {result.stages[s]:.2f} s" for s in STAGES.values() if s in result.stages]
    other = result.seconds - sum(result.stages.values())
    return ", ".join(parts + ([f"other {other:.2f} s"] if other >= 0.01 else []))


def report(cold: Result, warm: Result, edited: Result) -> list[bool]:
    """Print one size's figures; return whether each of its targets is met (by the cold run)."""
    rate = cold.entities / cold.seconds if cold.seconds else 0.0
    print(
        f"check N={cold.n}: {cold.seconds:.2f} s ({rate:,.0f} entities/s), "
        f"peak {cold.peak_mib:,.0f} MiB, {cold.errors} errors, {cold.warnings} warnings"
    )
    refs = ", ".join(f"{via} {count:,}" for via, count in sorted(cold.refs.items()))
    print(f"  stages: {stage_text(cold)}; CPU {cold.cpu_seconds:.2f} s")
    print(f"  refs: {refs}; quotes {cold.quotes:,}")
    print(
        "  again, with what the first kept (texts, front matter, names, entity rules): "
        f"{warm.seconds:.2f} s "
        f"({stage_text(warm)}; CPU {warm.cpu_seconds:.2f} s), peak {warm.peak_mib:,.0f} MiB"
    )
    print(
        f"  after a one-file prose edit: {edited.seconds:.2f} s ({stage_text(edited)}; "
        f"CPU {edited.cpu_seconds:.2f} s)"
    )
    met = []
    limit = TARGET_SECONDS.get(cold.n)
    if limit is not None:
        met.append(cold.seconds < limit)
        print(f"  target: N={cold.n:,} under {limit:g} s: {'met' if met[-1] else 'NOT met'}")
    met.append(cold.peak_mib < TARGET_PEAK_MIB)
    print(f"  target: peak under {TARGET_PEAK_MIB // 1024} GiB: {'met' if met[-1] else 'NOT met'}")
    return met


def measure_cold_and_warm(n: int, root: Path, repeat: int) -> tuple[Result, Result, Result]:
    """Check with nothing kept (a fresh checkout), then with what it kept, then once more
    after a one-file edit; the fastest of `repeat` tries of each, as other work on the
    machine only adds time. Each runs the whole check: `check`'s remembered result of an
    unchanged record is a command's, not the pipeline's."""
    colds, warms, edits = [], [], []
    edited = sorted((root / "terms").glob("*.md"))[0]
    text = edited.read_text(encoding="utf-8")
    try:
        for round_ in range(repeat):
            shutil.rmtree(root / CACHE, ignore_errors=True)
            edited.write_text(text, encoding="utf-8")
            colds.append(measure(n, root))
            warms.append(measure(n, root))
            edited.write_text(f"{text}\nEdited in round {round_}.\n", encoding="utf-8")
            edits.append(measure(n, root))
    finally:
        edited.write_text(text, encoding="utf-8")
    fastest = [min(runs, key=lambda r: r.seconds) for runs in (colds, warms, edits)]
    return fastest[0], fastest[1], fastest[2]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,50000", help="comma-separated N")
    parser.add_argument("--seed", type=int, default=0, help="the generator's seed")
    parser.add_argument("--repeat", type=int, default=1, help="report the fastest of R runs")
    parser.add_argument("--profile", type=int, metavar="N", help="also profile the check of N")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--profile-child", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    as_installed()
    args = parse_args(argv)
    if args.child:
        child(args.child, args.profile_child)
        return 0
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    met: list[bool] = []
    for n in sizes:
        root = record_dir(n, args.seed)
        met += report(*measure_cold_and_warm(n, root, max(1, args.repeat)))
    if args.profile:
        root = record_dir(args.profile, args.seed)
        shutil.rmtree(root / CACHE, ignore_errors=True)
        print(f"\nprofile of the cold check of N={args.profile} (under cProfile, so slower):")
        measure(args.profile, root, profile=True)
    print(f"\ntargets: {sum(met)} of {len(met)} met")
    return 0 if all(met) else 1


if __name__ == "__main__":
    sys.exit(main())
