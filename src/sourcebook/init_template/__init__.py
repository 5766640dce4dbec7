"""The small record `sourcebook init` writes: every file here but this one, filled in;
`gitignore` is written as `.gitignore` (a packaged file is not hidden).

`$title`, `$house` and `$closes` in the files are replaced (string.Template), and the
record closes on the day it is written, so that nothing in it is dated after its close.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from string import Template

HERE = Path(__file__).parent
GITIGNORE = "gitignore"


class InitError(Exception):
    """The record cannot be written; the message says why, for a person."""


def template_files() -> list[Path]:
    return sorted(
        p
        for p in HERE.rglob("*")
        if p.is_file()
        and (p.suffix in (".md", ".toml") or p.name == GITIGNORE)
        and "__pycache__" not in p.parts
    )


def write_template(target: Path, title: str, house: str, today: date | None = None) -> list[Path]:
    """Write the record into `target`, which must be new or empty; the files written."""
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise InitError(f"{target.as_posix()} is not empty: choose a new or empty folder")
    values = {
        "title": title,
        "house": house,
        "closes": (today or date.today()).isoformat(),
    }
    toml_values = {k: json.dumps(v, ensure_ascii=False)[1:-1] for k, v in values.items()}
    written = []
    for source in template_files():
        relative = source.relative_to(HERE)
        text = source.read_text(encoding="utf-8")
        filled = Template(text).safe_substitute(toml_values if source.suffix == ".toml" else values)
        path = target / (".gitignore" if relative.name == GITIGNORE else relative)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(filled, encoding="utf-8")
        written.append(path)
    return written
