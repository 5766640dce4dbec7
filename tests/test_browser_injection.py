"""Script injection in every field of a record: in the browser, none of it runs.

Each payload, if it ran, would set `window.__injected` or open a dialog. Every page of
the built site is loaded in Chromium; then neither may have happened, and no element
may carry an event-handler attribute, a `javascript:` link or a script of the record's.
The pages' Content-Security-Policy would block inline script anyway, so the DOM is also
checked: the payloads must arrive as text, not as markup.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from site_fixtures import build, local_only, serving

pytestmark = pytest.mark.browser

TAG = "<script>window.__injected=1</script>"
ATTRIBUTE = '"><img src=x onerror="window.__injected=1;alert(1)">'
CLOSE = "</script><script>window.__injected=1</script>"
SVG = "<svg onload=alert(1)>"
TEMPLATE = "{{ 7*191 }}{% raw %}"
TEXT = f"Word {TAG} {ATTRIBUTE} {CLOSE} {SVG} {TEMPLATE}"
LINK = f"https://example.org/{ATTRIBUTE}"
"""A web address check accepts, written to break out of the attribute it goes in; URL
fields that are not http(s) or mailto are refused by check (tests/test_hostile_urls.py)."""
MARKDOWN = (
    f"{TEXT}\n\n[click](javascript:window.__injected=1) ![i](javascript:alert(1)) "
    "<javascript:alert(1)> [x](data:text/html,<script>alert(1)</script>) "
    '<img src=x onerror="alert(1)"> <a href="javascript:alert(1)">a</a>\n\n'
    "[tab](<java\tscript:window.__injected=1>) [entity](java&#9;script:alert(1)) "
    "[line](java&#10;script:alert(1)) [return](java&#13;script:alert(1)) "
    "[control](&#1;javascript:alert(1)) [space](< javascript:alert(1)>) "
    "<java\tscript:alert(1)> [nul](java&#0;script:alert(1))\n\n"
    "[ref]\n\n[ref]: javascript:alert(1)"
)


def y(value: str) -> str:
    """A YAML scalar holding `value` exactly."""
    return json.dumps(value)


def record_files() -> dict[str, str]:
    t = y(TEXT)
    return {
        "chapters/chapter-1.md": (
            f"---\ntitle: {y('Chapter ' + TEXT)}\nnumber: 1\nsummary: {t}\n---\n{MARKDOWN}\n"
        ),
        "terms/word.md": (
            f"---\ntitle: {y('Word ' + TAG)}\naliases: [{y('Alias ' + ATTRIBUTE)}]\n"
            f"definition: {t}\nchapters: [chapter-1]\n---\n{MARKDOWN}\n"
        ),
        "campuses/site.md": (
            f"---\ntitle: {y('Site ' + ATTRIBUTE)}\nlocation: {t}\ncountry: {y(SVG)}\n"
            "status: operating\nparties:\n"
            f"  - party: maker\n    roles: [owner]\n    note: {t}\n    source: paper\n"
            f"figures:\n  - metric: {y('power ' + TAG)}\n    value: 10\n    unit: MW\n"
            f"    chip: {t}\n    status: operating\n    as_of: 2026-01\n    grade: reported\n"
            f"    source: paper\n    note: {t}\n    method: {t}\n    qualifier: {y(TAG)}\n"
            f"  - metric: {y('power ' + TAG)}\n    value: 30\n    unit: MW\n"
            "    status: operating\n    as_of: 2026-06\n    grade: reported\n"
            f"    source: paper\n    quote: {y('30 MW ' + TEXT)}\n"
            f"---\n{MARKDOWN}\n"
        ),
        "scenarios/futures.md": (
            f"---\ntitle: {y('Site: ' + TEXT)}\ncampus: site\nstart: 2026\nend: 2028\n"
            "power_per_chip: per-chip\ncost_per_power: cost\nparameters:\n"
            f"  - id: per-chip\n    title: {t}\n    value: 1\n    unit: kW/H100e\n"
            f"    source: paper\n    quote: {t}\n    note: {t}\n"
            f"  - id: cost\n    title: {t}\n    value: 10\n    unit: billion USD/GW\n"
            "    source: paper\n"
            f"  - id: revenue\n    title: {t}\n    value: 5\n    unit: billion USD/GW/year\n"
            "    source: paper\n"
            f"  - id: ramp\n    title: {t}\n    value: 1\n    unit: GW\n    year: 2027\n"
            "    source: paper\n"
            f"futures:\n  - id: one\n    title: {y('Future ' + TAG)}\n    summary: {t}\n"
            "    ramp: [ramp]\n    revenue: revenue\n"
            f"---\n{MARKDOWN}\n"
        ),
        "indicators/row.md": (
            f"---\ntitle: {y('Row ' + CLOSE)}\nrow: 1\ndescription: {t}\n---\n{MARKDOWN}\n"
        ),
        "tests/claim.md": (
            f"---\ntitle: {y('Claim ' + TAG)}\nclaim: {t}\ndeadline: 2027-01-01\nrule: {t}\n"
            f"chapter: chapter-1\n---\n{MARKDOWN}\n"
        ),
        "sources/paper.md": (
            f"---\ntitle: {y('Paper ' + ATTRIBUTE)}\ncategory: press\nauthors: [writer]\n"
            f"publisher: maker\npublication: {t}\ndate: 2026-01-02\n"
            f"urls: [{y(LINK)}, {y('https://example.org/' + ATTRIBUTE)}]\nreprint: {t}\n"
            f"annotation: {t}\nread: {t}\nsponsor: {t}\ndisputed_by: [maker]\n---\n{MARKDOWN}\n"
        ),
        "people/writer.md": (
            f"---\ntitle: {y('Writer ' + SVG)}\nrole: {t}\nurl: {y(LINK)}\n"
            f"affiliations: [maker]\n---\n{MARKDOWN}\n"
        ),
        "parties/maker.md": (
            f"---\ntitle: {y('Maker ' + CLOSE)}\ntype: company\nsells: {t}\nurl: {y(LINK)}\n"
            f"---\n{MARKDOWN}\n"
        ),
        "corrections/wrong.md": (
            f"---\ntitle: {y('Wrong ' + TAG)}\nscope: book\ndate: 2026-02-01\n"
            f"chapter: chapter-1\nsource: paper\nwrong: {t}\nright: {t}\n---\n{MARKDOWN}\n"
        ),
        "corrections/source-wrong.md": (
            f"---\ntitle: {y('Source wrong ' + SVG)}\nscope: source\ndate: 2026-02-01\n"
            f"source: paper\nwrong: {t}\nright: {t}\n---\n{MARKDOWN}\n"
        ),
    }


SETTINGS = f"""\
[book]
title = {y("Book " + TAG)}
subtitle = {y(ATTRIBUTE)}
author = {y(CLOSE)}
house = {y(SVG)}
publisher = {y(TEXT)}
series = {y(TEMPLATE)}
closes = 2026-11-08
licence = "CC-BY-4.0"

