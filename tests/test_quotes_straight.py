"""Words in straight quotes right before a citation: a warning that they are no quote, and
`check --fix-quotes`, which makes them one in place and changes nothing else."""

from __future__ import annotations

from pathlib import Path

from conftest import run
from hypothesis import given
from hypothesis import strategies as st

from sourcebook.link.prose import STRAIGHT_CITED, curled

SOURCE = """\
---
title: Stargate UAE
category: press
annotation: >-
  The first phase is sized at "200 megawatts" [@stargate-uae], it says.
---
"""

CHAPTER = """\
---
title: The Stakes
number: 1
summary: What the race is for.
---
The campus will draw "1 gigawatt" [@stargate-uae, p. 2]; a "so-called" campus is
no citation. "Left as written," [@stargate-uae] she said, 5" pipes [@stargate-uae].
"""

PAGE = "The first phase is sized at 200 megawatts. The campus will draw 1 gigawatt.\n"


def record_with_copy(make_record, tmp_path: Path) -> Path:
    root = make_record({"sources/stargate-uae.md": SOURCE, "chapters/chapter-1.md": CHAPTER})
    page = tmp_path / "stargate.txt"
    page.write_text(PAGE, encoding="utf-8")
    added = run("library", "add", str(page), str(root), "--source", "stargate-uae")
    assert added.returncode == 0, added.stderr
    return root


def test_straight_quotes_before_a_citation_are_a_warning(make_record, tmp_path: Path) -> None:
    root = record_with_copy(make_record, tmp_path)
    result = run("check", str(root))
    assert result.returncode == 0, result.stdout
    said = "warning Q011 words in straight quotes before a citation are not checked as a quote"
    warned = [line.split(": ", 1) for line in result.stdout.splitlines() if " Q011 " in line]
    assert warned == [
        [f"{root}/chapters/chapter-1.md:6:22", said],
        [f"{root}/chapters/chapter-1.md:7:14", said],
        [f"{root}/sources/stargate-uae.md:5:31", said],
    ]
    assert "hint: write them in curly quotes, “…”, to have them proved" in result.stdout
    assert "--fix-quotes" in result.stdout


def test_fix_quotes_makes_them_quotes_in_place_and_nothing_else(
    make_record, tmp_path: Path
) -> None:
    root = record_with_copy(make_record, tmp_path)
    chapter = root / "chapters" / "chapter-1.md"
    source = root / "sources" / "stargate-uae.md"
    before = {path: path.read_bytes() for path in (chapter, source)}
    result = run("check", str(root), "--fix-quotes")
    assert f"made 2 quotes curly in {root}/chapters/chapter-1.md" in result.stdout
    assert f"made 1 quote curly in {root}/sources/stargate-uae.md" in result.stdout
    assert "Q011" not in result.stdout
    # Now a quote, "Left as written," is proved against the copy, which does not hold it.
    assert result.returncode == 1
    assert f"{root}/chapters/chapter-1.md:7:15: error Q001 quote not found" in result.stdout
    assert chapter.read_text("utf-8") == CHAPTER.replace('"1 gigawatt"', "“1 gigawatt”").replace(
        '"Left as written,"', "“Left as written,”"
    )
    assert source.read_text("utf-8") == before[source].decode().replace(
        '"200 megawatts"', "“200 megawatts”"
    )
    for path, old in before.items():
        new = path.read_bytes().decode()
        changed = [(a, b) for a, b in zip(old.decode(), new, strict=True) if a != b]
        assert {a for a, _ in changed} == {'"'} and {b for _, b in changed} <= {"“", "”"}
    listed = run("check", str(root), "--quotes", "--list")
    assert "“200 megawatts”" in listed.stdout and "“1 gigawatt”" in listed.stdout
    assert run("check", str(root), "--fix-quotes").stdout.count("made ") == 0


@given(st.text(alphabet=st.sampled_from('ab "“”[]@,;. \n-:'), max_size=80))
def test_curling_changes_only_the_straight_marks_of_cited_words(text: str) -> None:
    fixed = curled(text)
    assert len(fixed) == len(text)
    for old, new in zip(text, fixed, strict=True):
        assert old == new or (old == '"' and new in "“”")
    assert curled(fixed) == fixed
    assert not STRAIGHT_CITED.search(fixed)
