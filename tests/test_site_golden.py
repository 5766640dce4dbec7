"""Golden pages: key pages of the small record, byte for byte, as checked in.

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
    "/vol1/glossary/cluster": "glossary-cluster.html",
    "/vol1/ledger": "ledger.html",
    "/vol1/sources/press": "sources-press.html",
}


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
