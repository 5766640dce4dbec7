"""`sourcebook import` of RIS, as Zotero exports it: no keys, so ids are made."""

from __future__ import annotations

from pathlib import Path

from conftest import run

ZOTERO_RIS = """\
TY  - CONF
TI  - Compute Trends Across Three Eras of Machine Learning
AU  - Sevilla, Jaime
AU  - Müller, Zoë
T2  - 2022 International Joint Conference on Neural Networks (IJCNN)
DA  - 2022/07//
PY  - 2022
DO  - 10.1109/IJCNN55064.2022.9891914
SP  - 1
EP  - 8
PB  - IEEE
UR  - https://arxiv.org/abs/2202.05924
Y2  - 2025/11/13/09:00:00
ER  -

TY  - NEWS
TI  - The Microsoft campus in Atlanta
AU  - King, Martin Luther, Jr.
T2  - Financial Times
DA  - 2025/11/12/
PY  - 2025
UR  - https://www.ft.com/content/3a1b
ER  -

TY  - RPRT
ID  - epoch-hub
TI  - Frontier Data Centers Hub
AU  - Epoch AI
PY  - 2025
UR  - https://epoch.ai/data/data-centers
ER  -
""".replace("ER  -\n", "ER  - \n")
"""Zotero ends each item with `ER  - `, its trailing space included."""


def test_ris_items_become_sources(tmp_path: Path) -> None:
    record = tmp_path / "record"
    record.mkdir()
    (record / "sourcebook.toml").write_text(
        '[book]\ntitle = "B"\nhouse = "H"\ncloses = 2026-11-08\n', encoding="utf-8"
    )
    path = tmp_path / "Exported Items.ris"
    path.write_text(ZOTERO_RIS, encoding="utf-8")
    result = run("import", str(path), str(record))
    assert result.returncode == 0, result.stderr
    assert "3 sources: 3 new" in result.stdout
    paper = (record / "sources" / "sevilla2022compute.md").read_text("utf-8")
    assert "csl_type: paper-conference\n" in paper
    assert "date: 2022-07\n" in paper and "pages: 1–8\n" in paper
    assert "authors: [jaime-sevilla, zoe-muller]\n" in paper
    news = (record / "sources" / "king2025microsoft.md").read_text("utf-8")
    assert "category: press\n" in news and "date: 2025-11-12\n" in news
    assert (record / "people" / "martin-luther-king-jr.md").exists()
    assert "organizations: [epoch-ai]\n" in (record / "sources" / "epoch-hub.md").read_text("utf-8")
    assert run("check", str(record)).returncode == 0
