"""The speed-ups change nothing built: with every one off (SOURCEBOOK_PLAIN=1), or one at a
time, `sourcebook build` and `sourcebook check` give the same bytes as with all on."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import BUNDLED
from test_bench_generator import _load_generator
from test_site_build import snapshot

from sourcebook.runtime import TRICKS, fast, plain

SYNTHETIC = 2_100
"""Entities past which files are read and prose linked by workers (PARALLEL_FROM)."""


def sourcebook(*args: str, plain: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SOURCEBOOK_PLAIN": plain}
    done = subprocess.run(
        [sys.executable, "-m", "sourcebook", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode in (0, 1), done.stderr
    return done


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("synthetic") / "record"
    _load_generator().generate(SYNTHETIC, root, seed=3)
    return root


@pytest.fixture(scope="module")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bundled") / "record"
    shutil.copytree(BUNDLED, root, ignore=shutil.ignore_patterns("_site", ".sourcebook-cache"))
    return root


@pytest.fixture(scope="module")
def fast_sites(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], dict[str, str]]:
    """Each record's site as a build with every speed-up on writes it, built once for the
    tests that turn the speed-ups off all together and one at a time."""
    built: dict[Path, dict[str, str]] = {}

    def site_of(root: Path) -> dict[str, str]:
        if root not in built:
            out = tmp_path_factory.mktemp("fast") / "site"
            assert sourcebook("build", str(root), "--out", str(out), "-q").returncode == 0
            built[root] = snapshot(out)
        return built[root]

    return site_of


@pytest.mark.parametrize("which", ["bundled", "synthetic"])
def test_every_speed_up_off_builds_the_same_site(
    which: str,
    request: pytest.FixtureRequest,
    fast_sites: Callable[[Path], dict[str, str]],
    tmp_path: Path,
) -> None:
    root = request.getfixturevalue(which)
    plain_build = sourcebook("build", str(root), "--out", str(tmp_path / "plain"), "-q", plain="1")
    assert plain_build.returncode == 0, plain_build.stdout
    fast_site, plain_site = fast_sites(root), snapshot(tmp_path / "plain")
    assert len(fast_site) > 100
    assert fast_site == plain_site
    checks = [sourcebook("check", str(root), "--format", "json", plain=p) for p in ("", "1")]
    assert checks[0].stdout == checks[1].stdout and '"diagnostics"' in checks[0].stdout


@pytest.mark.parametrize("trick", ["workers", "collector"])
def test_each_speed_up_off_alone_builds_the_same_site(
    trick: str,
    synthetic: Path,
    fast_sites: Callable[[Path], dict[str, str]],
    tmp_path: Path,
) -> None:
    one_off = sourcebook("build", str(synthetic), "--out", str(tmp_path / "off"), "-q", plain=trick)
    assert one_off.returncode == 0
    assert snapshot(tmp_path / "off") == fast_sites(synthetic)


def test_the_switch_names_the_speed_ups_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOURCEBOOK_PLAIN", raising=False)
    assert all(fast(t) for t in TRICKS)
    monkeypatch.setenv("SOURCEBOOK_PLAIN", "1")
    assert all(plain(t) for t in TRICKS)
    monkeypatch.setenv("SOURCEBOOK_PLAIN", "exit, collector")
    assert [t for t in TRICKS if plain(t)] == ["collector", "exit"]
    monkeypatch.setenv("SOURCEBOOK_PLAIN", "0")
    assert not any(plain(t) for t in TRICKS)


def test_with_workers_off_a_large_record_is_read_in_one_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sourcebook.runtime.workers import worker_count

    monkeypatch.delenv("SOURCEBOOK_PLAIN", raising=False)
    monkeypatch.setenv("SOURCEBOOK_PLAIN", "workers")
    assert worker_count(10_000, 2_000) == 1
