#!/usr/bin/env python3
"""What the search index costs a build, made whole and after a one-file edit, and what its
buckets find against one index of the same pages.

    python bench/bench_search.py [--sizes 10000] [--seed 0]

On the record bench_site.py generates (bench/out/site-n<N>-seed<S>/, reused), copied
aside so that its edits touch nothing else: a build with the state folder removed (every
bucket of the index made, and the lexicon's parts), then one index of the same pages made
by the same Pagefind (the buckets forced to one, as a site under 1,000 pages has it), then
a sentence appended to one glossary term and the record built again (only the buckets and
lexicon's parts whose words changed made). One line each: the build's seconds, the
index's seconds, the pages and records given to Pagefind, the buckets and parts made.

Then each of `QUERIES` is searched in Debian's Chromium, through the search page's own
script (`search.js`, `window.sourcebookSearch`), in a page of its own (Pagefind keeps the
chunks of its index that a search loaded, and what they hold can change what the next
search finds), once on the buckets and once on the one index: the pages each found, and
those found by one and not the other. Each build runs in a fresh process, as `sourcebook
build` does.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench_site import OUT, record_dir
from installed import as_installed

QUERIES = [
    "cooling",
    "cooling water",
    "cooling eastwater",
    "power saltwater",
    "eastwater",
    "winterwater campus",
    "gigawatt cooling",
    "substation transformer",
    "coolant chiller manifold",
    "interconnect queue backlog",
    "grid-tied battery storage",
    "Texas",
    "Ohio campus",
    "andromeda",
    "anvil glenland",
    "abbott partners",
    "ada adler",
    "correction",
    "turbines",
    "coo",
    "cooling watr",
    "zzyzx cooling",
    '"power purchase"',
]
"""Words of the generated prose, names of its entities, pairs and threes of them, a word
found in few buckets beside one found in all, a prefix, a slip, a word found nowhere."""

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
            made=index.made, buckets=index.buckets, parts=index.parts,
            parts_made=index.parts_made,
        )
    job = done.site.search_job if done.site is not None else None
    if len(sys.argv) > 3 and job is not None:  # one index of the same pages, beside
        import os, shutil
        from sourcebook.publish.site.search import buckets
        single = Path(sys.argv[3])
        shutil.rmtree(single, ignore_errors=True)
        shutil.copytree(
            Path(sys.argv[2]), single, copy_function=os.link,
            ignore=lambda folder, names: ["pagefind"] if folder.endswith("vol1") else [],
        )
        buckets.MOST_BUCKETS = 1
        one = job.run(single, single)
        figures["single"] = one.seconds
    print(json.dumps(figures))
"""


def timed(root: Path, out: Path, single: Path | None = None) -> dict[str, Any]:
    command = [sys.executable, "-c", CHILD, str(root), str(out)]
    done = subprocess.run(
        command + ([str(single)] if single is not None else []),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"the build failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def line(name: str, n: int, figures: dict[str, Any]) -> str:
    if figures["index"] is None:
        return f"{name:<28} N={n:>6,}  build {figures['whole']:6.2f} s  no index made"
    return (
        f"{name:<28} N={n:>6,}  build {figures['whole']:6.2f} s  index {figures['index']:5.2f} s"
        f"  ({figures['pages']:,.0f} pages and {figures['records']:,.0f} records to Pagefind,"
        f" {figures['made']:.0f} of {figures['buckets']:.0f} buckets and"
        f" {figures['parts_made']:.0f} of {figures['parts']:.0f} lexicon parts made)"
    )


FIND = """async (query) => {
  const status = document.querySelector(".search-status");
  while (status.textContent.startsWith("Loading")) {
    await new Promise((done) => setTimeout(done, 20));
  }
  const results = (await window.sourcebookSearch.find(query)).results;
  const urls = [];
  for (let i = 0; i < results.length; i += 100) {
    const data = await Promise.all(results.slice(i, i + 100).map((r) => r.data()));
    urls.push(...data.map((d) => d.url));
  }
  return urls;
}"""


def searched(site: Path, queries: list[str]) -> dict[str, set[str]]:
    """The URLs each query finds on the site, each in a page of its own."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from site_fixtures import chromium, serving

    found = {}
    with chromium() as browser, serving(site) as origin:
        for query in queries:
            page = browser.new_page()
            page.goto(f"{origin}/vol1/search")
            found[query] = set(page.evaluate(FIND, query))
            page.close()
    return found


def compared(buckets: dict[str, set[str]], single: dict[str, set[str]]) -> int:
    """Print each query's pages found; the number of queries whose pages differ."""
    differ = 0
    heads = ("buckets", "one index", "only in buckets", "only in one")
    print(f"{'query':<30} " + " ".join(f"{head:>15}" for head in heads))
    for query in buckets:
        ours, one = buckets[query], single[query]
        differ += ours != one
        counts = (len(ours), len(one), len(ours - one), len(one - ours))
        print(f"{query:<30} " + " ".join(f"{count:>15,}" for count in counts))
    return differ


def main() -> int:
    as_installed()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for n in (int(size) for size in args.sizes.split(",")):
        root = OUT / f"search-n{n}-seed{args.seed}"
        out = OUT / f"search-n{n}-seed{args.seed}-site"
        single = OUT / f"search-n{n}-seed{args.seed}-single"
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(record_dir(n, args.seed), root, ignore=shutil.ignore_patterns("_site"))
        shutil.rmtree(root / ".sourcebook-cache", ignore_errors=True)
        whole = timed(root, out, single)
        print(line("build, the whole index", n, whole), flush=True)
        print(f"{'one index of the same pages':<28} N={n:>6,}  index {whole['single']:5.2f} s")
        differ = compared(searched(out, QUERIES), searched(single, QUERIES))
        print(f"queries whose pages differ: {differ} of {len(QUERIES)}", flush=True)
        term = sorted((root / "terms").glob("*.md"))[0]
        term.write_text(term.read_text() + "\nA sentence with the marker quartzwhistle.\n")
        print(line("build after a one-file edit", n, timed(root, out)), flush=True)
        shutil.rmtree(single, ignore_errors=True)
    os.sync()
    return 0


if __name__ == "__main__":
    sys.exit(main())
