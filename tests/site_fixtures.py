"""A small record of every kind, written file by file, for the site's tests.

It follows the exemplar page (the glossary entry "Cluster"): one term used by two
campuses, a scorecard row, a chapter and sources of every category.
"""

from __future__ import annotations

import re
import textwrap
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest

SETTINGS = """\
[book]
title = "The AI Compute Race"
subtitle = "Five Races, One Machine"
author = "Lee S. Dryburgh"
house = "DRYBURGH"
publisher = "Dryburgh, an imprint of Contestra OÜ, Tallinn, Estonia"
series = "The Compute Economy"
volume = 1
closes = 2026-11-08
licence = "CC-BY-4.0"

[site]
base_url = "https://dryburgh.com"
base_path = "/vol1"
book_url = "https://dryburgh.com/vol1#buy"
series_corrections_url = "https://dryburgh.com/corrections?book=vol1"
"""

FILES = {
    "chapters/chapter-1.md": """\
        ---
        title: The Stakes
        number: 1
        summary: What the race is for, and what a trillion dollars a year is bet against.
        ---
        The race is run one cluster at a time [@sa-essay, p. 81].

        # What the notes rest on

        See [[colossus-2]] and [[party:xai|Musk's company]].
        """,
    "chapters/chapter-2.md": """\
        ---
        title: The Machine
        number: 2
        summary: How one machine is made of many.
        ---
        """,
    "terms/cluster.md": """\
        ---
        title: Cluster
        definition: A datacenter’s worth of chips wired to work as one machine.
        chapters: [chapter-1]
        related: [one-machine]
        ---
        """,
    "terms/one-machine.md": """\
        ---
        title: One machine
        definition: Many chips that train a single model together, as if they were one.
        chapters: [chapter-2]
        ---
        A cluster is built to be one machine.
        """,
    "campuses/colossus-2.md": """\
        ---
        title: Colossus 2
        location: Memphis, Tennessee
        country: US
        status: under construction
        parties:
          - party: xai
            roles: [owner, operator]
            source: supermicro-colossus-case
        figures:
          - metric: it-power
            value: 200
            unit: MW
            status: operating
            as_of: 2026-09
            grade: reported
            source: bloomberg-moonshot-alibaba-jul26
          - metric: chips
            value: 200000
            unit: chips
            chip: H100
            status: operating
            as_of: 2026-06
            grade: claimed
        ---
        The second cluster in Memphis.
        """,
    "campuses/stargate-uae.md": """\
        ---
        title: Stargate UAE
        location: Abu Dhabi
        country: AE
        status: announced
        ---
        A one-gigawatt cluster, announced.
        """,
    "indicators/largest-evidenced-operating-site.md": """\
        ---
        title: Largest evidenced operating site
        row: 11
        description: The largest cluster whose operation is evidenced, not claimed.
        ---
        """,
    "tests/gigawatt-by-2027.md": """\
        ---
        title: A gigawatt by 2027
        claim: One campus will run a gigawatt of IT power by the end of 2027.
        deadline: 2027-12-31
        rule: Met when a documented or observed figure says so.
        chapter: chapter-2
        ---
        """,
    "people/patrick-kennedy.md": """\
        ---
        title: Patrick Kennedy
        role: Editor of ServeTheHome
        affiliations: [servethehome]
        ---
        """,
    "people/leopold-aschenbrenner.md": """\
        ---
        title: Leopold Aschenbrenner
        role: Author of an essay on the decade ahead
        ---
        """,
    "people/mackenzie-hawkins.md": """\
        ---
        title: Mackenzie Hawkins
        ---
        """,
    "people/haze-fan.md": """\
        ---
        title: Haze Fan
        ---
        """,
    "parties/xai.md": """\
        ---
        title: xAI
        type: company
        url: https://x.ai
        ---
        """,
    "parties/servethehome.md": """\
        ---
        title: ServeTheHome
        type: publisher
        ---
        """,
    "parties/bloomberg.md": """\
        ---
        title: Bloomberg
        type: publisher
        ---
        """,
    "parties/alibaba.md": """\
        ---
        title: Alibaba
        type: company
        ---
        """,
    "parties/semianalysis.md": """\
        ---
        title: SemiAnalysis
        type: research
        sells: subscriptions, consulting and its own models of chip supply
        ---
        """,
    "sources/supermicro-colossus-case.md": """\
        ---
        title: Inside the 100K GPU xAI Colossus Cluster that Supermicro Helped Build
        category: company
        authors: [patrick-kennedy]
        publisher: servethehome
        date: 2024-10-28
        reprint: reprinted by Supermicro as a case study, December 2024
        sponsor: Supermicro
        urls: [https://www.servethehome.com/inside-100000-nvidia-gpu-xai-colossus/]
        annotation: >-
          A walk through the site: 64 H100s to a rack, and “the initial cluster of four
          25,000 GPU data halls is up and running”.
        ---
        """,
    "sources/sa-essay.md": """\
        ---
        title: "Situational Awareness: The Decade Ahead"
        category: other
        italic_title: true
        authors: [leopold-aschenbrenner]
        date: 2024-06
        annotation: Chapter IIIa, “Racing to the Trillion-Dollar Cluster”, sets out a ladder.
        ---
        """,
    "sources/bloomberg-moonshot-alibaba-jul26.md": """\
        ---
        title: Moonshot’s Kimi Uses 20,000 Nvidia Chip Cluster From Alibaba
        category: press
        authors: [mackenzie-hawkins, haze-fan]
        publisher: bloomberg
        date: 2026-07-31
        updated: 2026-07-31
        disputed_by: [alibaba]
        annotation: The chips “are from Nvidia’s earlier generation of Hopper products”.
        ---
        """,
    "sources/semianalysis-btm-sep26.md": """\
        ---
        title: What is So Hard About Behind-The-Meter Power For Datacenters? Part 1
        category: research
        publisher: semianalysis
        date: 2026-09-10
        read: The free portion of a paid post.
        annotation: Of a cluster’s power, “3GW of Datacenter IT capacity is already running”.
        ---
        """,
    "corrections/colossus-date.md": """\
        ---
        title: When Colossus 2 reached 200 MW
        scope: book
        date: 2026-10-01
        chapter: chapter-1
        wrong: The book gave August.
        right: It was September.
        source: bloomberg-moonshot-alibaba-jul26
        ---
        """,
    "corrections/semianalysis-doubled-word.md": """\
        ---
        title: A doubled word
        scope: source
        date: 2026-10-02
        source: semianalysis-btm-sep26
        wrong: “only for for behind-the-meter”
        right: The post doubles a word; the record quotes it as it stands.
        ---
        """,
}


