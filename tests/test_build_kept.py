"""`build` keeps what each page of its site read in the record's state folder, and the next
`build` writes only the pages an edit changed, into a copy of the site whose other files
are linked, swapped in whole. Whatever it keeps, the site is what a clean build writes,
byte for byte; a kept site that is not whole, of another version, or not the one at the
output folder, is never used."""

from __future__ import annotations

import marshal
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from site_fixtures import write_record
from test_serve_equivalence import MEMORY, SEEDED, apply, edit, files
from thorough import examples

from sourcebook.incremental import STATE_FOLDER, Memos, SiteMemo, Store
from sourcebook.incremental import _site as site_module
from sourcebook.incremental import _traced as traced
from sourcebook.pipeline import build
from sourcebook.publish.site import build as site_build
from sourcebook.publish.site.kept_site import site_made

DRAFT = (
    "---\ntitle: Draft machine\ndraft: true\ndefinition: A machine in the making.\n"
    "chapters: [chapter-1]\n---\nA Cluster, one machine, still a draft.\n"
)
WITH_DRAFT = {**SEEDED, "terms/draft-machine.md": DRAFT}
"""The record of the serve equivalence test, with a draft: a build without drafts links the
record again without it, and keeps what that found too."""

drafted = st.one_of(
    edit,
    st.tuples(
        st.just("terms/draft-machine.md"),
        st.sampled_from([("still a draft", "a draft for now"), ("draft: true", "draft: false")]),
    ),
    st.tuples(st.just("terms/one-machine.md"), st.just(("title:", "draft: true\ntitle:"))),
)


def clean_build(root: Path, out: Path, search: bool = False) -> list[str]:
    shutil.rmtree(out, ignore_errors=True)
    done = build(root, out, search=search, jobs=1, kept=Memos.in_memory())
    return [d.format() for d in done.checked.diagnostics.errors]


@settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(drafted, min_size=1, max_size=3), st.sampled_from([1, 2]))
def test_a_kept_build_after_any_edits_writes_what_a_clean_build_writes(edits, jobs):
    with tempfile.TemporaryDirectory(dir=MEMORY) as folder:
        root = write_record(Path(folder) / "record", WITH_DRAFT)
        out, clean = Path(folder) / "site", Path(folder) / "clean"
        build(root, out, search=False, jobs=jobs)
        for path, text in edits:
            apply(root, path, text)
            done = build(root, out, search=False, jobs=jobs)  # kept in the state folder
            errors = clean_build(root, clean)
            assert [d.format() for d in done.checked.diagnostics.errors] == errors
            if done.site is not None:
                assert files(out) == files(clean)


def test_an_edit_writes_its_pages_and_links_the_rest(tmp_path: Path) -> None:
    root = write_record(tmp_path / "record", SEEDED)
    out = tmp_path / "site"
    first = build(root, out, search=False)
    assert first.site is not None and first.site.written is None  # all of it
    before = {path: (out / path).stat().st_ino for path in files(out)}
    apply(root, "terms/one-machine.md", ("Chips as one.", "Chips as one, and more."))
    again = build(root, out, search=False)
    assert again.site is not None and again.site.written is not None
    assert 0 < again.site.written < again.site.pages // 4
    after = {path: (out / path).stat().st_ino for path in files(out)}
    changed = {path for path in after if after[path] != before.get(path)}
    assert "vol1/glossary/one-machine/index.html" in changed
    assert len(changed) <= again.site.written  # every other file is the one written before
    assert "Chips as one, and more." in (out / "vol1/glossary/index.html").read_text()


def test_a_build_after_a_prose_edit_takes_derive_s_tables_by_their_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each `build` is a process of its own, which reads the last one's digests back from
    the state folder: where derive gives what it gave then (a sentence edited), its
    tables are of the same version, and none of their entries is digested again; a
    figure's edit gives another version, and its tables are compared."""
    root = write_record(tmp_path / "record", SEEDED)
    out = tmp_path / "site"
    build(root, out, search=False)
    taken: list[tuple[tuple[str, ...], bool]] = []
    same = traced._same_version

    def noted(table: Any, *args: Any) -> bool:
        found = same(table, *args)
        if table.name[0] == "derived":
            taken.append((table.name, found))
        return found

    monkeypatch.setattr(traced, "_same_version", noted)
    apply(root, "terms/one-machine.md", ("Chips as one.", "Chips as one, and more."))
    build(root, out, search=False)
    assert taken and all(found for _, found in taken)
    taken.clear()
    campus = root / "campuses" / "colossus-2.md"
    campus.write_text(campus.read_text().replace("value: 200\n", "value: 250\n", 1))
    built = build(root, out, search=False)
    assert built.checked.ok
    assert taken and not any(found for _, found in taken)
    fresh = build(root, tmp_path / "fresh", search=False, kept=Memos.in_memory())
    assert fresh.site is not None and files(out) == files(tmp_path / "fresh")


