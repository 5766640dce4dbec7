"""Each stage runs alone, on what the stage before it gives and nothing else: read a folder,
link a record, check a linked record, compile a check's result, derive from a database
file, publish from a check's result and what was derived."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import BUNDLED
from site_fixtures import write_record

from sourcebook.check import check_record
from sourcebook.check.result import Checked
from sourcebook.compile import compile_checked
from sourcebook.compile.database import open_record
from sourcebook.derive import Derived, derive_all
from sourcebook.diagnostics import Diagnostics
from sourcebook.library.report import QuoteReport, Status
from sourcebook.link import link_record
from sourcebook.model.record import Record
from sourcebook.pipeline import build_site
from sourcebook.publish.release import release
from sourcebook.read import read_record


@pytest.fixture(scope="module")
def record() -> Record:
    diagnostics = Diagnostics()
    found = read_record(BUNDLED, diagnostics)
    assert found is not None and not diagnostics.has_errors()
    return found


def test_read_gives_a_typed_record_and_nothing_linked(record: Record) -> None:
    cluster = record.get("term", "cluster")
    assert cluster is not None and cluster.title == "Cluster"
    assert cluster.origin.file.endswith("terms/cluster.md")
    assert len(record.library) > 0


def test_link_gives_the_graph_of_a_record_read(record: Record) -> None:
    graph = link_record(record)
    users = {ref.source for ref in graph.incoming(("term", "cluster"))}
    assert ("campus", "colossus-2") in users
    assert {ref.via for ref in graph.refs} >= {"field", "wiki", "cite", "mention"}
    assert graph.quotes and all(q.source for q in graph.quotes)


def test_check_gives_diagnostics_and_the_proof_of_the_quotes(record: Record) -> None:
    graph = link_record(record)
    diagnostics = Diagnostics()
    proofs = check_record(record, graph, diagnostics)
    assert isinstance(proofs, QuoteReport)
    assert not diagnostics.has_errors()
    assert {p.status for p in proofs.proofs} >= {Status.VERIFIED}
    assert not hasattr(record.library, "report")  # nothing hung on the model


@pytest.fixture(scope="module")
def checked(record: Record) -> Checked:
    graph = link_record(record)
    diagnostics = Diagnostics()
    proofs = check_record(record, graph, diagnostics)
    return Checked(record, graph, diagnostics, None, proofs)


def test_compile_writes_what_check_proved(checked: Checked, tmp_path: Path) -> None:
    path = compile_checked(checked, tmp_path / "record.db")
    with sqlite3.connect(path) as db:
        statuses = dict(db.execute("SELECT status, COUNT(*) FROM quotes GROUP BY status"))
    assert checked.proofs is not None
    assert statuses.get("verified") == sum(
        1 for p in checked.proofs.proofs if p.status is Status.VERIFIED and p.claim.source
    )


def test_derive_reads_a_database_file_alone(checked: Checked, tmp_path: Path) -> None:
    path = compile_checked(checked, tmp_path / "record.db")
    with open_record(path) as db:
        derived = derive_all(db)
    assert derived.as_of == checked.record.settings.book.closes.isoformat()  # type: ignore[union-attr]
    assert {row.indicator for row in derived.rows} == {
        e.id
        for e in checked.record.of("indicator")  # type: ignore[union-attr]
    }


def test_publish_writes_a_site_from_values_alone(tmp_path: Path) -> None:
    """The site takes a check's result and what was derived, made here by hand."""
    root = write_record(tmp_path / "record")
    diagnostics = Diagnostics()
    record = read_record(root, diagnostics)
    assert record is not None
    graph = link_record(record)
    checked = Checked(record, graph, diagnostics, None, QuoteReport())
    nothing = Derived("2026-11-08", [], [], [], [])
    built = build_site(checked, tmp_path / "site", derived=nothing, jobs=1)
    assert (tmp_path / "site" / "vol1" / "glossary" / "cluster" / "index.html").is_file()
    assert built.pages > 10


def test_a_release_is_written_from_a_checks_result(checked: Checked, tmp_path: Path) -> None:
    root = tmp_path / "record"
    root.mkdir()
    released = release(checked, root, "1.0.0")
    assert (released.folder / "record.db").is_file()
    assert released.tables > 5
