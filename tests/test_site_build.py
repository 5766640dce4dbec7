"""build_site: whole or not at all, never from a record with errors, the same every time."""

from __future__ import annotations

import hashlib
import multiprocessing
import shutil
from pathlib import Path

import pytest
from conftest import BUNDLED
from site_fixtures import build, page, write_record

from sourcebook import pipeline
from sourcebook.incremental import STATE_FOLDER
from sourcebook.pipeline import build_site, check
from sourcebook.publish.site import BuildError
from sourcebook.publish.site.pages import render as render_module
from sourcebook.publish.site.serving.swap import MARK


def snapshot(folder: Path) -> dict[str, str]:
    """Every file's path and digest: a site byte for byte. The search index is left out
    but for its script: Pagefind orders its filter files differently from run to run."""
    found = {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }
    index = {path for path in found if path.startswith("vol1/pagefind/")}
    assert "vol1/pagefind/index.json" in index
    assert any(path.endswith("/pagefind.js") for path in index)
    return {path: digest for path, digest in found.items() if path not in index}


def test_a_record_with_errors_is_never_built(tmp_path: Path) -> None:
    root = write_record(tmp_path / "r", {"terms/bad.md": "---\ntitle: Bad\n---\n"})
    checked = check(root)
    assert not checked.ok
    with pytest.raises(BuildError, match="errors"):
        build_site(checked, tmp_path / "site")
    assert not (tmp_path / "site").exists()


def test_a_failed_build_leaves_the_last_good_site_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_record(tmp_path / "r")
    site = build(root)
    before = snapshot(site)
    written = []
    real_write = render_module.Writer.write

    def failing(self: render_module.Writer, page: object) -> None:
        written.append(page)
        if len(written) == 10:
            raise OSError("disk full")
        real_write(self, page)  # type: ignore[arg-type]

    monkeypatch.setattr(render_module.Writer, "write", failing)
    (root / "terms" / "cluster.md").write_text(
        (root / "terms" / "cluster.md").read_text().replace("one machine", "one computer")
    )
    with pytest.raises(OSError, match="disk full"):
        build_site(check(root), site)
    assert snapshot(site) == before
    hidden = [p.name for p in site.parent.iterdir() if p.name.startswith(".")]
    assert set(hidden) <= {STATE_FOLDER}  # no half-built site left beside it


def test_a_failing_template_leaves_the_last_good_site(tmp_path: Path) -> None:
    root = write_record(tmp_path / "r")
    site = build(root)
    before = snapshot(site)
    (root / "templates").mkdir()
    (root / "templates" / "campus.html").write_text("{{ entity.no_such_field }}")
    with pytest.raises(Exception, match="no_such_field"):
        build_site(check(root), site)
    assert snapshot(site) == before


def test_a_rebuild_replaces_the_site_whole(tmp_path: Path) -> None:
    root = write_record(tmp_path / "r")
    site = build(root)
    (root / "campuses" / "stargate-uae.md").unlink()
    build(root)
    assert not (site / "vol1" / "ledger" / "stargate-uae" / "index.html").exists()
    assert (site / MARK).is_file()


def test_a_folder_sourcebook_did_not_build_is_never_replaced(tmp_path: Path) -> None:
    root = write_record(tmp_path / "r")
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    with pytest.raises(BuildError, match="did not build"):
        build_site(check(root), precious)
    assert (precious / "thesis.tex").read_text() == "years of work"


def test_the_same_record_gives_the_same_site_serial_or_parallel(tmp_path: Path) -> None:
    root = write_record(tmp_path / "r")
    one = build(root, tmp_path / "one", jobs=1)
    two = build(root, tmp_path / "two", jobs=2)
    again = build(root, tmp_path / "again", jobs=1)
    assert snapshot(one) == snapshot(two) == snapshot(again)


def test_a_build_of_a_record_with_errors_stops_its_workers_unwritten(tmp_path: Path) -> None:
    root = write_record(tmp_path / "r", {"terms/bad.md": "---\ntitle: Bad\n---\n"})
    done = pipeline.build(root, tmp_path / "site", jobs=2)
    assert done.site is None and not done.checked.ok
    assert multiprocessing.active_children() == []
    assert not (tmp_path / "site").exists()


def test_parallel_rendering_spreads_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render_module, "CHUNK", 3)
    root = write_record(tmp_path / "r")
    calls = []
    site = build(root, tmp_path / "site", jobs=2, progress=lambda done, total: calls.append(done))
    written = [
        p for p in site.rglob("*") if p.suffix in (".html", ".xml", ".json", ".atom", ".txt")
    ]
    pages = [p for p in written if not {"static", "pagefind"} & set(p.parts)]
    assert calls[-1] == len(pages) - 1  # previews.json is one file of the build, not a page
    assert len(calls) > 3


def test_a_record_overrides_templates_and_static_files(tmp_path: Path) -> None:
    root = write_record(tmp_path / "r")
    (root / "templates").mkdir()
    (root / "templates" / "consent.html").write_text(
        '{% extends "sourcebook/consent.html" %}{% block title %}Your privacy{% endblock %}'
    )
    (root / "static").mkdir()
    (root / "static" / "site.css").write_text("body { color: black; }")
    (root / "static" / "logo.svg").write_text("<svg/>")
    site = build(root)
    consent = page(site, "/vol1/consent")
    assert "<title>Your privacy · The AI Compute Race · DRYBURGH</title>" in consent
    assert "this site keeps nothing about you" in consent
    assert (site / "vol1/static/site.css").read_text() == "body { color: black; }"
    assert (site / "vol1/static/logo.svg").is_file()
    assert (site / "vol1/static/site.js").is_file()


def test_the_bundled_site_is_the_same_in_the_sandbox(bundled_site: Path, tmp_path: Path) -> None:
    """A template of the record's own puts every template in Jinja's sandbox, which refuses
    a private attribute: the built-in templates call nothing it refuses, and give the same
    site there."""
    root = tmp_path / "r"
    shutil.copytree(BUNDLED, root, ignore=shutil.ignore_patterns(".sourcebook-cache", "_site"))
    (root / "templates").mkdir()
    (root / "templates" / "unused.html").write_text("{# a template of the record's own #}\n")
    assert snapshot(build(root, tmp_path / "site")) == snapshot(bundled_site)


def test_progress_counts_every_page(tmp_path: Path) -> None:
    root = write_record(tmp_path / "r")
    seen: list[tuple[int, int]] = []
    build(root, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1][0] == seen[-1][1] == len(seen)
