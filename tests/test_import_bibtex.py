"""`sourcebook import` of a Better BibTeX .bib file, and `export bibtex` back again."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run
from zotero_fixtures import BETTER_BIBTEX

from sourcebook.interchange.bibtex import read_bibtex, write_bibtex
from sourcebook.interchange.works import Creator, Work

SETTINGS = '[book]\ntitle = "B"\nhouse = "H"\ncloses = 2026-11-08\n'


def new_record(folder: Path) -> Path:
    folder.mkdir()
    (folder / "sourcebook.toml").write_text(SETTINGS, encoding="utf-8")
    return folder


@pytest.fixture
def bib(tmp_path: Path) -> Path:
    path = tmp_path / "My Library.bib"
    path.write_text(BETTER_BIBTEX, encoding="utf-8")
    return path


def test_braces_accents_and_names_are_read(bib: Path) -> None:
    works = {w.key: w for w in read_bibtex(bib)}
    assert works["leguin1969"].title == "The Left Hand of Darkness: Études & Notes"
    assert works["leguin1969"].type == "book"
    assert works["leguin1969"].date == "1969-03"
    assert works["leguin1969"].publisher == "Ace Books"
    assert works["sevilla2022"].authors[2] == Creator(given="Zoë", family="Müller")
    assert works["sevilla2022"].pages == "1–8"
    assert works["sevilla2022"].container == (
        "2022 International Joint Conference on Neural Networks (IJCNN)"
    )
    assert works["king1963"].authors == [
        Creator(given="Martin Luther", family="King", suffix="Jr.")
    ]
    assert works["king1963"].type == "webpage"
    assert works["EpochAI:2025"].authors == [Creator(literal="Epoch AI")]
    assert works["kinder2025fairwater"].type == "article-newspaper"
    assert works["kinder2025fairwater"].authors[1].family == "Le Guin"


def test_a_bib_file_becomes_sources_that_check(bib: Path, tmp_path: Path) -> None:
    record = new_record(tmp_path / "record")
    result = run("import", str(bib), str(record))
    assert result.returncode == 0, result.stderr
    assert "5 sources: 5 new" in result.stdout
    book = (record / "sources" / "leguin1969.md").read_text("utf-8")
    assert "title: 'The Left Hand of Darkness: Études & Notes'\n" in book
    assert "authors: [ursula-k-le-guin]\n" in book
    assert (record / "people" / "zoe-muller.md").read_text("utf-8") == (
        "---\ntitle: Zoë Müller\ngiven: Zoë\nfamily: Müller\n---\n"
    )
    assert len(list((record / "people").glob("ursula*"))) == 1
    assert run("check", str(record)).returncode == 0


def test_bibtex_out_and_in_again_gives_the_same_sources(bib: Path, tmp_path: Path) -> None:
    record = new_record(tmp_path / "record")
    run("import", str(bib), str(record))
    out = tmp_path / "out.bib"
    assert run("export", "bibtex", str(record), "-o", str(out)).returncode == 0
    exported = out.read_text("utf-8")
    assert "@book{leguin1969," in exported
    assert "author = {King, Jr., Martin Luther}," in exported
    assert "author = {{Epoch AI}}," in exported
    assert "title = {{The Left Hand of Darkness: Études \\& Notes}}," in exported
    fresh = new_record(tmp_path / "fresh")
    assert "5 sources: 5 new" in run("import", str(out), str(fresh)).stdout
    for path in sorted((record / "sources").glob("*.md")):
        assert (fresh / "sources" / path.name).read_text("utf-8") == path.read_text("utf-8")
    for path in sorted((record / "people").glob("*.md")):
        assert (fresh / "people" / path.name).read_text("utf-8") == path.read_text("utf-8")


def test_tex_special_characters_are_escaped_and_read_back(tmp_path: Path) -> None:
    title = "R&D at 50% of $10 #1 in_full {braces} ~ ^ \\ back"
    work = Work(key="odd", type="report", title=title, authors=[Creator("Zoë", "Müller")])
    path = tmp_path / "odd.bib"
    path.write_text(write_bibtex([work]), encoding="utf-8")
    assert r"R\&D at 50\% of \$10 \#1 in\_full \{braces\}" in path.read_text("utf-8")
    (read,) = read_bibtex(path)
    assert read.title.startswith("R&D at 50% of $10 #1 in_full {braces} ~ ")
    assert read.authors == [Creator("Zoë", "Müller")]


def test_a_malformed_bib_file_is_one_line_naming_file_and_line(tmp_path: Path) -> None:
    record = new_record(tmp_path / "record")
    path = tmp_path / "broken.bib"
    path.write_text("@article{ok, title = {Fine}}\n\n@misc{bad,\n  title = {never closed\n")
    result = run("import", str(path), str(record))
    assert result.returncode == 2
    assert result.stderr == f"error: {path}:3: not BibTeX: Unexpectedly reached end of file.\n"


def test_an_unknown_format_is_refused(tmp_path: Path) -> None:
    record = new_record(tmp_path / "record")
    path = tmp_path / "library.enw"
    path.write_text("%0 Journal Article\n%T A title\n")
    result = run("import", str(path), str(record))
    assert result.returncode == 2
    assert "not a Zotero export: CSL-JSON (.json), BibTeX (.bib) or RIS (.ris)" in result.stderr
