"""Shared fixtures: small records written into a temporary folder, file by file."""

from __future__ import annotations

import compileall
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

pytest_plugins = ["notify_fixtures", "library_server"]

settings.register_profile("sourcebook", deadline=None)
settings.load_profile("sourcebook")
"""No property test races a clock: an example is never failed for the time it took, which a
loaded machine decides (a test that sets a deadline of its own keeps it)."""

REPO = Path(__file__).resolve().parent.parent
BUNDLED = REPO / "examples" / "compute-race"

SETTINGS = """\
[book]
title = "A Small Book"
house = "HOUSE"
closes = 2026-11-08

[site]
base_path = "/vol1"
"""

CHAPTER = """\
---
title: The Stakes
number: 1
summary: What the race is for.
---
"""

MakeRecord = Callable[..., Path]

LONGEST_FIRST = (
    "test_serve_equivalence.py",
    "test_build_kept.py",
    "test_serve_told_equivalence.py",
    "test_search_as_one_index.py",
    "test_search_incremental.py",
    "test_runtime_plain.py",
    "test_hostile_records.py",
    "test_as_of_property.py",
    "test_check_remembered.py",
)
"""The files whose tests take longest, each a few minutes of work: run first, so that the
workers of `-n 3 --dist loadfile` end together rather than one waiting on another's
last long file."""


def pytest_configure(config: pytest.Config) -> None:
    """sourcebook's modules compiled to bytecode once, before any test starts a process, as
    an installed package has them: where PYTHONDONTWRITEBYTECODE is set (as in some CI
    images) and sourcebook is installed editable, each `sourcebook` process a test starts
    would otherwise compile every module it imports again. Once, by the process that hands
    out the tests."""
    if hasattr(config, "workerinput"):
        return
    import sourcebook

    compileall.compile_dir(Path(sourcebook.__file__).parent, quiet=1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest files first, each file's tests in their own order."""
    rank = {name: place for place, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@pytest.fixture(scope="session")
def bundled_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled record's site, built once for every test that only reads it."""
    from site_fixtures import build

    return build(BUNDLED, tmp_path_factory.mktemp("bundled") / "site")


@pytest.fixture
def bundled_copy(tmp_path: Path) -> Path:
    """A copy of the bundled record, without its site or its state folder, to edit."""
    root = tmp_path / "record"
    shutil.copytree(BUNDLED, root, ignore=shutil.ignore_patterns("_site", ".sourcebook-cache"))
    return root


@pytest.fixture(scope="module")
def origin(bundled_site: Path) -> Iterator[str]:
    """The bundled site served on 127.0.0.1, for one module's tests; its origin. The server's
    thread ends with the module: a process with other threads builds without forking. A
    module that needs another site defines its own."""
    from site_fixtures import serving

    with serving(bundled_site) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium, for one module's tests."""
    from site_fixtures import chromium

    with chromium() as launched:
        yield launched


@pytest.fixture
def make_record(tmp_path: Path) -> MakeRecord:
    """Write a record: `make_record({"terms/cluster.md": "..."})`; text is dedented."""

    def make(
        files: dict[str, str | bytes], settings: str = SETTINGS, with_chapter: bool = True
    ) -> Path:
        root = tmp_path / "record"
        root.mkdir(exist_ok=True)
        (root / "sourcebook.toml").write_text(settings, encoding="utf-8")
        if with_chapter:
            files = {"chapters/chapter-1.md": CHAPTER, **files}
        for name, content in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(textwrap.dedent(content), encoding="utf-8")
        return root

    return make


def term(
    title: str,
    definition: str = "A thing.",
    chapters: str = "[chapter-1]",
    extra: str = "",
    body: str = "",
) -> str:
    """The text of a term file."""
    front = f"title: {title}\ndefinition: {definition}\nchapters: {chapters}\n{extra}"
    return f"---\n{front}---\n{body}"


def calls_of(
    monkeypatch: pytest.MonkeyPatch,
    owner: Any,
    name: str,
    noted: Callable[..., Any] = lambda *args: 1,
) -> list[Any]:
    """Each call of `owner.name` from now on, as `noted` says it of the call's arguments
    (1 where not told; a call it says None of is not noted); the calls themselves made."""
    calls: list[Any] = []
    original = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        said = noted(*args, **kwargs)
        if said is not None:
            calls.append(said)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


def codes(checked) -> list[str]:
    return [d.code for d in checked.diagnostics]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`sourcebook ARGS` as a user runs it: a process of its own, its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "sourcebook", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )
