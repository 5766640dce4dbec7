"""Name a Library item in a source's front matter, touching nothing else in the file."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from sourcebook.files import write_atomic
from sourcebook.library.refusal import NO_SUCH_RECORD_OR_SOURCE, Refused

_FIELD = re.compile(r"^library:[ \t]*(.*)$", re.M)
_BLOCK_ITEM = re.compile(r"^([ \t]*)-[ \t]+\S.*$")
_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")


class AttachError(Refused):
    """A source file whose `library:` field cannot be edited; one line for a person."""

    code = NO_SUCH_RECORD_OR_SOURCE


def source_file(root: Path, source_id: str) -> Path | None:
    folder = root / "sources"
    if not _ID.match(source_id):
        return None
    found = sorted(folder.rglob(f"{source_id}.md")) if folder.is_dir() else []
    return found[0] if found else None


def attach(path: Path, shelf: str) -> bool:
    """Add `shelf` to the `library:` list of the source file at `path`; False if it is there."""
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---"):
        raise AttachError(f"{path}: no front matter")
    close = text.find("\n---", 3)
    if close == -1:
        raise AttachError(f"{path}: the front matter is not closed with ---")
    head, rest = text[:close], text[close:]
    field = _FIELD.search(head)
    updated: str | None
    if field is None:
        updated = f"{head}\nlibrary: [{shelf}]"
    elif field[1].strip():
        updated = _flow(head, field, shelf, path)
    else:
        updated = _block(head, field, shelf)
    if updated is None:
        return False
    write_atomic(path, (updated + rest).encode("utf-8"))
    return True


def _flow(head: str, field: re.Match[str], shelf: str, path: Path) -> str | None:
    try:
        shelves = yaml.safe_load(field[1])
    except yaml.YAMLError:
        shelves = None
    if not isinstance(shelves, list):
        raise AttachError(f"{path}: 'library:' is not a list of shelf ids")
    if shelf in shelves:
        return None
    line = f"library: [{', '.join(map(str, [*shelves, shelf]))}]"
    return head[: field.start()] + line + head[field.end() :]


def _block(head: str, field: re.Match[str], shelf: str) -> str | None:
    lines = head[field.end() :].split("\n")[1:]
    taken: list[str] = []
    indent = "  "
    for line in lines:
        item = _BLOCK_ITEM.match(line)
        if item is None:
            break
        indent = item[1]
        taken.append(line)
    if any(line.split("-", 1)[1].strip() == shelf for line in taken):
        return None
    end = field.end() + sum(len(line) + 1 for line in taken)
    return head[:end] + f"\n{indent}- {shelf}" + head[end:]
