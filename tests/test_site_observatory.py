"""The record at a glance and The Paper, built from the bundled record and from copies of it
changed as an author would change them."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path

import pytest
from site_fixtures import build, crawl, file_for, page

from sourcebook.pipeline import check

BUNDLED = Path(__file__).resolve().parent.parent / "examples" / "compute-race"
NAV = [
    "Campuses",
    "Tests",
    "Scorecard",
    "Data",
    "Chapter by chapter",
    "The record at a glance",
    "One campus, four futures",
    "Glossary",
    "People",
    "Sources",
    "Notes",
    "Where the book was wrong",
    "Where its sources were wrong",
    "The Paper",
    "Consent",
    "Who builds and pays",
]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(BUNDLED, tmp_path_factory.mktemp("glance") / "site")


def copy(tmp_path: Path) -> Path:
    record = tmp_path / "record"
    shutil.copytree(BUNDLED, record, ignore=shutil.ignore_patterns("_site", ".sourcebook-cache"))
    return record


def twin(site: Path, path: str) -> dict:
    return json.loads((site / "vol1" / "api" / f"{path}.json").read_text(encoding="utf-8"))


def test_the_navigation_has_both_pages_in_the_exemplars_order(site: Path) -> None:
    html = page(site, "/vol1/observatory")
    nav = re.search(r'<nav class="site-nav"[^>]*>(.*?)</nav>', html, re.S)
    labels = re.findall(r"<a [^>]*>([^<]+)</a>", nav[1] if nav else html)
    assert [label for label in labels if label in NAV] == NAV


def test_every_chart_is_inline_svg_with_a_title_and_its_numbers_in_a_table(site: Path) -> None:
    html = page(site, "/vol1/observatory")
    charts = twin(site, "observatory")["charts"]
    assert len(charts) == 8
    for chart in charts:
        section = html.split(f'<section class="chart-section" id="{chart["id"]}"', 1)[1]
        section = section.split("</section>", 1)[0]
        svg = re.search(r"<svg [^>]*>.*?</svg>", section, re.S)
        assert svg, chart["id"]
        assert f'<title id="chart-{chart["id"]}-t">{chart["title"]}</title>' in svg[0]
        assert "<script" not in svg[0] and "href" not in svg[0]
        data = chart["computed"]
        rows = re.findall(r"<tr>(.*?)</tr>", section.split("<tbody>", 1)[1], re.S)
        assert len(rows) == len(data["rows"]) > 0
        for row, values in zip(rows, data["rows"], strict=True):
            cells = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
            for cell, value in zip(cells, values, strict=True):
                if isinstance(value, (int, float)):
                    assert float(cell.replace(",", "")) == pytest.approx(value, rel=1e-3)
        table = list(csv.reader(io.StringIO(page(site, f"/vol1/observatory/{chart['id']}.csv"))))
        assert tuple(table[0]) == tuple(data["columns"]) and len(table) == len(data["rows"]) + 1


def test_every_link_resolves(site: Path) -> None:
    seen, problems = crawl(site, "/vol1/")
    assert problems == []
    assert {"/vol1/observatory", "/vol1/paper"} <= seen


def test_adding_a_figure_changes_the_total(tmp_path: Path) -> None:
    record = copy(tmp_path)
    before = twin(build(record, tmp_path / "before"), "observatory")
    campus = record / "campuses" / "fairwater-wisconsin.md"
    text = campus.read_text(encoding="utf-8")
    text = text.replace(
        "figures:\n",
        "figures:\n  - {metric: it-power, value: 250, unit: MW, status: operating,"
        " as_of: 2026-10, grade: reported, source: startmidwest-fairwater-wisconsin}\n",
        1,
    )
    campus.write_text(text, encoding="utf-8")
    after = build(record, tmp_path / "after")
    shown = page(after, "/vol1/observatory")
    assert before["charts"] and "250" not in str(before)
    overview = re.search(r'id="overview-operating">([^<]+)<', shown)
    assert (
        overview
        and overview[1]
        != re.search(
            r'id="overview-operating">([^<]+)<', page(tmp_path / "before", "/vol1/observatory")
        )[1]
    )


CHART = """---
title: Campuses by country
description: How many campuses the record follows in each country.
query: SELECT country, COUNT(*) AS campuses FROM campuses GROUP BY country
spec:
  mark: bar
  encoding:
    x: {field: campuses, type: quantitative}
    y: {field: country, type: nominal}
