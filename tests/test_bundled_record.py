"""The bundled record checks clean and gives Cluster the exemplar page's blocks."""

from __future__ import annotations

import pytest
from conftest import BUNDLED

from sourcebook.link.backlinks import RELATED_LIMIT
from sourcebook.model.kinds import KINDS
from sourcebook.pipeline import check

EXEMPLAR_SOURCES = [
    "supermicro-colossus-case",
    "sa-essay",
    "bloomberg-moonshot-alibaba-jul26",
    "semianalysis-btm-sep26",
    "semianalysis-shortage-apr26",
]
EXEMPLAR_RELATED = [
    "one-machine",
    "122-days",
    "mlgw",
    "training",
    "tva",
    "algorithmic-efficiency",
    "application-layer",
    "arsenal-behind-every-arsenal",
    "capital-expenditure",
    "clocks-of-diffusion",
    "epoch-ai",
    "exclusive-generation",
]


@pytest.fixture(scope="module")
def checked():
    return check(BUNDLED)


@pytest.fixture(scope="module")
def cluster(checked):
    return checked.backlinks()(checked.record.get("term", "cluster"))


def test_bundled_record_has_no_errors(checked):
    assert [d.format() for d in checked.diagnostics.errors] == []


def test_where_the_book_uses_cluster(cluster):
    assert [c.id for c in cluster.book] == ["chapter-1"]


def test_where_the_record_uses_cluster(cluster, checked):
    keys = [e.key for e in cluster.record]
    for expected in [
        ("campus", "colossus-2"),
        ("campus", "stargate-uae"),
        ("indicator", "largest-evidenced-operating-site"),
    ]:
        assert expected in keys
    assert keys.index(("campus", "colossus-2")) < keys.index(("campus", "stargate-uae"))
    assert checked.record.get("indicator", "largest-evidenced-operating-site").row == 11
    for entity in cluster.record:  # each names the term in its own file, by a word or a link
        kind = next(k for k in KINDS if k.name == entity.KIND)
        written = (BUNDLED / kind.folder / f"{entity.id}.md").read_text(encoding="utf-8")
        assert "cluster" in written.casefold(), entity.key


def test_sources_that_use_cluster_in_the_exemplar_order(cluster):
    ids = [s.id for s in cluster.sources]
    assert set(EXEMPLAR_SOURCES) <= set(ids)
    assert [i for i in ids if i in EXEMPLAR_SOURCES] == EXEMPLAR_SOURCES
    assert ids == sorted(
        ids, key=lambda i: (next(s for s in cluster.sources if s.id == i).category.value, i)
    )


def test_every_listed_source_uses_the_word(cluster):
    for source in cluster.sources:
        text = " ".join([source.title, source.annotation, source.body]).casefold()
        assert "cluster" in text, source.id


def test_exactly_the_twelve_related_terms_in_the_exemplar_order(cluster):
    assert len(EXEMPLAR_RELATED) == RELATED_LIMIT
    assert [t.id for t in cluster.related] == EXEMPLAR_RELATED


def test_the_three_coinages_are_published_as_provisional_readings(checked):
    for term_id in ["arsenal-behind-every-arsenal", "clocks-of-diffusion", "exclusive-generation"]:
        term = checked.record.get("term", term_id)
        assert term.provisional and not term.draft


def test_cluster_is_introduced_in_chapter_one(checked):
    cluster = checked.record.get("term", "cluster")
    assert cluster.chapters[0] == "chapter-1"
    chapter = checked.record.get("chapter", "chapter-1")
    assert (chapter.number, chapter.title) == (1, "The Stakes")
