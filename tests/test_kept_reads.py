"""What read and link keep from run to run (`read.kept`): a record read with what earlier
runs kept is exactly the record read afresh, whatever edits came between, and what is kept
is never trusted beyond its hash."""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from conftest import SETTINGS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sourcebook.diagnostics import Diagnostics
from sourcebook.incremental import PARSED, STATE_FOLDER, Memo, Memos, Store, key_of
from sourcebook.incremental import _memo as memo_module
from sourcebook.pipeline import read_and_link

NAMES = ["Cluster", "GPU", "Power Grid", "Stargate", "Abilene", "the plant"]
WORDS = [
    "The",
    "cluster",
    "Clusters",
    "GPU",
    "gpus",
    "power grid",
    "[[gpu]]",
    "[[term:stargate]]",
    "[@index, p. 4]",
    "[@other]",
    "“a quoted line” [@index]",
    "`Stargate`",
    "<https://example.com/Abilene>",
    "**Abilene**",
    "\n\n- Stargate\n- the plant\n\n",
    "[the plant](https://example.com)",
    "runs",
    ".",
]
IDS = ["cluster", "gpu", "stargate", "abilene", "plant", "power-grid"]
FILES = len(IDS) + 3  # the terms, a chapter and two sources
SETTLED_NS = 50_000_000
"""How long before a read a file must have last changed for `serve` to trust its stat,
here: far more than the file system's clock tick, far less than the two seconds it waits."""

prose = st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)
term_text = st.builds(
    lambda title, aliases, body, definition: (
        f"---\ntitle: {json.dumps(title)}\n"
        + (f"aliases: {json.dumps(aliases)}\n" if aliases else "")
        + f"definition: {json.dumps(definition or 'A thing.')}\n---\n{body}\n"
    ),
    st.sampled_from(NAMES),
    st.lists(st.sampled_from(NAMES), max_size=2),
    prose,
    prose,
)
broken_text = st.sampled_from(
    [
        "---\ntitle: [\n---\n",
        "---\ntitle: A\ntitle: B\ndefinition: x\n---\n",
        "---\ntitle: A\nbody: x\ndefinition: y\n---\n",
        "---\ntitle: A\ncolour: red\ndefinition: y\n---\n",
        "no front matter at all\n",
        "",
    ]
)
SOURCE = "---\ntitle: The index\ncategory: research\ndate: 2026-04-02\n---\nOn the GPU.\n"
edit = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(IDS), term_text),
    st.tuples(st.just("write"), st.sampled_from(IDS), broken_text),
    st.tuples(st.just("delete"), st.sampled_from(IDS), st.just("")),
    st.tuples(st.just("rename"), st.sampled_from(IDS), st.sampled_from(IDS)),
    # a source is cited, never mentioned: it comes and goes without a name changing
    st.tuples(
        st.just("source"),
        st.sampled_from(["index", "other"]),
        st.sampled_from([SOURCE, "", "---\ntitle: [\n---\n"]),
    ),
)


def write_seeded(tmp_path: Path) -> Path:
    root = tmp_path / "record"
    seeded(root)
    return root


def seeded(root: Path) -> None:
    for folder in ("chapters", "terms", "sources"):
        (root / folder).mkdir(parents=True)
    (root / "sourcebook.toml").write_text(SETTINGS, encoding="utf-8")
    chapter = "---\ntitle: The Stakes\nnumber: 1\nsummary: What the race is for.\n---\n"
    (root / "chapters" / "chapter-1.md").write_text(chapter, encoding="utf-8")
    (root / "sources" / "index.md").write_text(SOURCE, encoding="utf-8")
    (root / "sources" / "other.md").write_text(SOURCE, encoding="utf-8")
    for term_id, name in zip(IDS, NAMES, strict=True):
        text = (
            f"---\ntitle: {name}\ndefinition: A thing.\n---\nNear the Cluster [@index] [@other].\n"
        )
        (root / "terms" / f"{term_id}.md").write_text(text, encoding="utf-8")


