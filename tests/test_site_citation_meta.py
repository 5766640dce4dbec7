"""What Zotero's connector reads: citation meta tags on each source's page, COinS on lists."""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import parse_qsl

import pytest
from site_fixtures import build, page, write_record

PAPER = """\
    ---
    title: Compute Trends Across Three Eras of Machine Learning
    category: research
    csl_type: paper-conference
    authors: [ursula-le-guin, martin-king]
    publisher: ieee
    publication: 2022 International Joint Conference on Neural Networks (IJCNN)
    date: 2022-07-18
    doi: 10.1109/IJCNN55064.2022.9891914
    pages: 1–8
    urls:
      - https://arxiv.org/pdf/2202.05924.pdf
    annotation: Training compute “doubled every 6 months”.
    ---
    """
FILES = {
    "sources/sevilla2022.md": PAPER,
    "people/ursula-le-guin.md": "---\ntitle: Ursula K. Le Guin\n---\n",
    "people/martin-king.md": "---\ntitle: Martin Luther King Jr.\n---\n",
    "parties/ieee.md": "---\ntitle: IEEE\ntype: publisher\n---\n",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(write_record(tmp_path_factory.mktemp("record"), FILES))


def meta(text: str) -> list[tuple[str, str]]:
    found = re.findall(r'<meta name="(citation_[a-z_]+)" content="([^"]*)">', text)
    return [(name, html.unescape(content)) for name, content in found]


def test_each_source_has_a_page_with_the_citation_meta_tags(site: Path) -> None:
    tags = meta(page(site, "/vol1/sources/research/sevilla2022"))
    assert ("citation_title", "Compute Trends Across Three Eras of Machine Learning") in tags
    authors = [value for name, value in tags if name == "citation_author"]
    assert authors == ["Le Guin, Ursula K.", "King, Martin Luther"]
    assert ("citation_publication_date", "2022/07/18") in tags
    assert ("citation_publisher", "IEEE") in tags
    assert ("citation_doi", "10.1109/IJCNN55064.2022.9891914") in tags
    assert ("citation_firstpage", "1") in tags and ("citation_lastpage", "8") in tags
    assert ("citation_pdf_url", "https://arxiv.org/pdf/2202.05924.pdf") in tags
    assert ("citation_public_url", "https://arxiv.org/pdf/2202.05924.pdf") in tags


def test_the_category_page_carries_one_coins_span_per_source(site: Path) -> None:
    text = page(site, "/vol1/sources/research")
    spans = re.findall(r'<span class="Z3988" title="([^"]*)"></span>', text)
    assert len(spans) == text.count('<li id="')
    (paper,) = [dict(parse_qsl(html.unescape(s))) for s in spans if "Compute+Trends" in s]
    assert paper["ctx_ver"] == "Z39.88-2004"
    assert paper["rft.btitle"] == "Compute Trends Across Three Eras of Machine Learning"
    assert paper["rft_id"] == "https://arxiv.org/pdf/2202.05924.pdf"
    assert '<a href="/vol1/sources/research/sevilla2022">Cite this source</a>' in text


def test_a_press_source_is_an_article_of_its_publication(site: Path) -> None:
    text = page(site, "/vol1/sources/press/bloomberg-moonshot-alibaba-jul26")
    assert ("citation_journal_title", "Bloomberg") in meta(text)
    assert '<a href="/vol1/sources/press#bloomberg-moonshot-alibaba-jul26">' in text


def test_the_citation_gives_pages_and_doi(site: Path) -> None:
    text = page(site, "/vol1/sources/research")
    assert "18 July 2022, pp. 1–8, doi:10.1109/IJCNN55064.2022.9891914" in text
