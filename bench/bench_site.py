#!/usr/bin/env python3
"""Time `sourcebook build` (check, then the site) against Hugo on the same synthetic records.

    python bench/bench_site.py [--sizes 1000,10000] [--seed 0] [--repeat R] [--ignore-errors]

Each record is generated into bench/out/site-n<N>-seed<S>/ (reused while its size, seed
and generator are unchanged). For each size it prints, a line each:

- the full `sourcebook build` (read, link, check, site) in a fresh Python process:
  seconds (and, of the site's, the Pagefind search index's), pages per second, peak
  memory (the building process plus its workers); once
  as a first build, with no spare site beside it to write into ("sourcebook first"), then
  the best of R builds, each writing into the spare the one before left;
- Hugo building the same number of pages, each with the same backlink lists, from
  content this script writes beside the record (Debian's hugo; skipped with a message
  where it is missing), with its own peak memory: its best of R builds over its last
  public/ folder and R builds into an empty one. As sourcebook writes a JSON twin of each
  HTML page, so does Hugo (its JSON output format, with the page's title, URL, Markdown
  and backlinks); a second line gives Hugo writing the HTML pages alone, and a third
  Pagefind indexing those pages, as a Hugo site gets its search (sourcebook's build makes
  its own index with the same Pagefind, so "Hugo's then Pagefind's" compares like with
  like).

The target: the full build of 10,000 entities within 2× Hugo's time in the same run, and
under 1 GiB of peak memory at every size (at 1,000, where start-up dominates, the ratio is
printed but not judged). `--ignore-errors` measures the site even where check finds
errors in the synthetic record (their number is printed), so that a generator and a
check that have drifted apart do not hide the site's speed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from generate import STAMP, generate, stamp
from installed import as_installed

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
HUGO = shutil.which("hugo")
TARGET_RATIO = 2.0
TARGET_SIZE = 10_000
"""The size the time target is set at; at other sizes the ratio is printed, not judged."""
TARGET_PEAK_MIB = 1024


@dataclass
class Run:
    seconds: float
    pages: int
    peak_mib: float
    detail: str = ""
    site_seconds: float = 0.0
    """For sourcebook: the site stage alone (build_site), without check and start-up."""


def record_dir(n: int, seed: int) -> Path:
    out = OUT / f"site-n{n}-seed{seed}"
    if (out / STAMP).is_file() and (out / STAMP).read_text() == stamp(n, seed):
        return out
    started = time.perf_counter()
    generate(n, out, seed)
    print(f"generate N={n:,}: {time.perf_counter() - started:.1f} s (not timed)", flush=True)
    return out


def settled() -> None:
    """Before each timed build, sourcebook's or Hugo's: what earlier runs wrote is put on
    disk first, so that the kernel writing it back does not land in this run's time."""
    os.sync()


# The sourcebook side: a fresh process checks and builds, and reports its own figures.


def child(root: Path, out: Path, ignore_errors: bool) -> None:
    from sourcebook.cli import exit_now
    from sourcebook.derive import derive_checked
    from sourcebook.pipeline import build, check
    from sourcebook.publish.site import SiteBuild

    started = time.perf_counter()
    if not ignore_errors:  # as `sourcebook build` does it
        done = build(root, out)
        checked, built = done.checked, done.site
        assert built is not None, "the record has errors: run with --ignore-errors"
        checked_at = time.perf_counter() - built.seconds
    else:  # the same stages, with check's errors set aside so that the site is measured
        checked = check(root)
        checked_at = time.perf_counter()
        assert checked.record is not None
        with SiteBuild(checked.record, checked.graph) as site:
            site.cite(checked.proofs)
            built = site.write(out, derive_checked(checked))
    done_at = time.perf_counter()
    errors = len(checked.diagnostics.errors)
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    figures = {
        "check": checked_at - started,
        "site": done_at - checked_at,
        "pages": built.pages,
        "errors": errors,
        "own_kib": own,
        "worker_kib": workers,
        "jobs": built.jobs,
        "index": built.search.seconds if built.search else 0.0,
        "indexed": built.search.pages + built.search.records if built.search else 0,
    }
    print(json.dumps(figures))
    exit_now(0)  # as `sourcebook build` ends: without freeing the record object by object