def apply(root: Path, change: tuple[str, str, str]) -> None:
    what, term_id, arg = change
    path = root / "terms" / f"{term_id}.md"
    if what == "source":
        source = root / "sources" / f"{term_id}.md"
        source.unlink(missing_ok=True)
        if arg:
            source.write_text(arg, encoding="utf-8")
    elif what == "write":
        path.write_text(arg, encoding="utf-8")
    elif what == "delete":
        path.unlink(missing_ok=True)
    elif path.exists():
        path.rename(root / "terms" / f"{arg}.md")


def opened(root: Path) -> Memos:
    """The memos `build` and `check` open, trusting a file's hash by its stat once it is
    `SETTLED_NS` old rather than two seconds (so that the property's quick edits meet it)."""
    kept = Memos.open(root)
    assert kept.digests is not None
    kept.digests.racy_ns = SETTLED_NS
    return kept


def read_as(root: Path, kept: Memos) -> Any:
    """Everything read and link made, in comparable form."""
    diagnostics = Diagnostics()
    record, graph = read_and_link(root, None, diagnostics, kept)
    entities = [] if record is None else [(e.model_dump(), e._origin) for e in record]
    reads = sorted((k, r.reading, r.spans.tobytes(), r.keys) for k, r in graph.reads.items())
    return (
        entities,
        [d.format() for d in diagnostics],
        graph.refs,
        graph.quotes,
        graph.marked,
        graph.unbalanced,
        reads,
        graph.wiki,
    )


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(edit, min_size=1, max_size=6))
def test_a_record_read_with_what_was_kept_is_the_record_read_afresh(edits):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "record"
        seeded(root)
        in_memory = Memos.in_memory()
        serving = Memos.in_memory(serving=True)
        assert serving.files is not None
        serving.files.margin_ns = SETTLED_NS
        read_as(root, in_memory)
        read_as(root, serving)
        read_as(root, opened(root))
        for change in edits:
            apply(root, change)
            afresh = read_as(root, Memos.in_memory())
            assert read_as(root, in_memory) == afresh  # as `serve` keeps it
            assert read_as(root, serving) == afresh  # with each unchanged file's read again
            assert read_as(root, opened(root)) == afresh  # as `build` and `check` do


def test_an_unchanged_record_is_neither_parsed_nor_linked_again(tmp_path):
    root = tmp_path / "record"
    seeded(root)
    read_as(root, Memos.open(root))
    again = Memos.open(root)
    read_as(root, again)
    names = 1  # link keeps the names' plurals too
    assert (again.parsed.hits, again.parsed.misses) == (FILES, 0)
    assert (again.linked.hits, again.linked.misses) == (FILES + names, 0)
    (root / "terms" / "gpu.md").write_text(
        "---\ntitle: GPU\ndefinition: A chip.\n---\nBeside the Cluster.\n", encoding="utf-8"
    )
    edited = Memos.open(root)
    read_as(root, edited)
    assert (edited.parsed.hits, edited.parsed.misses) == (FILES - 1, 1)  # the edited file alone
    assert (edited.linked.hits, edited.linked.misses) == (FILES - 1 + names, 1)  # linked again


