"""The docs keep up with the code: every kind, field, diagnostic code and command."""

from __future__ import annotations

import json
import re

import pytest
from conftest import REPO

from sourcebook.cli import COMMANDS
from sourcebook.model.kinds import KINDS, CampusParty, Figure
from sourcebook.model.schema import kind_schema

RECORD_FORMAT = (REPO / "docs" / "record-format.md").read_text(encoding="utf-8")
ALL_DOCS = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "docs").glob("*.md"))


def section(heading: str) -> str:
    start = RECORD_FORMAT.index(f"\n### {heading}\n")
    following = RECORD_FORMAT.find("\n### ", start + 1)
    return RECORD_FORMAT[start : following if following != -1 else None]


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_every_kind_and_field_is_documented(kind):
    text = section(kind.name)
    assert f"`{kind.folder}/`" in text
    for field in kind.model.front_matter_fields():
        assert f"| `{field}` |" in text, f"{kind.name}.{field} is not in docs/record-format.md"


@pytest.mark.parametrize("model", [CampusParty, Figure], ids=lambda m: m.__name__)
def test_nested_objects_are_documented(model):
    text = section(model.__name__)
    for field in model.model_fields:
        assert f"| `{field}` |" in text


def test_every_diagnostic_code_is_documented():
    source = "\n".join(
        p.read_text(encoding="utf-8") for p in (REPO / "src" / "sourcebook").rglob("*.py")
    )
    used = set(re.findall(r'"([RSLDUQFXHCW]\d{3})"', source))
    assert used, "no codes found"
    missing = sorted(code for code in used if f"| {code} |" not in ALL_DOCS)
    assert not missing, f"undocumented diagnostic codes: {missing}"


def test_every_command_is_documented():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for name in COMMANDS:
        assert f"sourcebook {name}" in readme + ALL_DOCS, f"'sourcebook {name}' is undocumented"


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_committed_schemas_are_current(kind):
    committed = REPO / "schemas" / f"{kind.name}.schema.json"
    assert json.loads(committed.read_text(encoding="utf-8")) == kind_schema(kind), (
        "run 'sourcebook schema --out schemas'"
    )


def test_every_notify_setting_is_documented():
    from sourcebook.model.settings import Notify

    notify = (REPO / "docs" / "notify.md").read_text(encoding="utf-8")
    for field in Notify.model_fields:
        assert f"| `{field}` |" in notify, f"[notify] {field} is not in docs/notify.md"


def test_every_part_templates_call_is_documented():
    """A record's own templates call the view's parts: docs/site.md names each method."""
    from sourcebook.publish.site.pages.links import Links
    from sourcebook.publish.site.view.figures import Figures
    from sourcebook.publish.site.view.page_prose import PageProse
    from sourcebook.publish.site.view.query import Query

    site = (REPO / "docs" / "site.md").read_text(encoding="utf-8")
    parts = {"links": Links, "prose": PageProse, "figures": Figures, "query": Query}
    missing = [
        f"{name}.{method}"
        for name, part in parts.items()
        for method in vars(part)
        if not method.startswith("_") and callable(getattr(part, method))
        if f"`{name}.{method}" not in site
    ]
    assert not missing, f"not in docs/site.md: {missing}"
