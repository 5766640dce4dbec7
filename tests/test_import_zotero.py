"""`sourcebook import`: a Zotero CSL-JSON export in, edited by hand, imported again, out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run
from zotero_fixtures import csl_items, csl_json

SETTINGS = '[book]\ntitle = "B"\nhouse = "H"\ncloses = 2026-11-08\n'


@pytest.fixture
def record(tmp_path: Path) -> Path:
    """A record that already has one of the authors (unaccented) and one publisher."""
    root = tmp_path / "record"
    (root / "people").mkdir(parents=True)
    (root / "parties").mkdir()
    (root / "sourcebook.toml").write_text(SETTINGS, encoding="utf-8")
    (root / "people" / "zoe-muller.md").write_text("---\ntitle: ZOE MULLER\n---\n", "utf-8")
    (root / "parties" / "ft.md").write_text(
        "---\ntitle: The Financial Times\naliases: [Financial Times]\ntype: publisher\n---\n",
        "utf-8",
    )
    return root


def export(tmp_path: Path, items: list | None = None, name: str = "library.json") -> Path:
    path = tmp_path / name
    path.write_text(csl_json(items), encoding="utf-8")
    return path


def files(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_an_export_becomes_sources_people_and_parties(record: Path, tmp_path: Path) -> None:
    result = run("import", str(export(tmp_path)), str(record))
    assert result.returncode == 0, result.stderr
    assert "4 sources: 4 new, 0 updated" in result.stdout
    assert "5 new people, 2 new parties" in result.stdout
    made = files(record)
    assert made["sources/sevilla2022.md"] == (
        "---\n"
        "title: Compute Trends Across Three Eras of Machine Learning\n"
        "category: research\n"
        "csl_type: paper-conference\n"
        "authors: [jaime-sevilla, lennart-heim, zoe-muller]\n"
        "publisher: ieee\n"
        "publication: 2022 International Joint Conference on Neural Networks (IJCNN)\n"
        "date: 2022-07\n"
        "doi: 10.1109/IJCNN55064.2022.9891914\n"
        "pages: 1–8\n"
        "urls:\n"
        "  - https://arxiv.org/abs/2202.05924\n"
        "---\n"
    )
    assert "publisher: ft\n" in made["sources/kinder2025fairwater.md"]
    assert "category: press\n" in made["sources/kinder2025fairwater.md"]
    assert "sources/epochai-2025.md" in made
    assert "italic_title: true" in made["sources/epochai-2025.md"]
    assert made["parties/epoch-ai.md"] == "---\ntitle: Epoch AI\ntype: company\n---\n"
    assert made["people/martin-luther-king-jr.md"] == (
        "---\ntitle: Martin Luther King Jr.\ngiven: Martin Luther\nfamily: King\n---\n"
    )
    assert "people/zoe-muller-2.md" not in made
    checked = run("check", str(record))
    assert checked.returncode == 0, checked.stdout


def test_dry_run_shows_and_writes_nothing(record: Path, tmp_path: Path) -> None:
    before = files(record)
    result = run("import", str(export(tmp_path)), str(record), "--dry-run")
    assert result.returncode == 0
    assert "would create sources/sevilla2022.md" in result.stdout
    assert "would create people/jaime-sevilla.md" in result.stdout
    assert "(dry run: nothing written)" in result.stdout
    assert files(record) == before


HAND_EDITED = """\
---
# Read in print; the FT's page is paywalled.
title: Microsoft opens its Fairwater AI campus in Atlanta
category: press
csl_type: article-newspaper
authors: [tabby-kinder, ursula-k-le-guin]
publisher: ft
date: 2025-11-12
urls:
  - https://www.ft.com/content/3a1b
  - https://archive.example/ft-3a1b
annotation: >-
  Says the site links to Wisconsin
  over a dedicated network.