def test_an_unchanged_file_whose_hash_is_kept_is_not_opened(tmp_path, monkeypatch):
    root = write_seeded(tmp_path)
    afresh = read_as(root, Memos.in_memory())
    settled = time.time_ns() - 10 * SETTLED_NS
    for path in root.rglob("*.md"):  # as if written well before the first read
        os.utime(path, ns=(settled, settled))
    time.sleep(SETTLED_NS / 1e9)  # the change time the line above set has settled too
    first = opened(root)
    assert read_as(root, first) == afresh and first.digests is not None
    assert first.digests.read == FILES  # each file read, its hash kept
    opens: list[str] = []
    real_open = open

    def counted(path, *args, **kwargs):
        if str(path).endswith(".md"):
            opens.append(str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", counted)
    again = opened(root)
    assert read_as(root, again) == afresh and again.digests is not None
    assert again.digests.read == 0 and opens == []  # no entity file opened
    assert (again.parsed.hits, again.parsed.misses) == (FILES, 0)
    gpu = root / "terms" / "gpu.md"
    gpu.write_text("---\ntitle: GPU\ndefinition: A chip.\n---\nBeside the Cluster.\n")
    edited = opened(root)
    got = read_as(root, edited)
    assert edited.digests is not None and edited.digests.read == 1
    assert opens == [str(gpu)]  # the edited file alone
    assert got == read_as(root, Memos.in_memory())


def test_a_run_that_found_all_it_needed_writes_nothing(tmp_path):
    root = write_seeded(tmp_path)
    read_as(root, Memos.open(root))
    kept_file = root / STATE_FOLDER / PARSED / "kept.marshal"
    written = kept_file.stat()
    read_as(root, Memos.open(root))
    assert kept_file.stat().st_ino == written.st_ino  # not written again
    (root / "terms" / "gpu.md").write_text(
        "---\ntitle: GPU\ndefinition: A chip.\n---\nBeside the Cluster.\n", encoding="utf-8"
    )
    read_as(root, Memos.open(root))
    assert kept_file.stat().st_ino != written.st_ino
    assert len(Memo.open(Store.of(root), PARSED)) == FILES


def test_a_kept_file_that_cannot_be_read_is_ignored(tmp_path):
    root = tmp_path / "record"
    seeded(root)
    afresh = read_as(root, Memos.in_memory())
    read_as(root, Memos.open(root))
    kept_file = root / STATE_FOLDER / PARSED / "kept.marshal"
    for garbage in (b"", b"\x00\xff" * 100, marshal.dumps([1, 2]), marshal.dumps({b"k": 3})):
        kept_file.write_bytes(garbage)
        assert len(Memo.open(Store.of(root), PARSED)) == 0
        assert read_as(root, Memos.open(root)) == afresh
    forged = {key: marshal.dumps("not what was parsed") for key in [b"x" * 32]}
    kept_file.write_bytes(marshal.dumps(forged))
    assert read_as(root, Memos.open(root)) == afresh


def test_a_result_kept_under_its_hash_is_what_that_hash_gives(tmp_path):
    # a kept result is found only by the hash of all it depends on: change one and it is
    # made anew, whatever the file holds under another hash
    root = tmp_path / "record"
    seeded(root)
    read_as(root, Memos.open(root))
    kept = Memo.open(Store.of(root), PARSED)
    assert len(kept) == FILES
    data = (root / "terms" / "gpu.md").read_bytes()
    shown = f"{root.as_posix()}/terms/gpu.md"
    assert kept.lookup(key_of(PARSED, shown, hashlib.sha256(data).digest())) is not None
    assert kept.lookup(key_of(PARSED, shown, hashlib.sha256(data + b" ").digest())) is None
    assert (
        kept.lookup(key_of(PARSED, "elsewhere/terms/gpu.md", hashlib.sha256(data).digest())) is None
    )


def test_another_version_of_sourcebook_makes_everything_anew(tmp_path, monkeypatch):
    root = tmp_path / "record"
    seeded(root)
    afresh = read_as(root, Memos.in_memory())
    read_as(root, Memos.open(root))
    monkeypatch.setattr(memo_module, "code", lambda: "another version")
    kept = Memos.open(root)
    assert read_as(root, kept) == afresh
    assert (kept.parsed.hits, kept.linked.hits) == (0, 0)


def test_a_kept_folder_from_a_clone_is_not_trusted(tmp_path):
    # the state folder committed with a record (or copied with it) is emptied, not read
    root = tmp_path / "record"
    seeded(root)
    read_as(root, Memos.open(root))
    clone = tmp_path / "clone"
    subprocess.run(["cp", "-a", str(root), str(clone)], check=True)
    assert len(Memo.open(Store.of(clone), PARSED)) == 0


def test_no_cache_reads_every_file_anew_and_keeps_nothing(tmp_path):
    root = tmp_path / "record"
    seeded(root)
    for command in (["check", "--no-cache"], ["build", "--no-cache", "--quiet"]):
        done = subprocess.run(
            [sys.executable, "-m", "sourcebook", *command, str(root)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert not (root / STATE_FOLDER / PARSED / "kept.marshal").exists()
    subprocess.run(
        [sys.executable, "-m", "sourcebook", "build", "--quiet", str(root)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    assert len(Memo.open(Store.of(root), PARSED)) == FILES
