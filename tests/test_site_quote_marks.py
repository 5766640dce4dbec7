"""A quote proved against the Library shows its ✓ wherever it is written: in a term's
prose as in a source's annotation."""

from __future__ import annotations

from pathlib import Path

from conftest import run

SOURCE = """\
---
title: Stargate UAE
category: press
annotation: >-
  It says the first phase is “200 megawatts”.
---
"""

TERM = """\
---
title: Gigawatt campus
definition: A campus of “200 megawatts” [@stargate-uae] or more, as one report puts it.
chapters: [chapter-1]
---
The report says “The first phase is sized at 200 megawatts” [@stargate-uae], and
“a line the copy does not hold” [@stargate-uae].
"""


def test_a_verified_quote_in_a_terms_prose_has_its_mark(make_record, tmp_path: Path) -> None:
    root = make_record({"sources/stargate-uae.md": SOURCE, "terms/gigawatt-campus.md": TERM})
    page = tmp_path / "stargate.txt"
    page.write_text("The first phase is sized at 200 megawatts.\n", encoding="utf-8")
    assert run("library", "add", str(page), str(root), "--source", "stargate-uae").returncode == 0
    built = run("build", str(root), "-q")
    assert built.returncode == 1  # the line the copy does not hold is an error
    (root / "terms" / "gigawatt-campus.md").write_text(
        TERM.replace(", and\n“a line the copy does not hold” [@stargate-uae]", ""), "utf-8"
    )
    built = run("build", str(root), "-q")
    assert built.returncode == 0, built.stdout + built.stderr
    html = (root / "_site" / "vol1" / "glossary" / "gigawatt-campus" / "index.html").read_text(
        encoding="utf-8"
    )
    verified = '<span class="quote" data-proof="verified" title="Found in Library S1">'
    assert f"{verified}“200 megawatts”</span>" in html
    assert f"{verified}“The first phase is sized at 200 megawatts”</span>" in html
    sources = (root / "_site" / "vol1" / "sources" / "press" / "index.html").read_text("utf-8")
    assert f"{verified}“200 megawatts”</span>" in sources  # as its annotation's quote
