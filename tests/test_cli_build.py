"""`sourcebook build`, `serve` and `init` as a user runs them: output and exit status."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from conftest import BUNDLED, run
from site_fixtures import write_record

from sourcebook.publish.site.serving.swap import MARK

INIT_FOLDERS = {"chapters", "parties", "people", "sources", "terms"}


def test_build_writes_the_site_into_the_record(tmp_path: Path) -> None:
    root = write_record(tmp_path / "record")
    result = run("build", str(root))
    assert result.returncode == 0, result.stderr
    last = result.stdout.splitlines()[-1]
    assert last.startswith("Built ") and f"pages into {root / '_site'} in " in last
    assert "warning Q003" in result.stdout  # warnings are shown, as check shows them
    assert (root / "_site" / "vol1" / "glossary" / "cluster" / "index.html").is_file()
    assert (root / "_site" / MARK).is_file()


def test_build_quiet_says_nothing_and_out_chooses_the_folder(tmp_path: Path) -> None:
    root = write_record(tmp_path / "record")
    result = run("build", str(root), "--quiet", "-o", str(tmp_path / "public"))
    assert result.returncode == 0 and result.stdout == "" and result.stderr == ""
    assert (tmp_path / "public" / "vol1" / "index.html").is_file()


def test_build_refuses_a_record_with_errors_and_prints_them_as_check_does(tmp_path: Path) -> None:
    root = write_record(tmp_path / "record", {"terms/cluster.md": "---\ntitle: Cluster\n---\n"})
    built = run("build", "record", cwd=tmp_path)
    checked = run("check", "record", cwd=tmp_path)
    assert built.returncode == 1
    assert built.stdout == checked.stdout
    assert "record/terms/cluster.md:2:1: error S001 missing field 'definition'" in built.stdout
    assert not (root / "_site").exists()


def test_build_keeps_the_last_good_site_when_the_record_breaks(tmp_path: Path) -> None:
    root = write_record(tmp_path / "record")
    assert run("build", str(root), "-q").returncode == 0
    before = (root / "_site" / "vol1" / "glossary" / "cluster" / "index.html").read_bytes()
    (root / "terms" / "one-machine.md").write_text("---\ntitle: [\n---\n")
    assert run("build", str(root), "-q").returncode == 1
    assert (root / "_site" / "vol1" / "glossary" / "cluster" / "index.html").read_bytes() == before


def test_build_of_a_folder_that_is_not_a_record(tmp_path: Path) -> None:
    result = run("build", str(tmp_path))
    assert result.returncode == 2
    assert "no sourcebook.toml here" in result.stderr


def test_build_will_not_overwrite_a_folder_it_did_not_make(tmp_path: Path) -> None:
    root = write_record(tmp_path / "record")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    result = run("build", str(root), "-o", str(tmp_path / "mine"))
    assert result.returncode == 2
    assert "did not build" in result.stderr
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep"


def test_init_writes_a_record_that_checks_and_builds_clean(tmp_path: Path) -> None:
    result = run("init", str(tmp_path / "my-book"))
    assert result.returncode == 0, result.stderr
    assert "sourcebook serve" in result.stdout
    toml = (tmp_path / "my-book" / "sourcebook.toml").read_text()
    assert 'title = "My Book"' in toml and 'house = "MY BOOK"' in toml
    checked = run("check", str(tmp_path / "my-book"))
    assert checked.returncode == 0
    assert checked.stdout.strip().endswith("0 errors, 0 warnings")
    assert run("build", str(tmp_path / "my-book"), "-q").returncode == 0
    html = (tmp_path / "my-book" / "_site" / "glossary" / "backlink" / "index.html").read_text()
    assert "<title>Backlink: what it means · My Book · MY BOOK</title>" in html
    # What build and check leave in the record (the site, their caches) git ignores.
    ignored = (tmp_path / "my-book" / ".gitignore").read_text().splitlines()
    assert {"_site/", "._site.*/", ".sourcebook-cache/"} <= set(ignored)
    made = {p.name for p in (tmp_path / "my-book").iterdir()} - {"_site", ".sourcebook-cache"}
    assert made - {".git"} == {".gitignore", "README.md", "sourcebook.toml", *INIT_FOLDERS}


def test_init_titles_are_escaped_in_settings(tmp_path: Path) -> None:
    result = run("init", str(tmp_path / "r"), "--title", 'The "Quoted" Book \\ One')
    assert result.returncode == 0
    assert run("check", str(tmp_path / "r")).returncode == 0


def test_init_refuses_a_folder_that_is_not_empty(tmp_path: Path) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x.txt").write_text("x")
    result = run("init", str(tmp_path / "full"))
    assert result.returncode == 2
    assert "not empty" in result.stderr


def test_serve_builds_and_serves_on_the_loopback(tmp_path: Path) -> None:
    root = write_record(tmp_path / "record")
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "sourcebook", "serve", str(root), "-p", str(port), "--no-watch"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        html = ""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                url = f"http://127.0.0.1:{port}/vol1/glossary/cluster"
                with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310
                    html = response.read().decode()
                break
            except OSError:
                time.sleep(0.2)
        assert ">Cluster</h1>" in html
    finally:
        process.terminate()
        out, _ = process.communicate(timeout=10)
    assert f"on http://127.0.0.1:{port}/vol1/" in out


def test_serve_refuses_a_folder_that_is_not_a_record(tmp_path: Path) -> None:
    result = run("serve", str(tmp_path))
    assert result.returncode == 2
    assert "not a record" in result.stderr


def test_build_as_of_a_day_before_the_record_closes(tmp_path: Path) -> None:
    out = tmp_path / "site"
    result = run("build", str(BUNDLED), "--out", str(out), "--quiet", "--as-of", "2025-06-01")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (out / "vol1" / "glossary" / "cluster" / "index.html").is_file()
    late = run("build", str(BUNDLED), "--out", str(out), "--quiet", "--as-of", "2027-01-01")
    assert late.returncode == 2 and "error:" in late.stderr
