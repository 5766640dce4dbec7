"""The entity rules' results kept from run to run: an unchanged entity is not checked
again, an edited one is, and a change of settings checks them all; what is reported is
always what a check from nothing reports."""

from __future__ import annotations

import marshal
from pathlib import Path

import pytest

import sourcebook.check as check_stage
from sourcebook.incremental import CHECKED, Memos, Store
from sourcebook.pipeline import check

SOURCE = "---\ntitle: {title}\ncategory: press\ndate: {date}\nurls: [{url}]\n---\n"
CAMPUS = (
    "---\ntitle: C\nlocation: L\ncountry: US\nstatus: operating\nparties:\n"
    "  - {party: p, roles: [supplier]}\n---\n"
)
PARTY = "---\ntitle: P\ntype: company\n---\n"


@pytest.fixture
def looked_at(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the entities the entity rules look at, in this test's checks."""
    seen: list[str] = []

    def noting(entity, settings, diagnostics) -> None:
        seen.append(entity.id)

    monkeypatch.setattr(check_stage, "ENTITY_RULES", [noting, *check_stage.ENTITY_RULES])
    return seen


def _record(make_record) -> Path:
    return make_record(
        {
            "sources/late.md": SOURCE.format(title="L", date="2026-11-09", url="https://a.org"),
            "sources/fine.md": SOURCE.format(title="F", date="2026-01-02", url="https://b.org"),
            "campuses/c.md": CAMPUS,
            "parties/p.md": PARTY,
        }
    )


def _shown(root: Path, kept: Memos | None = None) -> list[str]:
    return [d.format() for d in check(root, kept=kept).diagnostics]


def _fresh(root: Path) -> list[str]:
    return _shown(root, Memos.in_memory())


def test_an_unchanged_record_is_not_looked_at_again(make_record, looked_at):
    root = _record(make_record)
    first = _shown(root)
    assert sorted(looked_at) == ["c", "chapter-1", "fine", "late", "p"]
    assert any(" D001 " in line for line in first) and any(" S012 " in line for line in first)
    looked_at.clear()
    kept = Memos.open(root)
    assert _shown(root, kept) == first
    # each of the five entities found twice: its rules' results, and what its prose says;
    # the campus once more: the quotes its lists hold; and the known-day clock
    assert looked_at == [] and kept.checked.hits == 2 * 5 + 1 + 1 and kept.checked.misses == 0


def test_an_edited_file_alone_is_checked_again(make_record, looked_at):
    root = _record(make_record)
    _shown(root)
    looked_at.clear()
    (root / "sources/fine.md").write_text(
        SOURCE.format(title="F", date="2026-01-02", url="ftp://b.org"), encoding="utf-8"
    )
    edited = _shown(root)
    assert looked_at == ["fine"]
    assert any("sources/fine.md:5:8: error S009" in line for line in edited)
    assert edited == _fresh(root)
    looked_at.clear()
    (root / "sources/late.md").write_text(
        SOURCE.format(title="L", date="2026-11-08", url="https://a.org"), encoding="utf-8"
    )
    fixed = _shown(root)
    assert looked_at == ["late"] and not any(" D001 " in line for line in fixed)
    assert fixed == _fresh(root)


def test_new_settings_check_every_entity(make_record, looked_at):
    root = _record(make_record)
    assert any(" D001 " in line for line in _shown(root))
    looked_at.clear()
    settings = root / "sourcebook.toml"
    settings.write_text(settings.read_text().replace("2026-11-08", "2026-12-31"))
    moved = _shown(root)
    assert sorted(looked_at) == ["c", "chapter-1", "fine", "late", "p"]
    assert not any(" D001 " in line for line in moved) and moved == _fresh(root)


def test_a_file_moved_is_reported_where_it_now_is(make_record, looked_at):
    root = _record(make_record)
    _shown(root)
    looked_at.clear()
    (root / "sources/late.md").rename(root / "sources/later.md")
    moved = _shown(root)
    assert looked_at == ["later"]
    assert any("sources/later.md:4:7: error D001" in line for line in moved)
    assert not any("sources/late.md" in line for line in moved) and moved == _fresh(root)


@pytest.mark.parametrize(
    "spoiled",
    [
        [("file", "one", 1, "error", "X", "m", None)],  # a line that is not a number
        [("file", 1, 1, "fatal", "X", "m", None)],  # a severity that is none
        [("file", 1, 1)],  # cut short
        "not a list",
    ],
)
def test_a_spoiled_result_is_not_trusted(make_record, looked_at, spoiled):
    root = _record(make_record)
    first = _shown(root)
    kept_file = Store.of(root).folder(CHECKED) / "kept.marshal"
    entries = marshal.loads(kept_file.read_bytes())
    kept_file.write_bytes(marshal.dumps({key: marshal.dumps(spoiled) for key in entries}))
    looked_at.clear()
    assert _shown(root) == first
    assert sorted(looked_at) == ["c", "chapter-1", "fine", "late", "p"]


def test_serve_keeps_them_in_memory_from_save_to_save(make_record, looked_at):
    root = _record(make_record)
    kept = Memos.in_memory(serving=True)
    first = _shown(root, kept)
    looked_at.clear()
    assert _shown(root, kept) == first and looked_at == []
    (root / "campuses/c.md").write_text(CAMPUS.replace("[supplier]", "[builder]"))
    saved = _shown(root, kept)
    assert looked_at == ["c"] and not any(" S012 " in line for line in saved)
    assert saved == _fresh(root)


def test_no_cache_keeps_nothing(make_record, looked_at):
    root = _record(make_record)
    _shown(root, Memos.in_memory())
    assert (
        Store.of(root).folder(CHECKED) is None
        or not (Store.of(root).folder(CHECKED) / "kept.marshal").exists()
    )
