"""What a record adds that a browser would run: in Chromium, none of it runs.

The record's own base.html leaves out any content security policy and adds scripts (an
inline one, one from its static folder under another extension, an event handler, a
`javascript:` link, one written before the doctype); its data release lists a page and a
drawing that run scripts. The site is built by the CLI and opened from `sourcebook serve`
and from `python -m http.server`, a host that sends no headers of its own: each script
would set `window.ran` or open a dialog, and none may.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import BUNDLED
from host_fixtures import http_server, sourcebook_serve
from site_fixtures import local_only, write_record

pytestmark = pytest.mark.browser

VERSION = "2026-11-08"
BASE = """<script>window.ran = "first"</script>
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ book.title }}</title>
<script>window.ran = "inline"</script>
<script src="{{ static }}run.txt"></script>
</head>
<body onload="window.ran = 'handler'">
<a id="run" href="javascript:window.ran = 'link'">run</a>
<img src="nowhere.png" onerror="window.ran = 'error'">
<{{ 'scr' ~ 'ipt' }}>window.ran = "computed"</{{ 'script' }}>
{% block main %}{% endblock %}
</body></html>
"""
RELEASED = {
    "evil.html": "<script>window.ran = 'release page'; alert(1)</script>",
    "drawings/evil.svg": (
        '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)">'
        "<script>window.ran = 'release drawing'</script></svg>"
    ),
}


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_record(tmp_path_factory.mktemp("active") / "record")
    (root / "templates").mkdir()
    (root / "templates" / "base.html").write_text(BASE, encoding="utf-8")
    (root / "static").mkdir()
    (root / "static" / "run.txt").write_text("window.ran = 'static';", encoding="utf-8")
    release = root / "releases" / VERSION
    shutil.copytree(BUNDLED / "releases" / VERSION, release)
    listed = []
    for name, text in RELEASED.items():
        (release / name).parent.mkdir(parents=True, exist_ok=True)
        (release / name).write_text(text, encoding="utf-8")
        digest = hashlib.sha256(text.encode()).hexdigest()
        listed.append(f'{{"path": "{name}", "bytes": {len(text)}, "sha256": "{digest}"}}')
    manifest = release / "release.json"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace('"files": [', '"files": [' + ", ".join(listed) + ", ", 1))
    built = subprocess.run(
        [sys.executable, "-m", "sourcebook", "build", str(root), "-o", str(root / "_site")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    assert built.stdout.count(" U003 ") >= 8, built.stdout
    return root


WATCH = """
window.__blocked = [];
document.addEventListener("securitypolicyviolation", (e) => window.__blocked.push(e.blockedURI));
"""
"""What the page's policy refused, as the browser reports it."""


def _visit(browser: Any, origin: str, paths: list[str]) -> list[str]:
    """Open each page and follow its javascript: link where it has one; what ran. Every
    page with the record's scripts must report them refused by its policy."""
    context = browser.new_context()
    context.add_init_script(WATCH)
    refused = local_only(context, origin)
    page = context.new_page()
    ran: list[str] = []
    page.on("dialog", lambda dialog: (ran.append(f"dialog {dialog.message}"), dialog.dismiss()))
    for path in paths:
        if path in RELEASE:  # not published: `serve` answers 404 as a download, run by nothing
            assert context.request.get(origin + path).status == 404, path
            continue
        answer = page.goto(origin + path)
        assert answer is not None
        if page.locator("#run").count():
            assert page.evaluate("window.__blocked.length") >= 4, path  # inline, computed, …
            before = page.evaluate("window.__blocked.length")
            page.locator("#run").click()
            page.wait_for_function(f"window.__blocked.length > {before}")  # the link, refused
        value = page.evaluate("window.ran")
        if value is not None:
            ran.append(f"{path}: {value}")
    context.close()
    assert refused == []
    return ran


PAGES = ["/vol1/", "/vol1/glossary/", "/vol1/data/releases/"]
RELEASE = [f"/vol1/data/releases/{VERSION}/{name}" for name in RELEASED]


def test_nothing_a_record_adds_runs_from_serve(browser: Any, record: Path) -> None:
    with sourcebook_serve(record, "--no-notify", "--no-watch") as origin:
        assert _visit(browser, origin, PAGES + RELEASE) == []


def test_nothing_but_the_records_own_static_script_runs_from_a_plain_host(
    browser: Any, record: Path
) -> None:
    """A host that sends no headers of its own: the policy in each page still holds, and
    the release's pages are not there. Only a script of the record's static folder loaded
    by its template runs, as the site's own scripts do; check warned of both (U003)."""
    with http_server(record / "_site") as origin:
        ran = _visit(browser, origin, PAGES + RELEASE)
        assert ran in ([], [f"{p}: static" for p in PAGES])
