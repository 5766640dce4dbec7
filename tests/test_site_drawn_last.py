"""The charts are drawn beside the rest of the build: the pages that do not show them are
written meanwhile, and search indexes every page, the drawn ones too, once each."""

from __future__ import annotations

import gzip
import json
import multiprocessing
import os
import shutil
from pathlib import Path

import pytest
from conftest import BUNDLED
from site_fixtures import build

from sourcebook.publish.site import BuildError
from sourcebook.publish.site.drawing import vega
from sourcebook.publish.site.drawing.drawn import DrawnCharts
from sourcebook.publish.site.pages.render import Writer
from sourcebook.publish.site.pages.sections import DRAWN_TEMPLATES


def copy(tmp_path: Path) -> Path:
    record = tmp_path / "record"
    shutil.copytree(BUNDLED, record, ignore=shutil.ignore_patterns("_site", ".sourcebook-cache"))
    return record


def test_the_other_pages_are_written_before_the_build_waits_for_the_drawings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[tuple[str, str]] = []
    started, finish, write = DrawnCharts.start, DrawnCharts.finish, Writer.write

    def starting(self: DrawnCharts) -> None:
        events.append(("start", ""))
        started(self)

    def waiting(self: DrawnCharts) -> None:
        events.append(("wait", ""))
        finish(self)

    def writing(self: Writer, page, content=None) -> None:
        events.append((page.template, page.url))
        write(self, page, content)

    monkeypatch.setattr(DrawnCharts, "start", starting)
    monkeypatch.setattr(DrawnCharts, "finish", waiting)
    monkeypatch.setattr(Writer, "write", writing)
    build(copy(tmp_path), tmp_path / "site", jobs=1)
    kinds = [kind for kind, _ in events]
    assert kinds[0] == "start" and kinds.count("wait") == 1
    wait = kinds.index("wait")
    before, after = kinds[1:wait], kinds[wait + 1 :]
    assert len(before) > 100 and not DRAWN_TEMPLATES & set(before)
    assert sorted(after) == sorted(DRAWN_TEMPLATES)


def fragment_urls(site: Path) -> list[str]:
    urls = []
    for fragment in (site / "vol1" / "pagefind").glob("*/fragment/*"):
        text = gzip.decompress(fragment.read_bytes())
        urls.append(json.loads(text[text.index(b"{") :])["url"])
    return urls


def test_search_holds_the_drawn_pages_once_each(bundled_site: Path) -> None:
    urls = fragment_urls(bundled_site)
    assert urls.count("/vol1/observatory/") == 1 and urls.count("/vol1/paper/") == 1
    assert len(urls) == len(set(urls))
    pages = 0
    for entry in (bundled_site / "vol1" / "pagefind").glob("*/pagefind-entry.json"):
        pages += json.loads(entry.read_text())["languages"]["en"]["page_count"]
    assert pages == len(urls)


def _refuse(out, specs) -> None:  # as the drawing child, for every chart
    out.send((False, "the engine refused it"))
    out.close()


def test_a_chart_that_cannot_be_drawn_stops_the_build_and_nothing_is_left_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = copy(tmp_path)
    out = build(record, tmp_path / "site")
    before = (out / "vol1" / "ledger" / "index.html").read_bytes()
    shutil.rmtree(record / ".sourcebook-cache", ignore_errors=True)
    monkeypatch.setattr(vega, "_draw", _refuse)
    with pytest.raises(BuildError, match=r"charts/[\w-]+\.md:\d+:\d+: chart '[\w-]+': the engine"):
        build(record, out)
    assert (out / "vol1" / "ledger" / "index.html").read_bytes() == before
    assert not multiprocessing.active_children()
    assert not _children_named("pagefind")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["record", "site"]


def _children_named(name: str) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and name.encode() in command:
            found.append(int(stat.parent.name))
    return found