def write_record(root: Path, files: dict[str, str] | None = None, settings: str = SETTINGS) -> Path:
    """Write the small record (with `files` added or replacing its own) into `root`."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "sourcebook.toml").write_text(settings, encoding="utf-8")
    for name, text in {**FILES, **(files or {})}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


# Reading a built site as a crawler would.

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta"}
VOID |= {"source", "track", "wbr"}


class PageReader(HTMLParser):
    """Collects a page's links and ids, and every way in which it is not well-formed."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: list[str] = []
        self.problems: list[str] = []
        self.stack: list[str] = []
        self.doctype = False

    def handle_decl(self, decl: str) -> None:
        self.doctype = self.doctype or decl.lower() == "doctype html"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = [name for name, _ in attrs]
        if len(names) != len(set(names)):
            self.problems.append(f"<{tag}> repeats an attribute")
        values = dict(attrs)
        if values.get("id"):
            self.ids.append(values["id"] or "")
        for name in ("href", "src", "action"):  # a form's action leads to a page too
            if values.get(name) is not None:
                self.links.append(values[name] or "")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # Inside <svg> (foreign content) any element may close itself, as in XML.
        if tag not in VOID and "svg" not in self.stack:
            self.problems.append(f"<{tag}/> is not a void element")
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            self.problems.append(f"</{tag}> closes a void element")
        elif not self.stack or self.stack[-1] != tag:
            self.problems.append(
                f"</{tag}> does not close <{self.stack[-1] if self.stack else ''}>"
            )
            if tag in self.stack:
                del self.stack[len(self.stack) - 1 - self.stack[::-1].index(tag) :]
        else:
            self.stack.pop()

    def finish(self) -> list[str]:
        self.close()
        problems = list(self.problems)
        if not self.doctype:
            problems.append("no <!DOCTYPE html>")
        if self.stack:
            problems.append(f"left open: {self.stack}")
        repeated = sorted({i for i in self.ids if self.ids.count(i) > 1})
        if repeated:
            problems.append(f"ids used twice: {repeated}")
        return problems