def test_an_unchanged_record_writes_nothing_and_makes_no_index(tmp_path: Path) -> None:
    root = write_record(tmp_path / "record", SEEDED)
    out = tmp_path / "site"
    build(root, out)
    before, folder = files(out), out.stat()
    done = build(root, out)
    assert done.site is not None and done.site.written == 0 and done.site.search is None
    assert files(out) == before and out.stat().st_ino == folder.st_ino  # not swapped
    apply(root, "terms/one-machine.md", ("Chips as one.", "Chips as one, and more."))
    done = build(root, out)  # the map kept by the first build still tells the site
    assert done.site is not None and done.site.written and done.site.search is not None


def test_the_search_index_is_the_one_a_clean_build_makes(tmp_path: Path) -> None:
    root = write_record(tmp_path / "record", SEEDED)
    out, clean = tmp_path / "site", tmp_path / "clean"
    build(root, out)
    apply(root, "terms/cluster.md", ("---\ntitle:", "---\naliases: [Supercluster]\ntitle:"))
    apply(root, "sources/sa-essay.md", ("date: 2024-06", "date: 2024-07"))
    done = build(root, out)
    assert done.site is not None and done.site.written and done.site.search is not None
    clean_build(root, clean, search=True)
    assert settled(files(out)) == settled(files(clean))
    assert any("/pagefind/" in path and "/fragment/" in path for path in settled(files(out)))
    assert len(files(out)) == len(files(clean))


def test_the_index_reads_again_only_the_pages_the_build_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page the build kept is the file the last index read: what it read of it is given
    again from the state folder, not read from the page."""
    from sourcebook.publish.site.search import buckets

    root = write_record(tmp_path / "record", SEEDED)
    out, clean = tmp_path / "site", tmp_path / "clean"
    first = build(root, out)
    assert first.site is not None and first.site.search is not None
    searched = len(first.site.search_job.pages)  # type: ignore[union-attr]
    read: list[str] = []
    real = buckets.readable

    def readable(html: str) -> str:
        read.append(html)
        return real(html)

    monkeypatch.setattr(buckets, "readable", readable)
    apply(root, "terms/one-machine.md", ("Chips as one.", "Chips as one, and more."))
    done = build(root, out)
    assert done.site is not None and done.site.written and done.site.search is not None
    assert 0 < len(read) <= done.site.written and len(read) < searched // 4
    assert any("Chips as one, and more." in html for html in read)
    monkeypatch.setattr(buckets, "readable", real)
    clean_build(root, clean, search=True)
    assert settled(files(out)) == settled(files(clean))


def settled(found: dict[str, str]) -> dict[str, str]:
    """A site's files less those of its search index that Pagefind does not make the same
    from the same pages twice (its metadata and filters, and the entry file naming them);
    its index of words and its pages' fragments are."""
    unsettled = ("pagefind-entry.json", ".pf_meta", ".pf_filter")
    return {path: sha for path, sha in found.items() if not path.endswith(unsettled)}


def kept_file(root: Path) -> Path:
    return root / STATE_FOLDER / "site" / "site.marshal"


