"""A corpus of real pages, an HTML article and a PDF essay, with true quotes that verify
and tampered ones that fail, checked end to end: add, extract, normalize, check."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import REPO
from corpus.library.minipdf import build_pdf

from sourcebook.library.intake import Details, take_in
from sourcebook.library.report import Status
from sourcebook.pipeline import check

CORPUS = REPO / "tests" / "corpus" / "library"
CASES = yaml.safe_load((CORPUS / "quotes.yaml").read_text(encoding="utf-8"))
SOURCE_FOR = {"article.html": "tweaktown-colossus", "essay.pdf": "sa-essay"}


def essay_pdf() -> bytes:
    text = (CORPUS / "essay-pages.txt").read_text(encoding="utf-8")
    pages = [page.strip("\n").split("\n") for page in text.split("----\n")]
    return build_pdf(pages, title="Situational Awareness")


def source_file(quotes: list[str]) -> str:
    annotation = "; ".join(f"\u201c{q}\u201d" for q in quotes)
    return f"---\ntitle: A source\ncategory: other\nannotation: {yaml.safe_dump(annotation)}---\n"


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus") / "record"
    (root / "sources").mkdir(parents=True)
    (root / "sourcebook.toml").write_text(
        '[book]\ntitle = "T"\nhouse = "H"\ncloses = 2026-11-08\n', encoding="utf-8"
    )
    originals = {"article.html": (CORPUS / "article.html").read_bytes(), "essay.pdf": essay_pdf()}
    for name, data in originals.items():
        quotes = [c["quote"] for c in CASES[name]["verify"] + CASES[name]["tampered"]]
        source = SOURCE_FOR[name]
        (root / "sources" / f"{source}.md").write_text(source_file(quotes), encoding="utf-8")
        path = root.parent / name
        path.write_bytes(data)
        take_in(root, str(path), Details(captured="2026-10-12"), source)
    result = check(root)
    proofs = {(p.claim.source, p.claim.text): p for p in result.proofs.proofs}
    return result, proofs


def cases(kind: str):
    return [
        pytest.param(name, case, id=f"{name}:{case['quote'][:40]}")
        for name in CASES
        for case in CASES[name][kind]
    ]


@pytest.mark.parametrize(("name", "case"), cases("verify"))
def test_true_quote_verifies(checked, name, case) -> None:
    _result, proofs = checked
    proof = proofs[(SOURCE_FOR[name], case["quote"])]
    assert proof.status is Status.VERIFIED, proof
    if "on" in case:
        assert proof.locator == case["on"]


@pytest.mark.parametrize(("name", "case"), cases("tampered"))
def test_tampered_quote_fails_with_the_difference_marked(checked, name, case) -> None:
    _result, proofs = checked
    proof = proofs[(SOURCE_FOR[name], case["quote"])]
    assert proof.status is Status.NOT_FOUND
    if case["difference"]:
        assert proof.nearest is not None
        _shelf, near = proof.nearest
        assert any(case["difference"] in d for d in near.differences), near.differences


def test_not_found_is_an_error_naming_quote_items_and_nearest_passage(checked) -> None:
    result, _proofs = checked
    errors = [d for d in result.diagnostics.errors if d.code == "Q001"]
    assert len(errors) == sum(len(CASES[name]["tampered"]) for name in CASES)
    first = next(d for d in errors if "300,000" in d.message)
    assert "not found in copy S1 of 'tweaktown-colossus'" in first.message
    assert first.hint is not None
    assert "nearest, in S1:" in first.hint
    assert "{300,000 → 200,000}" in first.hint
    assert "a changed figure" in first.hint


def test_extracted_html_leaves_out_the_page_furniture() -> None:
    from sourcebook.library.extract import html_text

    text = html_text((CORPUS / "article.html").read_bytes()).text
    assert "Subscribe" not in text and "sidebar" not in text and "dataLayer" not in text
    assert text.startswith("Elon Musk’s xAI to double Colossus")


def test_pdf_pages_are_kept(tmp_path: Path) -> None:
    from sourcebook.library.extract import PAGE_BREAK, pdf_text

    extracted = pdf_text(essay_pdf())
    assert extracted.pages == 3
    assert extracted.text.count(PAGE_BREAK) == 2
    assert extracted.title == "Situational Awareness"
