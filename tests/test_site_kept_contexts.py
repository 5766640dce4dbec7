"""An edit of what prose says and what it refers to leaves every page's context as it was,
so a build after one takes each context as the last build's rather than showing it again
(`kept_site.PROSE_TOKENS`). Held here on the bundled record: a sentence added to the body
of an entity of every kind that has one, with a wiki link that refers to another entity."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import BUNDLED

from sourcebook.diagnostics import Diagnostics
from sourcebook.pipeline import read_and_link
from sourcebook.publish.site.formats.twins import with_twins
from sourcebook.publish.site.kept_site import PROSE_TOKENS, Snapshot
from sourcebook.publish.site.pages.releases import read_releases
from sourcebook.publish.site.pages.sections import site_urls
from sourcebook.publish.site.pages.site_pages import site_pages
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
def bundled(tmp_path: Path) -> Path:
    root = tmp_path / "record"
    shutil.copytree(BUNDLED, root, ignore=shutil.ignore_patterns("_site", ".sourcebook-cache"))
    return root


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