---
"""


def test_an_authors_chart_is_on_the_page(tmp_path: Path) -> None:
    record = copy(tmp_path)
    (record / "charts" / "by-country.md").write_text(CHART, encoding="utf-8")
    html = page(build(record, tmp_path / "site"), "/vol1/observatory")
    assert '<title id="chart-by-country-t">Campuses by country</title>' in html
    assert "/vol1/observatory/by-country.csv" in html


@pytest.mark.parametrize(
    ("query", "code", "line"),
    [
        ("SELECT country, COUNT(*) AS campuses FROM campusez GROUP BY country", "X001", 4),
        ("SELECT country, COUNT(*) AS campuses, 1 AS extra FROM campuses GROUP BY 1", "X006", 4),
        ("SELECT country FROM campuses", "X007", 8),
    ],
)
def test_a_broken_chart_is_a_check_error_at_its_line(
    tmp_path: Path, query: str, code: str, line: int
) -> None:
    record = copy(tmp_path)
    (record / "charts" / "by-country.md").write_text(
        CHART.replace(CHART.split("\n")[3], f"query: {query}"), encoding="utf-8"
    )
    errors = [d for d in check(record).diagnostics.errors if d.code == code]
    assert errors, code
    assert errors[0].pos.file.endswith("charts/by-country.md") and errors[0].pos.line == line


def test_a_spec_that_would_load_data_is_refused(tmp_path: Path) -> None:
    record = copy(tmp_path)
    spec = CHART.replace("  mark: bar\n", "  mark: bar\n  data: {url: 'file:///etc/passwd'}\n")
    (record / "charts" / "by-country.md").write_text(spec, encoding="utf-8")
    codes = [(d.code, d.pos.line) for d in check(record).diagnostics.errors]
    assert ("X008", 7) in codes


def test_the_paper_page_has_sections_figures_notes_and_a_bibliography(site: Path) -> None:
    html = page(site, "/vol1/paper")
    assert '<span class="section-number">2</span> What runs' in html
    assert html.count('class="chart-figure paper-figure"') >= 2
    assert 'class="footnote-ref"' in html
    entries = re.findall(r'<li id="cite-([a-z0-9-]+)">', html)
    assert len(entries) >= 15
    assert 'href="/vol1/sources/press#sfbwmag-xai-colossus2-200mw">In the Sources' in html
    data = page(site, "/vol1/data/releases")
    assert 'href="/vol1/paper.pdf"' in data
    assert twin(site, "paper")["entity"]["id"] == "the-race-at-the-close"


def test_the_pdf_carries_the_paper_and_is_reproducible(site: Path, tmp_path: Path) -> None:
    from pypdf import PdfReader

    pdf = file_for(site, "/vol1/paper.pdf")
    assert pdf is not None
    reader = PdfReader(pdf)
    assert reader.metadata.title == "What the record shows: the compute race at the close"
    assert reader.metadata.author == "Lee S. Dryburgh"
    text = " ".join(" ".join(p.extract_text() for p in reader.pages).split())
    for words in ("1 The question", "2 What runs", "Sources", "In the Sources", "Figure 1"):
        assert words in text, words
    assert "Tom’s Hardware, “Oracle reportedly orders $40 billion" in text
    uris = {
        a.get_object()["/A"].get("/URI")
        for p in reader.pages
        for a in p.get("/Annots") or []
        if a.get_object().get("/A")
    } - {None}
    assert len(uris) > 20
    for uri in uris:
        assert uri.startswith("https://dryburgh.com/vol1/"), uri
        path = uri.removeprefix("https://dryburgh.com").split("#", 1)[0]
        assert file_for(site, path) is not None, uri
    again = build(BUNDLED, tmp_path / "again")
    assert (again / "vol1" / "paper.pdf").read_bytes() == pdf.read_bytes()
