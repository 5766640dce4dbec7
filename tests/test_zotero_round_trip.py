"""A Zotero library out and back: a Better BibTeX export and a Zotero CSL-JSON export of the
same items, each imported into a new record, exported again and read as Zotero reads an
import, keep every field Zotero had, field by field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import REPO, run
from zotero_rules import FIELDS, field_table, items_from_bibtex, items_from_csl

CORPUS = REPO / "tests" / "corpus" / "zotero"
EXPORTS = {
    "csl-json": (CORPUS / "Compute Race.json", items_from_csl),
    "bibtex": (CORPUS / "Compute Race.bib", items_from_bibtex),
}


@pytest.fixture(scope="module")
def round_trips(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, dict]]:
    """Per format: the items Zotero had (its export read back), and the items of
    sourcebook's export of the record they were imported into."""
    done = {}
    for name, (export, read) in EXPORTS.items():
        folder = tmp_path_factory.mktemp(name.replace("-", ""))
        record = folder / "record"
        assert run("init", str(record)).returncode == 0
        shutil.copy(export, folder / export.name)
        imported = run("import", str(folder / export.name), str(record))
        assert imported.returncode == 0, imported.stdout + imported.stderr
        assert run("check", str(record)).returncode == 0
        out = folder / f"out{export.suffix}"
        assert run("export", name, str(record), "-o", str(out)).returncode == 0
        done[name] = (read(export), read(out))
    return done


CASES = [
    (fmt, key, field)
    for fmt, (export, read) in EXPORTS.items()
    for key, field, _ in field_table(read(export))
]


@pytest.mark.parametrize(("fmt", "key", "field"), CASES, ids=["/".join(c) for c in CASES])
def test_every_field_zotero_had_comes_back(round_trips, fmt: str, key: str, field: str) -> None:
    before, after = round_trips[fmt]
    assert after[key].get(field) == before[key][field]


@pytest.mark.parametrize("fmt", list(EXPORTS))
def test_nothing_comes_back_that_zotero_did_not_have(round_trips, fmt: str) -> None:
    before, after = round_trips[fmt]
    assert set(after) - set(before) == {"commonmark-spec"}  # the record's own, from init
    for key in before:
        assert set(after[key]) == set(before[key]), key


def test_the_exports_hold_every_field_the_round_trip_is_about() -> None:
    for export, read in EXPORTS.values():
        held = {field for item in read(export).values() for field in item}
        assert held == set(FIELDS), export.name


def test_keys_travel_and_ids_are_written_as_people_expect(tmp_path: Path) -> None:
    record = tmp_path / "record"
    assert run("init", str(record)).returncode == 0
    assert run("import", str(CORPUS / "Compute Race.bib"), str(record)).returncode == 0
    epoch = (record / "sources" / "epochai-2025.md").read_text(encoding="utf-8")
    assert "citation_key: EpochAI:2025\n" in epoch
    assert "organizations: [epoch-ai]\n" in epoch
    assert (record / "people" / "soren-orsted.md").is_file()
    assert (record / "people" / "gunnhild-aebelo.md").is_file()
    assert (record / "people" / "jorg-strasse.md").is_file()
    orsted = (record / "sources" / "orsted2024offshore.md").read_text(encoding="utf-8")
    assert "pages: 81–97\n" in orsted and "language: da\n" in orsted
    assert "accessed: 2024-03-02\n" in orsted and "volume: '187'\n" in orsted
    # The manuscript's keys cite the sources as they are.
    (record / "chapters" / "chapter-1.md").write_text(
        "---\ntitle: One\nnumber: 1\nsummary: S.\n---\n"
        "The hub counts sites [@EpochAI:2025, p. 2]; the IEA agrees [@IEA:EnergyAI].\n",
        encoding="utf-8",
    )
    checked = run("check", str(record))
    assert checked.returncode == 0, checked.stdout
    assert run("build", str(record), "-q").returncode == 0
    notes = (record / "_site" / "notes" / "chapter-1" / "index.html").read_text("utf-8")
    assert 'href="/sources/research#epochai-2025"' in notes
    assert 'href="/sources/research#iea-energyai"' in notes
    sources = (record / "_site" / "sources" / "research" / "index.html").read_text("utf-8")
    assert "International Energy Agency, OECD Publishing, <i>Energy and AI</i>" in sources


def test_an_unknown_key_is_reported_as_an_unknown_source(tmp_path: Path) -> None:
    record = tmp_path / "record"
    assert run("init", str(record)).returncode == 0
    (record / "chapters" / "chapter-1.md").write_text(
        "---\ntitle: One\nnumber: 1\nsummary: S.\n---\nAs counted [@EpochAI:2026].\n", "utf-8"
    )
    checked = run("check", str(record))
    assert checked.returncode == 1
    assert "EpochAI:2026" in checked.stdout


def test_a_key_two_sources_give_is_an_error(tmp_path: Path) -> None:
    record = tmp_path / "record"
    assert run("init", str(record)).returncode == 0
    for name in ("one", "two"):
        (record / "sources" / f"{name}.md").write_text(
            f"---\ntitle: {name}\ncategory: other\ncitation_key: Same:2025\n---\n", "utf-8"
        )
    checked = run("check", str(record))
    assert checked.returncode == 1
    assert (
        f"{record}/sources/two.md:4:15: error L008 citation key 'Same:2025' is also source "
        "'one''s: [@Same:2025] cites 'one'"
    ) in checked.stdout