@pytest.mark.parametrize(
    "spoil",
    [
        lambda data: data[: len(data) // 2],  # cut short
        lambda data: b"\xe9" * 64,  # not marshal
        lambda data: marshal.dumps(("site", 1)),  # not a site
    ],
    ids=["cut-short", "garbage", "another-shape"],
)
def test_a_kept_site_that_is_not_whole_or_not_ours_is_not_used(tmp_path: Path, spoil) -> None:
    root = write_record(tmp_path / "record", SEEDED)
    out, clean = tmp_path / "site", tmp_path / "clean"
    build(root, out, search=False)
    apply(root, "terms/cluster.md", ("---\ntitle:", "---\naliases: [Supercluster]\ntitle:"))
    path = kept_file(root)
    path.write_bytes(spoil(path.read_bytes()))
    assert SiteMemo.open(Store.of(root)).lookup(site_made) is None
    done = build(root, out, search=False)
    assert done.site is not None and done.site.written is None  # written whole
    clean_build(root, clean)
    assert files(out) == files(clean)


def test_a_site_kept_by_another_version_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_record(tmp_path / "record", SEEDED)
    out = tmp_path / "site"
    build(root, out, search=False)
    assert SiteMemo.open(Store.of(root)).lookup(site_made) is not None
    monkeypatch.setattr(site_module, "code", lambda: "another version of sourcebook")
    assert SiteMemo.open(Store.of(root)).lookup(site_made) is None
    done = build(root, out, search=False)
    assert done.site is not None and done.site.written is None


def test_a_site_put_there_by_another_build_is_written_whole(tmp_path: Path) -> None:
    root = write_record(tmp_path / "record", SEEDED)
    out, clean = tmp_path / "site", tmp_path / "clean"
    build(root, out, search=False)  # kept: the site at the state of the record now
    edited = ("Chips as one.", "Chips as one, and more.")
    apply(root, "terms/one-machine.md", edited)
    for _ in range(2):  # --no-cache keeps nothing; the second writes into the first's folder
        build(root, out, search=False, kept=Memos.in_memory())
    apply(root, "terms/one-machine.md", edited[::-1])  # back as the kept site has it
    done = build(root, out, search=False)
    assert done.site is not None and done.site.written is None
    clean_build(root, clean)
    assert files(out) == files(clean)
    shutil.rmtree(out)
    done = build(root, out, search=False)
    assert done.site is not None and done.site.written is None
    assert files(out) == files(clean)


def test_a_build_that_fails_half_way_leaves_the_last_site_and_the_next_is_right(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_record(tmp_path / "record", SEEDED)
    out, clean = tmp_path / "site", tmp_path / "clean"
    build(root, out, search=False)
    before = files(out)
    apply(root, "terms/cluster.md", ("---\ntitle:", "---\naliases: [Supercluster]\ntitle:"))
    written = 0
    content = site_build.Writer.content

    def failing(self, page):  # type: ignore[no-untyped-def]
        nonlocal written
        written += 1
        if written > 1:
            raise KeyboardInterrupt  # as a run stopped half way
        return content(self, page)

    monkeypatch.setattr(site_build.Writer, "content", failing)
    with pytest.raises(KeyboardInterrupt):
        build(root, out, search=False)
    monkeypatch.undo()
    assert files(out) == before  # the last site, whole
    assert not [p for p in out.parent.iterdir() if ".building-" in p.name]
    done = build(root, out, search=False)
    assert done.site is not None and done.site.written
    clean_build(root, clean)
    assert files(out) == files(clean)


def test_build_says_what_it_wrote_and_no_cache_writes_the_whole_site(tmp_path: Path) -> None:
    root = write_record(tmp_path / "record", SEEDED)
    out = tmp_path / "site"

    def run(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "sourcebook", "build", str(root), "--out", str(out), *args],
            capture_output=True,
            text=True,
            env={**os.environ, "NO_COLOR": "1"},
            check=True,
        )
        return done.stdout

    assert "written" not in run()
    apply(root, "terms/one-machine.md", ("Chips as one.", "Chips as one, and more."))
    said = run()
    assert "file(s) written afresh, the rest kept from the last build" in said
    assert "written" not in run("--no-cache")


def test_a_kept_map_naming_a_file_outside_the_site_removes_nothing_there(tmp_path: Path) -> None:
    root = write_record(tmp_path / "record", SEEDED)
    out = tmp_path / "site"
    build(root, out, search=False)
    outside = tmp_path / "outside.txt"
    outside.write_text("the author's", encoding="utf-8")
    path = kept_file(root)
    kept, (header, snapshot, tokens, pages, files, *rest) = marshal.loads(path.read_bytes())
    plain = (header, snapshot, tokens, pages, [*files, "../outside.txt"], *rest)
    path.write_bytes(marshal.dumps((kept, plain)))
    apply(root, "terms/one-machine.md", ("Chips as one.", "Chips as one, and more."))
    done = build(root, out, search=False)
    assert done.site is not None and done.site.written  # the map was used
    assert outside.read_text(encoding="utf-8") == "the author's"