def read_page(path: Path) -> PageReader:
    reader = PageReader()
    reader.feed(path.read_text(encoding="utf-8"))
    return reader


def file_for(site: Path, url_path: str) -> Path | None:
    """The file a static host serves at `url_path` (as `sourcebook serve` does): a folder's
    index.html, at its URL with a trailing slash or (redirected there) without one."""
    target = site / url_path.lstrip("/")
    if url_path.endswith("/"):
        candidates = [target / "index.html"]
    else:
        candidates = [target, target / "index.html"]
    return next((c for c in candidates if c.is_file()), None)


def crawl(site: Path, start: str) -> tuple[set[str], list[str]]:
    """Follow every internal link from `start`; (pages reached, problems found).

    A problem is a link to nothing, an anchor that is not on its page, or a page that is
    not well-formed HTML. Every HTML file in the folder is also read, reached or not.
    """
    problems: list[str] = []
    readers: dict[Path, PageReader] = {}
    for path in sorted(site.rglob("*.html")):
        readers[path] = read_page(path)
        problems += [f"{path.relative_to(site)}: {p}" for p in readers[path].finish()]
    seen: set[str] = set()
    queue = [start]
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        path = file_for(site, url)
        if path is None or path.suffix != ".html":
            continue
        for link in readers[path].links:
            problems += _follow(site, url, link, readers, queue)
    return seen, problems


def _follow(
    site: Path, page: str, link: str, readers: dict[Path, PageReader], queue: list[str]
) -> list[str]:
    parts = urlsplit(urljoin(page, link))
    if link.startswith(("http://", "https://", "mailto:", "data:")) or parts.netloc:
        return []
    target = file_for(site, parts.path)
    if target is None:
        return [f"{page}: broken link {link}"]
    if target.suffix == ".html":
        queue.append(parts.path)
        if parts.fragment and parts.fragment not in readers[target].ids:
            return [f"{page}: no #{parts.fragment} on {parts.path}"]
    return []


def build(root: Path, out: Path | None = None, **options: object) -> Path:
    """Check and build the record at `root`; the site's folder."""
    from sourcebook.pipeline import build_site, check

    checked = check(root)
    assert checked.ok, [d.format() for d in checked.diagnostics.errors]
    target = out or root / "_site"
    build_site(checked, target, **options)  # type: ignore[arg-type]
    return target


def page(site: Path, url_path: str) -> str:
    found = file_for(site, url_path)
    assert found is not None, f"no page at {url_path}"
    return found.read_text(encoding="utf-8")


# Serving a built site and driving a browser through it.

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


@contextmanager
def serving(site: Path, base_path: str = "/vol1") -> Iterator[str]:
    """The built site served on 127.0.0.1 at a free port, in a thread; yields its origin."""
    from sourcebook.publish.site.serving.serve import make_server

    server = make_server(site, "127.0.0.1", 0, base_path)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.url
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def chromium() -> Iterator[Any]:
    """Debian's Chromium, headless, through Playwright; skips where either is missing."""
    if not CHROMIUM.exists():
        pytest.skip("the browser tests need Debian's chromium at /usr/bin/chromium")
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def local_only(context: Any, origin: str) -> list[str]:
    """Refuse every request that leaves the test server; the list of those refused."""
    refused: list[str] = []

    def route(route: Any) -> None:
        if route.request.url.startswith(origin) or route.request.url.startswith("data:"):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    context.route("**/*", route)
    return refused


def landed_at(url: str) -> re.Pattern[str]:
    """`url` as the browser shows it once there: a static host answers a page's bare URL
    with a redirect to its folder, `/vol1/glossary` to `/vol1/glossary/`."""
    path, sep, rest = url.partition("?") if "?" in url else url.partition("#")
    return re.compile(re.escape(path.rstrip("/")) + "/?" + re.escape(sep + rest) + "$")
