"""The changelog of a release: against the previous release, it names exactly what changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from release_fixtures import copy_bundled, run

from sourcebook.publish.release.version import previous_release, version_key

NEW_TERM = """\
---
title: Release day
definition: The day a data release of the record is made.
chapters: [chapter-1]
---
"""

NEW_CORRECTION = """\
---
title: Meta's power misread
scope: book
date: 2026-11-01
wrong: The record gave Meta 319 MW.
right: The aggregator's figure for Meta is 368 MW.
---
"""

QUOTE_BEFORE = "is to be converted into an additional data center beginning in 2026"
QUOTE_AFTER = "is to be converted into an additional data center"


def edit(root: Path, name: str, old: str, new: str) -> None:
    path = root / name
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{name} no longer holds {old!r}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def changelog_of(release: Path) -> dict:
    return json.loads((release / "changelog.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def two_releases(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = copy_bundled(tmp_path_factory.mktemp("changelog") / "compute-race")
    assert run("release", "v1", str(root), "-q").returncode == 0
    edit(root, "parties/meta.md", "    value: 319\n", "    value: 368\n")
    (root / "terms" / "release-day.md").write_text(NEW_TERM, encoding="utf-8")
    (root / "people" / "tate-reeves.md").unlink()
    (root / "corrections" / "meta-power-misread.md").write_text(NEW_CORRECTION, encoding="utf-8")
    edit(
        root,
        "sources/ciol-xai-southaven-20b.md",
        "center beginning in 2026”, and Elon",
        "center”, and Elon",
    )
    second = run("release", "v2", str(root))
    assert second.returncode == 0, second.stdout + second.stderr
    assert (
        "Since v1: 1 added, 1 removed, 1 figure changed, 1 quote corrected, "
        "1 correction logged. See CHANGELOG.md." in second.stdout
    )
    return root / "releases" / "v1", root / "releases" / "v2"


def test_a_first_release_says_it_is_the_first(two_releases: tuple[Path, Path]) -> None:
    first, _second = two_releases
    changelog = changelog_of(first)
    assert changelog["first"] is True and changelog["previous"] is None
    assert "This is the record's first release" in (first / "CHANGELOG.md").read_text()


def test_the_changelog_names_exactly_what_changed(two_releases: tuple[Path, Path]) -> None:
    changelog = changelog_of(two_releases[1])
    assert changelog["previous"] == "v1" and changelog["first"] is False
    assert changelog["added"] == [{"kind": "term", "id": "release-day", "title": "Release day"}]
    assert changelog["removed"] == [{"kind": "person", "id": "tate-reeves", "title": "Tate Reeves"}]
    [figure] = changelog["figures_changed"]
    assert (figure["figure"], figure["owner_kind"], figure["owner_id"]) == (
        "party:meta:1",
        "party",
        "meta",
    )
    assert (figure["old"]["value"], figure["old"]["unit"]) == (319, "MW")
    assert (figure["new"]["value"], figure["new"]["unit"]) == (368, "MW")
    assert figure["old"]["source"] == figure["new"]["source"] == "aigazine-epoch-mw-by-lab"
    assert changelog["quotes_corrected"] == [
        {
            "owner_kind": "source",
            "owner_id": "ciol-xai-southaven-20b",
            "field": "annotation",
            "source": "ciol-xai-southaven-20b",
            "old": QUOTE_BEFORE,
            "new": QUOTE_AFTER,
        }
    ]
    assert [c["id"] for c in changelog["corrections"]] == ["meta-power-misread"]
    assert changelog["figures_added"] == changelog["figures_removed"] == []


def test_the_changelog_page_says_the_same_for_people(two_releases: tuple[Path, Path]) -> None:
    page = (two_releases[1] / "CHANGELOG.md").read_text(encoding="utf-8")
    assert page.startswith("# The AI Compute Race: data release v2\n\nChanges since release v1.")
    assert "- term `release-day`: Release day" in page
    assert "- person `tate-reeves`: Tate Reeves" in page
    assert "Meta (party `meta`), it-power, operating, as of 2025-07: 319 MW → 368 MW" in page
    assert f"“{QUOTE_BEFORE}” → “{QUOTE_AFTER}”" in page
    assert "`meta-power-misread`: Meta's power misread" in page
    headings = [line for line in page.splitlines() if line.startswith("## ")]
    assert headings == [
        "## Added",
        "## Removed",
        "## Figures changed",
        "## Quotes corrected",
        "## Corrections logged",
    ]


def test_a_release_of_an_unchanged_record_lists_nothing(tmp_path: Path) -> None:
    root = copy_bundled(tmp_path / "record")
    assert run("release", "1.0.0", str(root), "-q").returncode == 0
    again = run("release", "1.0.1", str(root))
    assert "Since 1.0.0: nothing changed." in again.stdout
    changelog = changelog_of(root / "releases" / "1.0.1")
    assert not any(v for k, v in changelog.items() if isinstance(v, list)), changelog


def test_the_previous_release_is_the_latest_that_sorts_before(tmp_path: Path) -> None:
    releases = tmp_path / "releases"
    for name in ("1.9.0", "1.10.0", "2.0.0", ".2.0.0.partial", "notes"):
        (releases / name).mkdir(parents=True)
        (releases / name / "release.json").write_text("{}")
    (releases / "1.11.0").mkdir()  # no release.json: not a release
    assert sorted(["1.10.0", "1.9.0", "v2", "v10"], key=version_key) == [
        "1.9.0",
        "1.10.0",
        "v2",
        "v10",
    ]
    ordered = ["1.0.0-rc.1", "1.0.0-rc.2", "1.0.0", "1.0.1+build.5", "1.1.0"]
    assert sorted(reversed(ordered), key=version_key) == ordered
    assert sorted(["2026-11-08", "2025-12-31"], key=version_key) == ["2025-12-31", "2026-11-08"]
    assert previous_release(releases, "2.0.0").name == "1.10.0"  # type: ignore[union-attr]
    assert previous_release(releases, "3.0.0").name == "2.0.0"  # type: ignore[union-attr]
    assert previous_release(releases, "1.0.0") is None


def test_a_previous_release_that_cannot_be_read_is_reported(tmp_path: Path) -> None:
    root = copy_bundled(tmp_path / "record")
    (root / "releases" / "v1").mkdir(parents=True)
    (root / "releases" / "v1" / "release.json").write_text("{}")
    result = run("release", "v2", str(root), "-q")
    assert result.returncode == 1
    assert "releases/v1/release.json:1:1: error R013 'tables': field required" in result.stdout
    assert "Traceback" not in result.stderr
    assert sorted(p.name for p in (root / "releases").iterdir()) == ["v1"]
