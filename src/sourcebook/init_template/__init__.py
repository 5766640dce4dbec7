"""The small record `sourcebook init` writes: every file here but this one, filled in;
`gitignore` is written as `.gitignore` (a packaged file is not hidden).

`$title` and `$house` in the files are replaced (string.Template). The record is left
open (no `closes`), so that it checks clean on any later day, and its settings name no
author or licence: those are the author's to choose.
"""

from __future__ import annotations

import json
import shutil
import subprocess
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


def write_template(target: Path, title: str, house: str) -> list[Path]:
    """Write the record into `target`, which must be new or empty; the files written."""
    if target.exists() and not target.is_dir():
        raise InitError(f"{target.as_posix()}: not a folder: choose a new or empty folder")
    if target.exists() and any(target.iterdir()):
        raise InitError(f"{target.as_posix()} is not empty: choose a new or empty folder")
    values = {"title": title, "house": house}
    toml_values = {k: json.dumps(v, ensure_ascii=False)[1:-1] for k, v in values.items()}
    written = []
    for source in template_files():
        relative = source.relative_to(HERE)
        text = source.read_text(encoding="utf-8")
        filled = Template(text).safe_substitute(toml_values if source.suffix == ".toml" else values)
        path = target / (".gitignore" if relative.name == GITIGNORE else relative)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(filled, encoding="utf-8")
        except OSError as exc:
            raise InitError(f"{path.parent.as_posix()}: {exc.strerror or exc}") from None
        written.append(path)
    return written


def make_repository(target: Path) -> str:
    """Make `target` a git repository, where git is installed and `target` is in none yet;
    what was done, as the end of a sentence."""
    git = shutil.which("git")
    if git is None:
        return "git is not installed, so it is no repository yet: a record lives in git"
    inside = subprocess.run(
        [git, "-C", str(target), "rev-parse", "--show-toplevel"], capture_output=True, text=True
    )
    if inside.returncode == 0:
        return f"it is kept in the git repository at {inside.stdout.strip()}"
    made = subprocess.run([git, "init", "-q", str(target)], capture_output=True, text=True)
    if made.returncode != 0:
        problem = (made.stderr.strip().splitlines() or ["git init failed"])[-1]
        return f"git could not make it a repository ({problem})"
    return "a new git repository"
