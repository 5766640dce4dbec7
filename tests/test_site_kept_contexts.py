"""An edit of what prose says and what it refers to leaves every page's context as it was,
so a build after one takes each context as the last build's rather than showing it again
(`kept_site.PROSE_TOKENS`). Held here on the bundled record: a sentence added to the body
of an entity of every kind that has one, with a wiki link that refers to another entity."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from sourcebook.diagnostics import Diagnostics
from sourcebook.incremental import UNCOMPARED, TracedRecord
from sourcebook.pipeline import read_and_link
from sourcebook.publish.site.formats.twins import with_twins
from sourcebook.publish.site.kept_site import PROSE_TOKENS, Snapshot
from sourcebook.publish.site.pages.releases import read_releases
from sourcebook.publish.site.pages.sections import site_urls
from sourcebook.publish.site.pages.site_pages import SITEMAP, grouped_pages, site_pages
from sourcebook.publish.site.reads import context_reads

FRONT = re.compile(r"\A---\n.*?\n---\n", re.S)


def contexts(root: Path) -> tuple[dict[str, tuple[str, str]], Snapshot]:
    """Every page's template and context as a build shows it, and what pages can read."""
    record, graph = read_and_link(root, None, Diagnostics())
    assert record is not None
    urls = site_urls(record.settings.site)
    pages = with_twins(site_pages(record, urls, read_releases(root)), urls.base)
    shown = {page.url: (page.template, context_reads(page.context)[0]) for page in pages}
    return shown, Snapshot.of(record, graph, [], [])


@pytest.fixture
def bundled(bundled_copy: Path) -> Path:
    return bundled_copy


def test_a_prose_edit_leaves_every_context_as_it_was(bundled: Path) -> None:
    before, was = contexts(bundled)
    edited = []
    for folder in sorted(p for p in bundled.iterdir() if p.is_dir() and p.name[0] not in "._"):
        for path in sorted(folder.glob("*.md"))[:2]:
            text = path.read_text(encoding="utf-8")
            front = FRONT.match(text)
            if front is None or not text[front.end() :].strip():
                continue  # no body: a sentence added would give it one, a field pages read
            path.write_text(text + "\nOne more sentence, on [[cluster]].\n", encoding="utf-8")
            edited.append(path.relative_to(bundled).as_posix())
    assert len({name.split("/")[0] for name in edited}) >= 6, edited
    after, now = contexts(bundled)
    changed = now.changes(was)
    assert changed is not None and changed
    assert {token[0] for token in changed} <= PROSE_TOKENS
    assert {token[0] for token in changed} >= {"body", "in", "out"}
    assert after == before


def grouped_contexts(root: Path) -> tuple[dict[str, tuple[str, bytes]], dict[str, Any], Snapshot]:
    """Every page's group and context as a build shows it, what each group's making read,
    and what pages can read."""
    record, graph = read_and_link(root, None, Diagnostics())
    assert record is not None
    urls = site_urls(record.settings.site)
    grouped = grouped_pages(TracedRecord.of_record(record), urls, read_releases(root))
    group_of = {page.url: group.name for group in grouped for page in group.pages}
    pages = with_twins([page for group in grouped for page in group.pages], urls.base)
    shown = {}
    for page in pages:
        group = group_of.get(page.url) or group_of[page.context["of"].url]
        shown[page.url] = (group, context_reads(page.context)[0].encode())
    reads = {group.name: group.reads for group in grouped}
    return shown, reads, Snapshot.of(record, graph, [], [])


FIELD_EDITS = [
    ("campuses", re.compile(r"^title: (.+)$", re.M), r"title: \1 North"),
    ("terms", re.compile(r"^title: (.+)$", re.M), r"title: \1 again"),
    ("sources", re.compile(r"^(date: '?)\d{4}", re.M), r"\g<1>2019"),
    ("people", re.compile(r"^title: (.+)$", re.M), r"title: \1 Jr"),
    ("chapters", re.compile(r"^title: (.+)$", re.M), r"title: \1, revised"),
    ("corrections", re.compile(r"^title: (.+)$", re.M), r"title: \1 (again)"),
]
"""A field of one entity of a kind, changed: what lists that kind, or names it, reads it."""


@pytest.mark.parametrize("folder, field, into", FIELD_EDITS, ids=[e[0] for e in FIELD_EDITS])
def test_a_group_that_read_nothing_an_edit_changed_makes_the_same_contexts(
    bundled: Path, folder: str, field: re.Pattern[str], into: str
) -> None:
    """What a build takes as the last one's (`SiteBuild._note_contexts`) is what showing
    the contexts again would find: every page of a group whose making read nothing the
    edit changed, and read nothing no build compares, has the context it had."""
    before, reads, was = grouped_contexts(bundled)
    path = next(p for p in sorted((bundled / folder).glob("*.md")) if field.search(p.read_text()))
    path.write_text(field.sub(into, path.read_text(), count=1), encoding="utf-8")
    after, _, now = grouped_contexts(bundled)
    changed = now.changes(was)
    assert changed is not None and changed
    kept = {
        name for name, read in reads.items() if UNCOMPARED not in read and read.isdisjoint(changed)
    }
    made_again = set(reads) - kept
    assert kept and made_again, (sorted(kept), sorted(made_again))  # the edit tells groups apart
    assert set(after) == set(before)
    for url, (group, context) in after.items():
        if group in kept and group != SITEMAP:
            assert context == before[url][1], url
    differ = {after[url][0] for url in after if after[url][1] != before[url][1]}
    assert differ <= made_again | {SITEMAP}


def test_a_build_after_a_field_edit_shows_again_only_the_groups_that_read_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from site_fixtures import write_record
    from test_serve_equivalence import SEEDED, apply

    from sourcebook.pipeline import build
    from sourcebook.publish.site import build as site_build

    root = write_record(tmp_path / "record", SEEDED)
    out = tmp_path / "site"
    build(root, out, search=False, jobs=1)
    shown: list[str] = []
    real = site_build.context_reads

    def noted(context: dict[str, Any], seen: Any = None) -> Any:
        shown.append(repr(sorted(context))[:60])
        return real(context, seen)

    monkeypatch.setattr(site_build, "context_reads", noted)
    apply(root, "campuses/colossus-2.md", ("title: Colossus 2", "title: Colossus Two"))
    done = build(root, out, search=False, jobs=1)
    assert done.site is not None and done.site.written
    pages = done.site.pages
    assert 0 < len(shown) < pages // 2  # the campuses' pages, not every page's
    shown.clear()
    apply(root, "terms/one-machine.md", ("Chips as one.", "Chips as one, and more."))
    done = build(root, out, search=False, jobs=1)
    assert done.site is not None and done.site.written
    assert len(shown) <= done.site.written  # a prose edit: only the pages written
