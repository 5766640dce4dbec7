#!/usr/bin/env python3
"""Time the machine's page (/vol1/machine) beside the full build, on a synthetic record.

    python bench/bench_machine.py [--size 10000] [--seed 0] [--repeat 3]

The record is generated as bench_site.py does (bench/out/site-n<N>-seed<S>/, reused while
unchanged). Printed, one line each: the full build (check, then the site, with the
machine page) in this process; and the machine's own cost, the best of R: deriving it
from the compiled record, drawing it (networkx's layout, the SVG), and rendering its
HTML page and JSON twin. The target: the machine's cost is a small share of the build
(the three pages of issue 16 together under 10%).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from bench_site import record_dir
from installed import as_installed


def main() -> None:
    as_installed()
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from sourcebook.derive import open_image
    from sourcebook.derive.machine import machine
    from sourcebook.diagnostics import Diagnostics
    from sourcebook.pipeline import build_site, check, derive_checked
    from sourcebook.publish.site.build import _prepare
    from sourcebook.publish.site.drawing.machine_page import machine_of
    from sourcebook.publish.site.pages.render import Writer

    root = record_dir(args.size, args.seed)
    started = time.perf_counter()
    checked = check(root)
    checked.diagnostics = Diagnostics(
        [d for d in checked.diagnostics if d.severity.value != "error"]
    )
    checked_at = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        built = build_site(checked, Path(out) / "site")
    full = time.perf_counter() - started
    print(
        f"full build N={args.size:,}: {full:.2f} s (check {checked_at - started:.2f} s, "
        f"site {built.seconds:.2f} s, {built.pages:,} pages, {built.jobs} jobs)"
    )

    assert checked.record is not None and checked.image is not None
    derived = derive_checked(checked)
    best = {"derive": float("inf"), "draw": float("inf"), "render": float("inf")}
    for _ in range(args.repeat):
        with open_image(checked.image) as db:
            t0 = time.perf_counter()
            found = machine(db)
            t1 = time.perf_counter()
        prepared = _prepare(checked.record, checked.graph, 1)
        view = prepared.view
        view.use_derived(derived)
        t2 = time.perf_counter()
        drawn = machine_of(view).drawing
        t3 = time.perf_counter()
        pages = [p for p in prepared.pages if "machine" in p.url]
        with tempfile.TemporaryDirectory() as out:
            assert view.env is not None
            writer = Writer(view.env, view, Path(out))
            for page in pages:
                writer.write(page)
        t4 = time.perf_counter()
        best = {
            "derive": min(best["derive"], t1 - t0),
            "draw": min(best["draw"], t3 - t2),
            "render": min(best["render"], t4 - t3),
        }
    total = sum(best.values())
    print(
        f"machine page N={args.size:,}: {total:.2f} s = {total / full:.1%} of the full build "
        f"(derive {best['derive']:.3f} s, draw {best['draw']:.3f} s, "
        f"render page and twin {best['render']:.3f} s); "
        f"{found.campuses:,} campuses, {found.parties:,} parties, {len(found.edges):,} roles; "
        f"drawn {drawn.nodes} nodes, {drawn.edges} edges{' (capped)' if drawn.capped else ''}"
    )


if __name__ == "__main__":
    main()
