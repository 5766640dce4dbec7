"""What the site concludes, read as a reader reads it: no markup printed as text, computed
values said in prose as the pages that compute them say them (and changed by a correction
or an earlier day), and the house's front page counting its proven quotes."""

from __future__ import annotations

import io
import re
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import BUNDLED, run
from site_fixtures import build, page

from sourcebook.link.prose import embeds

MARKUP = ("[[", "[@", "**")


class _Shown(HTMLParser):
    """Everything a page shows or says of itself: its text and its attributes' values."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.said: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.said += [value for _, value in attrs if value]

    def handle_data(self, data: str) -> None:
        self.said.append(data)


def shown(html: str) -> str:
    reader = _Shown()
    reader.feed(html)
    return "\n".join(reader.said)


def text_of(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def test_no_page_of_the_bundled_site_prints_markup(bundled_site: Path) -> None:
    printed = {
        str(path.relative_to(bundled_site)): mark
        for path in bundled_site.rglob("*.html")
        for mark in MARKUP
        if mark in shown(path.read_text(encoding="utf-8"))
    }
    assert printed == {}


def test_a_sources_read_is_rendered_as_prose(bundled_site: Path) -> None:
    html = page(bundled_site, "/vol1/sources/press")
    start = html.index('id="geotv-amazon-rainier-trainium"')
    citation = html[start : html.index("</li>", start)] if "</li>" in html[start:] else html
    assert "quotes keep them as printed [<a" in citation  # brackets inside the note’s parentheses
    assert 'href="/vol1/corrections/sources#geotv-rainier-misspelt"' in citation


def computed_in(html: str) -> list[tuple[str, str]]:
    """(href, words) of each computed value a page says."""
    found = re.findall(r'<a class="computed" href="([^"]+)">([^<]*)</a>', html)
    return [(href, unescape(words)) for href, words in found]


def test_the_papers_computed_values_are_the_scorecards_and_the_ledgers(bundled_site: Path):
    paper = page(bundled_site, "/vol1/paper")
    said = computed_in(paper)
    body = (BUNDLED / "papers" / "the-race-at-the-close.md").read_text(encoding="utf-8")
    values = [e for e in embeds(body) if e.kind != "chart"]  # a chart's line is a figure
    assert len(said) == len(values)  # the summary's among them, in the page's lede
    scorecard = page(bundled_site, "/vol1/scorecard")
    for href, words in said:
        if "#row-" in href:
            row = href.split("#", 1)[1]
            item = scorecard[scorecard.index(f'<li id="{row}"') :]
            item = item[: item.index("</li>")]
            value = re.search(r'<span class="value">([^<]*)</span>', item)
            at = re.search(r'<span class="at">at <a [^>]*>([^<]*)</a>', item)
            assert words in {unescape(value[1]) if value else "", at[1] if at else ""}, href
        elif "#figure-" in href:
            campus = page(bundled_site, href.split("#", 1)[0])
            assert (
                f'data-measure="power" data-figure="{href.split("#figure-")[1]}">{words}<' in campus
            )
    assert ("/vol1/scorecard#row-11", "500 MW") in said
    assert ("/vol1/ledger/colossus-1#figure-campus:colossus-1:4", "150 MW") in said


def test_the_paper_tells_the_corrected_figure_as_the_sources_and_linked(bundled_site: Path):
    text = text_of(page(bundled_site, "/vol1/paper"))
    assert "its builder" not in text
    assert "half a gigawatt" not in text and "about a gigawatt evidenced" not in text
    line = text[text.index("The first Colossus shows how a slip travels") :]
    line = line[: line.index("Where a source has erred")]
    assert "wrote that it “reached 300 MW of capacity in only 122 days" in line
    assert "Colossus 1 did not have 300 MW after its first 122 days" in line  # the correction


def test_the_papers_pdf_says_the_computed_values(bundled_site: Path) -> None:
    from pypdf import PdfReader

    pdf = PdfReader(io.BytesIO((bundled_site / "vol1" / "paper.pdf").read_bytes()))
    text = " ".join(" ".join(p.extract_text().split()) for p in pdf.pages)
    assert (
        "is Hyperion, at 5 GW; the largest evidenced as running is Prometheus, at 500 MW." in text
    )
    assert "850 MW evidenced as running" in text
    assert "![[" not in text and "[[" not in text


RECORD = {
    "sources/report.md": """\
        ---
        title: A trade report
        category: press
        date: "2025-10-01"
        ---
        """,
    "sources/visit.md": """\
        ---
        title: A visit
        category: press
        date: "2024-09-01"
        ---
        """,
    "campuses/hall.md": """\
        ---
        title: The Hall
        location: Memphis
        country: US
        status: operating
        figures:
          - metric: it-power
            value: 150
            unit: MW
            status: operating
            as_of: 2024-08
            grade: reported
            source: visit
            quote: the hall runs 150 MW
          - id: hall-300
            metric: it-power
            value: 300
            unit: MW
            status: operating
            as_of: 2025-09
            grade: reported
            source: report
            quote: the hall reached 300 MW
        ---
        """,
    "indicators/largest.md": """\
        ---
        title: Largest evidenced operating site
        row: 1
        description: The largest site the evidence shows running.
        query: |
          SELECT watts / 1e6 AS value, 'MW' AS unit, figure FROM campus_power
          ORDER BY watts DESC LIMIT 1
        ---
        """,
    "papers/paper.md": """\
        ---
        title: The paper
        date: 2026-11-08
        summary: The largest site runs ![[indicator:largest]].
        ---
        # Findings

        The Hall runs ![[campus:hall|power]], at ![[indicator:largest|campus]]; it is
        ![[campus:hall|stage]].
        """,
}

CORRECTION = """\
---
title: The Hall did not reach 300 MW
scope: source
date: "2026-10-20"
source: report
corrects: [hall-300]
wrong: The Hall “reached 300 MW” [@report].
right: It runs 150 MW.
---
"""


@pytest.fixture
def small(make_record):
    return lambda extra=None: make_record({**RECORD, **(extra or {})})


def said_by(site: Path) -> list[str]:
    return [words for _, words in computed_in(page(site, "/vol1/paper"))]


def test_a_computed_value_follows_a_correction_everywhere(small, tmp_path: Path) -> None:
    before = build(small(), tmp_path / "before")
    assert said_by(before) == ["300 MW", "300 MW", "The Hall", "operating"]
    description = re.search(
        r'<meta name="description" content="([^"]*)"', page(before, "/vol1/paper")
    )
    assert description and description[1] == "The largest site runs 300 MW."
    root = small({"corrections/hall-300mw.md": CORRECTION})
    after = build(root, tmp_path / "after")
    assert said_by(after) == ["150 MW", "150 MW", "The Hall", "operating"]


def test_a_computed_value_as_of_an_earlier_day(small, tmp_path: Path) -> None:
    root = small()
    done = run("build", str(root), "-q", "--as-of", "2025-01-31", "-o", str(tmp_path / "then"))
    assert done.returncode == 0, done.stderr
    assert said_by(tmp_path / "then") == ["150 MW", "150 MW", "The Hall", "operating"]


def test_a_computed_value_with_nothing_computed_says_so(small, tmp_path: Path) -> None:
    root = small()
    hall = root / "campuses" / "hall.md"
    hall.write_text(hall.read_text().replace("grade: reported", "grade: estimated"))
    site = build(root, tmp_path / "site")
    assert said_by(site)[:3] == ["no value yet", "no value yet", "no value yet"]


def test_the_house_front_page_counts_its_proven_quotes(tmp_path: Path) -> None:
    done = run("build", str(BUNDLED.parent), "-q", "-o", str(tmp_path / "house"))
    assert done.returncode == 0, done.stderr
    front = text_of(page(tmp_path / "house", "/"))
    observatory = page(tmp_path / "house", "/vol1/observatory")
    proved, made = re.search(
        r"Quotes proved against the Library</dt><dd class=\"number\">([\d,]+) of ([\d,]+)",
        observatory,
    ).groups()  # type: ignore[union-attr]
    assert (
        f"Of the {made} quotes its volumes make, {proved} are proven against an archived" in front
    )
    assert "every quote proven" not in front


def test_prose_rendered_ahead_by_workers_waits_for_its_computed_values(
    small, tmp_path: Path
) -> None:
    """`build` on two cores renders the prose in workers while check runs, before derive:
    what says a computed value (the paper, a source's annotation) is rendered after, the
    same as in one process."""
    from sourcebook.incremental import Memos
    from sourcebook.pipeline import build as build_record

    annotated = RECORD["sources/report.md"].replace(
        'date: "2025-10-01"\n', 'date: "2025-10-01"\n        annotation: It has ![[campus:hall]].\n'
    )
    root = small({"sources/report.md": annotated})
    sites = {}
    for jobs in (1, 2):
        out = tmp_path / f"jobs-{jobs}"
        done = build_record(root, out, jobs=jobs, search=False, kept=Memos.in_memory())
        assert done.site is not None
        sites[jobs] = tmp_path / f"jobs-{jobs}"
    for url in ("/vol1/paper", "/vol1/sources/press"):
        assert page(sites[1], url) == page(sites[2], url)
    assert said_by(sites[2]) == ["300 MW", "300 MW", "The Hall", "operating"]
    assert computed_in(page(sites[2], "/vol1/sources/press")) == [
        ("/vol1/ledger/hall#figure-hall-300", "300 MW")
    ]