quality: secondary
---
Notes kept by hand.
"""


def test_reimport_takes_zoteros_changes_and_keeps_the_authors(record: Path, tmp_path: Path) -> None:
    assert run("import", str(export(tmp_path)), str(record)).returncode == 0
    ft = record / "sources" / "kinder2025fairwater.md"
    ft.write_text(HAND_EDITED, encoding="utf-8")
    sevilla = record / "sources" / "sevilla2022.md"
    sevilla.write_text(
        sevilla.read_text("utf-8").replace("pages: 1–8\n", "pages: 1–8  # checked\n")
        + "The body.\n",
        "utf-8",
    )
    items = csl_items()
    items[0]["title"] = "Microsoft opens the first Fairwater site in Atlanta"
    items[0]["issued"] = {"date-parts": [[2025, 11, 13]]}
    items[0]["URL"] = "https://www.ft.com/content/3a1b-v2"
    items[1]["DOI"] = "10.1109/IJCNN55064.2022.9891915"
    items[1]["author"].append({"family": "Hobbhahn", "given": "Marius"})
    path = export(tmp_path, items)
    before = files(record)

    shown = run("import", str(path), str(record), "--dry-run")
    assert files(record) == before
    assert "would update sources/kinder2025fairwater.md" in shown.stdout
    assert "  date: 2025-11-12 → 2025-11-13" in shown.stdout
    assert "conflict sources/kinder2025fairwater.md: title: yours" in shown.stdout
    assert "  doi: 10.1109/IJCNN55064.2022.9891914 → 10.1109/IJCNN55064.2022.9891915" in (
        shown.stdout
    )

    result = run("import", str(path), str(record))
    assert result.returncode == 0, result.stderr
    assert "4 sources: 0 new, 2 updated, 2 unchanged, 1 conflicts; 1 new people" in result.stdout
    expected = HAND_EDITED.replace("date: 2025-11-12", "date: 2025-11-13").replace(
        "content/3a1b\n", "content/3a1b-v2\n"
    )
    assert ft.read_text("utf-8") == expected
    updated = sevilla.read_text("utf-8")
    assert updated == before["sources/sevilla2022.md"].replace(
        "authors: [jaime-sevilla, lennart-heim, zoe-muller]",
        "authors: [jaime-sevilla, lennart-heim, zoe-muller, marius-hobbhahn]",
    ).replace("IJCNN55064.2022.9891914", "IJCNN55064.2022.9891915")
    again = run("import", str(path), str(record))
    assert "0 new, 0 updated, 3 unchanged, 1 conflicts" in again.stdout
    state = json.loads((record / "imports" / "zotero.json").read_text("utf-8"))
    assert state["sources"]["kinder2025fairwater"]["fields"]["title"] == (
        "Microsoft opens new AI campus in Atlanta"
    )
    assert run("check", str(record)).returncode == 0


def test_the_authors_edit_of_a_field_zotero_left_alone_stays(record: Path, tmp_path: Path) -> None:
    path = export(tmp_path)
    run("import", str(path), str(record))
    king = record / "sources" / "king1963.md"
    king.write_text(king.read_text("utf-8").replace("1963-04-16", "1963-04"), "utf-8")
    result = run("import", str(path), str(record))
    assert "0 updated, 4 unchanged, 0 conflicts" in result.stdout
    assert "date: 1963-04\n" in king.read_text("utf-8")


def test_colliding_keys_are_reported(record: Path, tmp_path: Path) -> None:
    items = csl_items()
    items[3]["citation-key"] = "Sevilla2022"
    result = run("import", str(export(tmp_path, items)), str(record))
    assert result.returncode == 1
    assert "citation key 'Sevilla2022' makes the id 'sevilla2022', as 'sevilla2022'" in (
        result.stderr
    )
    assert not (record / "sources" / "king1963.md").exists()
    assert (record / "sources" / "sevilla2022.md").exists()


def test_malformed_json_is_one_line_naming_file_and_line(record: Path, tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('[\n  {"id": "a",\n   "title": }\n]\n', encoding="utf-8")
    result = run("import", str(path), str(record))
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: {path}:3:")
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1


def test_export_gives_zotero_the_same_keys(record: Path, tmp_path: Path) -> None:
    run("import", str(export(tmp_path)), str(record))
    result = run("export", "csl-json", str(record))
    assert result.returncode == 0, result.stderr
    exported = {item["id"]: item for item in json.loads(result.stdout)}
    assert sorted(exported) == ["EpochAI:2025", "kinder2025fairwater", "king1963", "sevilla2022"]
    sevilla = exported["sevilla2022"]
    assert sevilla["citation-key"] == "sevilla2022"
    assert sevilla["type"] == "paper-conference"
    assert sevilla["DOI"] == "10.1109/IJCNN55064.2022.9891914"
    assert sevilla["page"] == "1-8"
    assert sevilla["issued"] == {"date-parts": [[2022, 7]]}
    assert sevilla["author"][2] == {"family": "MULLER", "given": "ZOE"}
    assert exported["king1963"]["author"] == [
        {"family": "King", "given": "Martin Luther", "suffix": "Jr."}
    ]
    assert exported["EpochAI:2025"]["author"] == [{"literal": "Epoch AI"}]
    assert exported["EpochAI:2025"]["citation-key"] == "EpochAI:2025"
    assert exported["kinder2025fairwater"]["container-title"] == "The Financial Times"


def test_an_export_imported_into_a_new_record_gives_the_same_sources(
    record: Path, tmp_path: Path
) -> None:
    run("import", str(export(tmp_path)), str(record))
    out = tmp_path / "out.json"
    assert run("export", "csl-json", str(record), "-o", str(out)).returncode == 0
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / "sourcebook.toml").write_text(SETTINGS, encoding="utf-8")
    (fresh / "parties").mkdir()
    (fresh / "parties" / "ft.md").write_text(
        (record / "parties" / "ft.md").read_text("utf-8"), "utf-8"
    )
    result = run("import", str(out), str(fresh))
    assert "4 sources: 4 new" in result.stdout
    for name in ("sevilla2022", "kinder2025fairwater", "king1963", "epochai-2025"):
        mine = (record / "sources" / f"{name}.md").read_text("utf-8")
        assert (fresh / "sources" / f"{name}.md").read_text("utf-8") == mine


def test_a_field_added_by_hand_stays_while_zotero_has_none(record: Path, tmp_path: Path) -> None:
    path = export(tmp_path)
    run("import", str(path), str(record))
    king = record / "sources" / "king1963.md"
    king.write_text(king.read_text("utf-8").replace("---\n", "---\ndoi: 10.1/letter\n", 1))
    result = run("import", str(path), str(record))
    assert "0 updated, 4 unchanged, 0 conflicts" in result.stdout
    assert "doi: 10.1/letter\n" in king.read_text("utf-8")
