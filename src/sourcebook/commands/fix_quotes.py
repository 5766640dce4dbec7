"""`sourcebook check --fix-quotes`: words in straight quotes before a citation made a
quote, in place."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from sourcebook.files import write_atomic
from sourcebook.link.prose import curled
from sourcebook.model.kinds import KINDS
from sourcebook.read.frontmatter import FrontMatterError, RecordLoader, split
from sourcebook.read.paths import Confined


def fix_quotes(root: Path) -> list[tuple[str, int, bool]]:
    """Make curly the straight quotes before each citation in the record's files; (file as
    shown, quotes made curly, whether written) for each file that has any. A file is left
    as it is where its front matter would not read the same but for those quotes (a YAML
    double-quoted value escapes its marks)."""
    confined = Confined(root)
    shown_root = root.as_posix().rstrip("/")
    done = []
    for kind in KINDS:
        folder = kind.folder if shown_root in ("", ".") else f"{shown_root}/{kind.folder}"
        for path, shown in confined.files(root / kind.folder, folder):
            if not path.endswith(".md"):
                continue
            try:
                text = Path(path).read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue  # check reports it
            fixed = curled(text)
            if fixed == text:
                continue
            count = sum(1 for a, b in zip(text, fixed, strict=True) if a != b) // 2
            same = _reads_the_same(text, fixed, shown)
            if same:
                write_atomic(Path(path), fixed.encode("utf-8"))
            done.append((shown, count, same))
    return done


def _reads_the_same(text: str, fixed: str, shown: str) -> bool:
    """Whether `fixed` reads as `text` does with its prose's straight quotes made curly."""
    try:
        before, after = _read(text, shown), _read(fixed, shown)
    except (FrontMatterError, yaml.YAMLError):
        return False
    return _curled(before) == after


def _read(text: str, shown: str) -> tuple[Any, str]:
    front, _, body, _ = split(text, shown)
    return yaml.load(front, Loader=RecordLoader), body  # noqa: S506 - RecordLoader is safe


def _curled(value: Any) -> Any:
    if isinstance(value, str):
        return curled(value)
    if isinstance(value, list | tuple):
        return type(value)(_curled(v) for v in value)
    if isinstance(value, dict):
        return {k: _curled(v) for k, v in value.items()}
    return value