def run_sourcebook(root: Path, ignore_errors: bool, spare: bool = True) -> Run:
    """One `sourcebook build` of `root`; with `spare` False, as the first build beside the
    site is, with no spare to write into (every file made anew)."""
    out = OUT / f"{root.name}-site"
    if not spare:
        from sourcebook.publish.site.serving.swap import spare_of

        # Moved aside, not deleted: on some disks files freed just before are slow to make.
        if spare_of(out).exists():
            spare_of(out).rename(out.parent / f".{out.name}.set-aside-{time.time_ns()}")
    command = [sys.executable, __file__, "--child", str(root), str(out)]
    settled()
    started = time.perf_counter()
    done = subprocess.run(
        command + (["--ignore-errors"] if ignore_errors else []),
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise SystemExit(f"sourcebook build of {root.name} failed:\n{tail}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    # Workers are forked: what they share with the parent is counted twice, so this is
    # an upper bound on the memory the build held at once.
    peak = (figures["own_kib"] + figures["worker_kib"] * max(figures["jobs"] - 1, 0)) / 1024
    start = seconds - figures["check"] - figures["site"]
    detail = (
        f"start-up {start:.2f} s + check {figures['check']:.2f} s + site {figures['site']:.2f} s"
        f" in {figures['jobs']} process{'es' * (figures['jobs'] != 1)}"
        f", of which the search index {figures['index']:.2f} s ({figures['indexed']:,} pages"
        " and records)"
    )
    if figures["errors"]:
        detail += f"; check found {figures['errors']} errors (ignored for this measure)"
    return Run(seconds, figures["pages"], peak, detail, figures["site"])


# The Hugo side: the same pages, each listing the same backlinks.

HUGO_CONFIG = """\
baseURL = "https://example.org/vol1/"
title = "Bench"
disableKinds = ["taxonomy", "term", "RSS"]
[markup.goldmark.renderer]
unsafe = false
"""
HUGO_TWINS = """\
[outputs]
home = ["HTML", "JSON"]
section = ["HTML", "JSON"]
page = ["HTML", "JSON"]
"""
"""As sourcebook writes a JSON twin of each page, Hugo writes one too (its output formats)."""
HUGO_BASEOF = """\
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ .Title }} · Bench</title>
<meta name="description" content="{{ .Params.description }}">
<link rel="canonical" href="{{ .Permalink }}"></head>
<body><main>{{ block "main" . }}{{ end }}</main>
<nav><ul>{{ range .Site.Sections }}
<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul></nav>
</body></html>
"""
HUGO_SINGLE = """\
{{ define "main" }}<article><h1>{{ .Title }}</h1>{{ .Content }}
{{ range .Params.backlinks }}<section><h2>{{ .heading }}</h2><ul>
{{ range .items }}<li>{{ .label }} <a href="{{ .url }}">{{ .title }}</a></li>{{ end }}
</ul></section>{{ end }}</article>{{ end }}
"""
HUGO_LIST = """\
{{ define "main" }}<h1>{{ .Title }}</h1><ul>
{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}
</ul>{{ end }}
"""
HUGO_SINGLE_JSON = """\
{{- dict "title" .Title "url" .Permalink "body" .RawContent
    "backlinks" .Params.backlinks | jsonify -}}
"""
HUGO_LIST_JSON = """\
{{- $pages := slice -}}
{{- range .Pages }}{{ $pages = $pages | append (dict "title" .Title "url" .Permalink) }}{{ end -}}
{{- dict "title" .Title "url" .Permalink "pages" $pages | jsonify -}}
"""
HUGO_FILES = {
    "hugo.toml": HUGO_CONFIG + HUGO_TWINS,
    "html-only.toml": HUGO_CONFIG,
    "layouts/_default/baseof.html": HUGO_BASEOF,
    "layouts/_default/single.html": HUGO_SINGLE,
    "layouts/_default/list.html": HUGO_LIST,
    "layouts/_default/single.json": HUGO_SINGLE_JSON,
    "layouts/_default/list.json": HUGO_LIST_JSON,
}
HUGO_SECTIONS = {
    "term": "glossary",
    "chapter": "notes",
    "campus": "ledger",
    "test": "tests",
    "person": "people",
    "party": "parties",
}


def hugo_site(root: Path) -> Path:
    """Hugo content for the pages `sourcebook build` writes of `root`, with their backlinks."""
    from sourcebook.diagnostics import Diagnostics
    from sourcebook.link import link_record
    from sourcebook.link.backlinks import BacklinkIndex
    from sourcebook.read import read_record

    out = OUT / f"{root.name}-hugo"
    marker = out / STAMP
    made_from = (root / STAMP).read_text() + json.dumps(HUGO_FILES, sort_keys=True)
    if marker.is_file() and marker.read_text() == made_from:
        return out
    shutil.rmtree(out, ignore_errors=True)
    record = read_record(root, Diagnostics())
    assert record is not None
    backlinks = BacklinkIndex(record, link_record(record))
    for name, text in HUGO_FILES.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text, encoding="utf-8")
    for kind, section in HUGO_SECTIONS.items():
        folder = out / "content" / section
        folder.mkdir(parents=True)
        (folder / "_index.md").write_text(f"---\ntitle: {section}\n---\n", encoding="utf-8")
        for entity in record.of(kind):
            front = {"title": entity.title, "backlinks": _groups(backlinks(entity))}
            text = f"---\n{json.dumps(front, ensure_ascii=False)}\n---\n{entity.body}"
            (folder / f"{entity.id}.md").write_text(text, encoding="utf-8")
    marker.write_text(made_from)
    return out


def _groups(links) -> list[dict]:  # type: ignore[no-untyped-def]
    def item(entity) -> dict:  # type: ignore[no-untyped-def]
        section = HUGO_SECTIONS.get(entity.KIND, "sources")
        return {"label": entity.KIND, "title": entity.title, "url": f"/vol1/{section}/{entity.id}/"}

    groups = [
        ("Where the book uses it", links.book),
        ("Where the record uses it", links.record),
        ("Sources that use it", links.sources),
        ("Related terms", links.related),
    ]
    return [{"heading": h, "items": [item(e) for e in es]} for h, es in groups if es]


def run_hugo(site: Path, public: Path, config: str) -> Run:
    settled()
    started = time.perf_counter()
    process = subprocess.Popen(
        [HUGO or "hugo", "--quiet", "--source", str(site), "--config", config]
        + ["--destination", str(public)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"hugo failed: {process.stderr.read().decode() if process.stderr else ''}")
    pages = sum(1 for path in public.rglob("*") if path.suffix in (".html", ".json"))
    return Run(seconds, pages, usage.ru_maxrss / 1024)


def best_hugo(site: Path, repeat: int, config: str = "hugo.toml") -> Run:
    """Hugo's best time both ways it builds a site: over the public/ folder of its last
    run, as `hugo` does by default (every file truncated and written again), and into a
    new, empty folder (every file and folder made anew). Which is faster depends on the
    disk; the new folders are removed only after the timing."""
    runs = []
    fresh = []
    last = site / f"public-{Path(config).stem}"
    for i in range(repeat):
        runs.append(replace(run_hugo(site, last, config), detail="over its last public/"))
        fresh.append(site / f"public-new-{i}")
        shutil.rmtree(fresh[-1], ignore_errors=True)
        runs.append(replace(run_hugo(site, fresh[-1], config), detail="into an empty folder"))
    for folder in fresh:
        shutil.rmtree(folder, ignore_errors=True)
    return min(runs, key=lambda r: r.seconds)


def run_pagefind(public: Path) -> Run:
    """Pagefind indexing Hugo's pages, as a Hugo site gets its search: the same tool, the
    same binary, that `sourcebook build` runs over its own pages."""
    from sourcebook.publish.site.search.index import executable

    out = public.parent / "pagefind-out"
    shutil.rmtree(out, ignore_errors=True)
    settled()
    started = time.perf_counter()
    process = subprocess.Popen(
        [str(executable()), "--site", str(public), "--output-path", str(out), "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(
            f"pagefind failed: {process.stderr.read().decode() if process.stderr else ''}"
        )
    pages = sum(1 for _ in public.rglob("*.html"))
    shutil.rmtree(out, ignore_errors=True)
    return Run(seconds, pages, usage.ru_maxrss / 1024, "indexing Hugo's HTML pages")


def line(name: str, n: int, run: Run) -> str:
    rate = run.pages / run.seconds if run.seconds else 0.0
    text = (
        f"{name:<17} N={n:>6,}  {run.pages:>6,} pages  {run.seconds:6.2f} s  "
        f"{rate:7,.0f} pages/s  peak {run.peak_mib:5,.0f} MiB"
    )
    return f"{text}  ({run.detail})" if run.detail else text


def bench(n: int, seed: int, repeat: int, ignore_errors: bool) -> bool:
    root = record_dir(n, seed)
    first = run_sourcebook(root, ignore_errors, spare=False)
    print(line("sourcebook first", n, first), flush=True)
    ours = min(
        (run_sourcebook(root, ignore_errors) for _ in range(repeat)), key=lambda r: r.seconds
    )
    for aside in OUT.glob(f".{root.name}-site.set-aside-*"):
        shutil.rmtree(aside, ignore_errors=True)
    print(line("sourcebook build", n, ours), flush=True)
    if HUGO is None:
        print(f"hugo              N={n:>6,}  skipped: hugo is not installed (apt install hugo)")
        return ours.peak_mib < TARGET_PEAK_MIB
    site = hugo_site(root)
    theirs = best_hugo(site, repeat)
    print(line("hugo", n, theirs), flush=True)
    html_only = best_hugo(site, repeat, "html-only.toml")
    print(line("hugo, HTML only", n, html_only), flush=True)
    searched = run_pagefind(site / "public-html-only")
    print(line("pagefind on hugo", n, searched), flush=True)
    ratio = ours.seconds / theirs.seconds
    judged = n == TARGET_SIZE
    met = (ratio <= TARGET_RATIO or not judged) and ours.peak_mib < TARGET_PEAK_MIB
    aim = f"target ≤ {TARGET_RATIO:g}×" if judged else f"the target is at {TARGET_SIZE:,}"
    print(
        f"{'':<17} N={n:>6,}  {ratio:.2f}× Hugo's time ({aim}; the site "
        f"stage alone {ours.site_seconds / theirs.seconds:.2f}×; "
        f"{ours.seconds / html_only.seconds:.2f}× Hugo's without its JSON twins; "
        f"{ours.seconds / (theirs.seconds + searched.seconds):.2f}× Hugo's then Pagefind's, "
        f"as both sites then have a search index), "
        f"peak {ours.peak_mib:,.0f} MiB (target < {TARGET_PEAK_MIB:,} MiB): "
        f"{'met' if met else 'NOT met'}",
        flush=True,
    )
    return met


def main() -> None:
    as_installed()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=1, help="Best of R runs of each.")
    parser.add_argument("--ignore-errors", action="store_true")
    parser.add_argument("--child", nargs=2, metavar=("RECORD", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(Path(args.child[0]), Path(args.child[1]), args.ignore_errors)
        return
    results = [
        bench(int(n), args.seed, args.repeat, args.ignore_errors) for n in args.sizes.split(",")
    ]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
