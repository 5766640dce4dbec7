"""Every kind of page of the bundled site checked by axe-core in Chromium, at 1280 and
390 px: no serious or critical accessibility violation. axe-core is the npm package,
installed by .ci/run into `.npm-tools/` (or named by SOURCEBOOK_AXE); nothing is fetched
while the tests run."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from site_fixtures import local_only
from test_browser_reader import PAGE_KINDS

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
AXE = Path(os.environ.get("SOURCEBOOK_AXE") or ROOT / ".npm-tools/node_modules/axe-core/axe.min.js")
RUN = """async () => {
  const found = await axe.run(document, {resultTypes: ['violations']});
  return found.violations
    .filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => v.id + ' (' + v.impact + '): ' +
         v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', '));
}"""


@pytest.fixture(scope="module")
def axe() -> str:
    if not AXE.is_file():
        pytest.skip(f"axe-core is not installed at {AXE} (.ci/run installs it)")
    return AXE.read_text(encoding="utf-8")


@pytest.fixture(scope="module", params=[1280, 390], ids=lambda w: f"{w}px")
def context(request: pytest.FixtureRequest, browser: Any, origin: str) -> Iterator[Any]:
    # The pages' policy lets no script in but their own: the checker is put in past it.
    made = browser.new_context(viewport={"width": request.param, "height": 800}, bypass_csp=True)
    refused = local_only(made, origin)
    yield made
    assert refused == []
    made.close()


@pytest.mark.parametrize("url", PAGE_KINDS)
def test_no_serious_or_critical_violation(context: Any, origin: str, axe: str, url: str) -> None:
    page = context.new_page()
    page.goto(origin + url)
    page.add_script_tag(content=axe)
    assert page.evaluate(RUN) == [], url
    page.close()
