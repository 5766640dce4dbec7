"""Golden pages: one page of every kind the small record has, byte for byte, as checked in.

After a deliberate change to the pages, regenerate them and read the diff:

    SOURCEBOOK_REGENERATE_GOLDEN=1 python -m pytest tests/test_site_golden.py
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from site_fixtures import build, file_for, write_record

GOLDEN = Path(__file__).resolve().parent / "site_golden"
PAGES = {
    "/404.html": "404.html",
    "/vol1/": "home.html",
    "/vol1/api/glossary/cluster.json": "api-glossary-cluster.json",
    "/vol1/api/index.json": "api-index.json",
    "/vol1/companion": "companion.html",
    "/vol1/consent": "consent.html",
    "/vol1/corrections": "corrections.html",
    "/vol1/corrections.atom": "corrections.atom",
    "/vol1/glossary": "glossary.html",
    "/vol1/glossary/cluster": "glossary-cluster.html",
    "/vol1/ledger": "ledger.html",
    "/vol1/ledger/colossus-2": "ledger-colossus-2.html",
    "/vol1/notes": "notes.html",
    "/vol1/notes/chapter-1": "notes-chapter-1.html",
    "/vol1/parties": "parties.html",
    "/vol1/parties/alibaba": "parties-alibaba.html",
    "/vol1/people": "people.html",
    "/vol1/people/haze-fan": "people-haze-fan.html",
    "/vol1/scorecard": "scorecard.html",
    "/vol1/sitemap.xml": "sitemap.xml",
    "/vol1/sources": "sources.html",
    "/vol1/sources/company/supermicro-colossus-case": "source-supermicro-colossus-case.html",
    "/vol1/sources/press": "sources-press.html",
    "/vol1/tests": "tests.html",
    "/vol1/tests/gigawatt-by-2027": "tests-gigawatt-by-2027.html",
}
"""A page of each template (and a JSON twin of a list and of an entity)."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(write_record(tmp_path_factory.mktemp("record")))


@pytest.mark.parametrize("url", sorted(PAGES))
def test_key_pages_are_as_checked_in(site: Path, url: str) -> None:
    built = file_for(site, url)
    assert built is not None
    golden = GOLDEN / PAGES[url]
    if os.environ.get("SOURCEBOOK_REGENERATE_GOLDEN"):
        golden.write_bytes(built.read_bytes())
    assert built.read_text(encoding="utf-8") == golden.read_text(encoding="utf-8"), (
        f"{url} differs from {golden.name}; if the change is meant, regenerate (see above)"
    )
