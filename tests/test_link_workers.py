"""Linking a large record in forked workers finds exactly what linking it in one process
finds: the same references, quotes and marked spans, in the same order, and the same
names for the pages and wiki links resolved."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

from conftest import BUNDLED

from sourcebook.diagnostics import Diagnostics
from sourcebook.link import graph as graph_module
from sourcebook.link.graph import Graph, link_record
from sourcebook.read.record import read_record


def linked(graph: Graph) -> tuple:
    return (
        graph.refs,
        graph.quotes,
        graph.marked,
        dict(graph._incoming),
        dict(graph._outgoing),
        graph.reads,
        graph.wiki,
    )


def test_record_linked_by_workers_is_linked_as_in_one_process(tmp_path: Path, monkeypatch) -> None:
    record_dir = tmp_path / "record"
    shutil.copytree(BUNDLED, record_dir, ignore=shutil.ignore_patterns("_site", "releases"))
    (record_dir / "terms" / "dangling.md").write_text(
        "---\ntitle: Dangling\nrelated: [no-such-term]\n"
        "definition: See [[nowhere]], [@no-such-source] and [“so-called”]{.scare}.\n---\n"
    )
    record = read_record(record_dir, Diagnostics())
    assert record is not None

    serial = linked(link_record(record))
    monkeypatch.setattr(graph_module, "PARALLEL_FROM", 1)
    monkeypatch.setattr(graph_module, "CHUNK", 7)
    # A test run earlier in this process may leave a server's request thread winding down
    # (a browser's page kept open); forking beside it is safe here, and what is tested.
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    assert graph_module._jobs(len(record)) > 1, "the record must be linked by workers here"
    parallel = linked(link_record(record))

    assert parallel == serial
    refs, quotes, marked = serial[:3]
    assert {r.via for r in refs} == {"field", "wiki", "cite", "mention"}
    assert any(not r.resolved for r in refs) and quotes and marked
    reads, wiki = serial[5:]
    assert {read.reading for read in reads.values()} == {"plain", "block", "inline", "paper"}
    assert wiki[(None, "nowhere")] is None
