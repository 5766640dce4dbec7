"""The bundled record: its Library holds every capture, and every quote of a captured
source verifies against it."""

from __future__ import annotations

from conftest import BUNDLED, REPO

from sourcebook.library.report import Status
from sourcebook.pipeline import check

CAPTURES = sorted(p.stem for p in (REPO.parent / "shared" / "facts" / "captures").glob("*.txt"))


def test_no_quote_of_the_bundled_record_fails() -> None:
    result = check(BUNDLED)
    quote_errors = [d for d in result.diagnostics.errors if d.code[0] == "Q" or d.code == "D002"]
    assert not quote_errors, "\n".join(d.format() for d in quote_errors)
    report = result.proofs
    assert report.total().verified > 100


def test_every_source_with_a_copy_has_all_its_quotes_verified() -> None:
    result = check(BUNDLED)
    library = result.record.library
    report = result.proofs
    for source in result.record.of("source"):
        if library.holdings(source.library):
            statuses = {p.status for p in report.for_source(source.id)}
            assert statuses <= {Status.VERIFIED}, source.id


def test_each_source_names_its_own_capture() -> None:
    result = check(BUNDLED)
    library = result.record.library
    for source in result.record.of("source"):
        for item in library.holdings(source.library):
            assert item.file == f"{source.id}.txt"
    named = {s for source in result.record.of("source") for s in source.library}
    assert named == set(library.items)
    if CAPTURES:
        assert {i.file[:-4] for i in library} == set(CAPTURES)