[site]
base_url = {y("https://example.org/" + ATTRIBUTE)}
base_path = "/vol1"
book_url = {y(LINK)}
notify_url = {y(LINK)}
series_corrections_url = {y(LINK)}
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("injected") / "record"
    root.mkdir()
    (root / "sourcebook.toml").write_text(SETTINGS, encoding="utf-8")
    for name, text in record_files().items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    released = subprocess.run(
        [sys.executable, "-m", "sourcebook", "release", "v1", str(root), "-q"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert released.returncode == 0, released.stdout + released.stderr
    return build(root)


OWN_SCRIPTS = {"/vol1/static/site.js"}
DOM_CHECK = """() => {
  const bad = [];
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      if (attr.name.startsWith('on')) bad.push(el.tagName + ' ' + attr.name);
      const value = attr.value.trim().toLowerCase();
      if (['href', 'src', 'action', 'formaction'].includes(attr.name)) {
        // The scheme as the browser itself reads it, tabs, breaks and controls removed.
        const protocol = attr.name === 'href' && el.protocol !== undefined ? el.protocol : '';
        const stripped = value.replace(/[\u0000-\u0020]/g, '');
        if (protocol === 'javascript:' || stripped.startsWith('javascript:')) {
          bad.push(el.tagName + ' ' + attr.value);
        }
      }
    }
  }
  for (const s of document.scripts) {
    if (s.src) {
      const own = ['/vol1/static/site.js', '/vol1/static/search.js'];
      if (!own.some((name) => s.src.endsWith(name))) bad.push('script ' + s.src);
    }
    else if (!['application/ld+json', 'application/json'].includes(s.type)) {
      bad.push('inline script');
    }
  }
  for (const tag of ['iframe', 'object', 'embed', 'img']) {
    if (document.getElementsByTagName(tag).length) bad.push(tag);
  }
  // The only SVG is the build's own charts and the machine's drawing, and nothing in
  // them runs; the drawing's links lead only to the site's own pages.
  for (const svg of document.getElementsByTagName('svg')) {
    if (!['chart', 'machine'].includes(svg.getAttribute('class'))) bad.push('svg');
  }
  const inside = document.querySelectorAll('svg script, svg foreignObject, svg.chart a');
  if (inside.length) bad.push('svg content');
  for (const a of document.querySelectorAll('svg.machine a')) {
    const href = a.getAttribute('href') || '';
    if (!href.startsWith('/') || href.startsWith('//')) bad.push('svg link ' + href);
  }
  return bad;
}"""


def test_no_payload_runs_on_any_page(browser: Any, site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 20
    with serving(site) as origin:
        context = browser.new_context()
        refused = local_only(context, origin)
        page = context.new_page()
        dialogs: list[str] = []
        errors: list[str] = []
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.on("pageerror", lambda error: errors.append(str(error)))
        for path in pages:
            url = "/" + path.relative_to(site).as_posix().removesuffix(".html")
            url = url.removesuffix("/index").replace("/index", "/") or "/"
            page.goto(origin + url)
            if url == "/":  # the host's root sends the reader on to the book, by a refresh
                page.wait_for_url(f"{origin}/vol1/")
            for link in page.locator("a.term").all()[:3]:
                link.hover()
                link.focus()
            assert page.evaluate("window.__injected") is None, url
            assert page.evaluate(DOM_CHECK) == [], url
            html = page.content()
            assert "1337" not in html, f"{url}: a record string was run as a template"
        # Search shows the record's strings in its hits, and the previews in their boxes.
        page.goto(f"{origin}/vol1/search?q=word")
        page.locator(".search-result").first.wait_for()
        page.goto(f"{origin}/vol1/ledger")
        page.locator("main a[href='/vol1/ledger/site']").hover()
        page.locator("#preview_").wait_for(state="visible")
        assert TAG in page.locator("#preview_").inner_text()
        assert page.evaluate("window.__injected") is None
        assert page.evaluate(DOM_CHECK) == []
        context.close()
    assert dialogs == []
    assert errors == []
    assert refused == [] or all("example.org" in r for r in refused)


def test_payloads_arrive_as_text(site: Path) -> None:
    html = (site / "vol1" / "glossary" / "word" / "index.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;window.__injected=1&lt;/script&gt;" in html
    assert "<script>window.__injected" not in html
    assert "{{ 7*191 }}" in html
    previews = json.loads((site / "vol1" / "previews.json").read_text(encoding="utf-8"))
    kind, title, line, names = previews["/vol1/glossary/word"]
    assert kind == "Term" and "<script>window.__injected=1</script>" in title + line
    assert title in names  # search matches it as text, and shows it as text


def test_the_payloads_reach_charts_futures_and_the_data_page(site: Path) -> None:
    campus = (site / "vol1/ledger/site/index.html").read_text(encoding="utf-8")
    assert '<svg class="chart"' in campus
    futures = (site / "vol1/futures/index.html").read_text(encoding="utf-8")
    assert futures.count('<svg class="chart"') == 2 and "Future &lt;script&gt;" in futures
    assert (site / "vol1/data/releases/index.html").is_file()
