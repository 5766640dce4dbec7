"""Change some fields of an entity file and leave every other byte as the author wrote it.

The front matter is edited line by line, not loaded and dumped again: a top-level field
runs from its `key:` line to the next line that starts at column 0, so replacing a
field rewrites its own lines only, and the author's order, comments, quoting, folding
and body stay byte for byte. A round-trip YAML library (ruamel.yaml) keeps comments
too, but re-emits the whole document in its own layout (indentation of lists, line
width, quoting), so that an import would show changes in fields it never touched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

from sourcebook.model.base import DAY_PATTERN
from sourcebook.read.frontmatter import FrontMatterError, RecordLoader, split

_KEY = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:(?:[ \t]|$)")
_BLOCK = re.compile(r"^[>|][+-]?\d*[ \t]*(#.*)?$")
_PLAIN_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")


class EditError(Exception):
    """A file whose front matter cannot be edited; one line for a person."""


@dataclass
class _Field:
    key: str
    start: int
    end: int
    """Lines [start, end) of the front matter that hold the field."""


class EntityFile:
    """An entity file's front matter as lines, its values as read, and its body."""

    def __init__(self, text: str, name: str = "file"):
        try:
            yaml_text, _line, body, _body_line = split(text, name)
        except FrontMatterError as exc:
            raise EditError(f"{name}: {exc.message}") from None
        self.name = name
        start = text.find("\n") + 1
        self.opening = text[:start]
        self.lines = yaml_text.splitlines(keepends=True)
        self.closing = text[start + len(yaml_text) : len(text) - len(body)]
        self.body = body
        self.values = self._load(yaml_text)

    def _load(self, yaml_text: str) -> dict[str, Any]:
        try:
            data = yaml.load(yaml_text, Loader=RecordLoader) or {}
        except yaml.YAMLError as exc:
            raise EditError(f"{self.name}: malformed YAML: {exc}") from None
        if not isinstance(data, dict):
            raise EditError(f"{self.name}: the front matter is not a mapping of fields")
        return data

    def text(self) -> str:
        return self.opening + "".join(self.lines) + self.closing + self.body

    def get(self, key: str) -> Any:
        return self.values.get(key)

    def set(self, key: str, value: Any) -> None:
        """Write `key: value` in the field's own lines; None or empty removes the field."""
        field = self._field(key)
        rendered = [] if _empty(value) else render(key, value).splitlines(keepends=True)
        if field is None:
            if rendered:
                if self.lines and not self.lines[-1].endswith("\n"):
                    self.lines[-1] += "\n"
                self.lines += rendered
        else:
            self.lines[field.start : field.end] = rendered
        if _empty(value):
            self.values.pop(key, None)
        else:
            self.values[key] = value

    def append_prose(self, key: str, words: str) -> None:
        """Add `words` to the end of a prose field: a new line of a folded or literal block,
        or the field written as a folded block holding its old text and the words."""
        field = self._field(key)
        old = self.values.get(key) or ""
        if field is not None and _is_block(self.lines[field.start]):
            content = [line for line in self.lines[field.start + 1 : field.end] if line.strip()]
            indent = re.match(r"[ \t]*", content[0])[0] if content else "  "  # type: ignore[index]
            last = field.end
            while last > field.start + 1 and not self.lines[last - 1].strip():
                last -= 1
            if not self.lines[last - 1].endswith("\n"):
                self.lines[last - 1] += "\n"
            self.lines.insert(last, f"{indent}{words}\n")
            self.values[key] = f"{old} {words}".strip()
            return
        joined = f"{old} {words}".strip() if old else words
        lines = [str(old)] if old else []
        block = "".join(f"  {line}\n" for line in [*lines, words])
        if field is None:
            self.lines.append(f"{key}: >-\n{block}")
        else:
            self.lines[field.start : field.end] = [f"{key}: >-\n", block]
        self.values[key] = joined

    def _field(self, key: str) -> _Field | None:
        for field in self._fields():
            if field.key == key:
                return field
        return None

    def _fields(self) -> list[_Field]:
        fields: list[_Field] = []
        for index, line in enumerate(self.lines):
            if line[:1] in (" ", "\t", "-", "\n", "\r") or not line.strip():
                continue
            if fields and fields[-1].end == -1:
                fields[-1].end = index
            match = _KEY.match(line)
            if match:
                fields.append(_Field(match[1], index, -1))
        if fields and fields[-1].end == -1:
            fields[-1].end = len(self.lines)
        for field in fields:
            while field.end > field.start + 1 and not self.lines[field.end - 1].strip():
                field.end -= 1
        return fields


def _is_block(line: str) -> bool:
    value = line.split(":", 1)[1].strip()
    return bool(_BLOCK.match(value))


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == []


def render(key: str, value: Any) -> str:
    """`key: value` as a record file writes it: days and ids plain, lists of ids in
    brackets, other lists one item a line, mappings in block style."""
    if isinstance(value, list):
        if all(isinstance(v, str) and _PLAIN_ID.match(v) for v in value):
            return f"{key}: [{', '.join(scalar(v) for v in value)}]\n"
        if all(isinstance(v, str) for v in value):
            return f"{key}:\n" + "".join(f"  - {scalar(v)}\n" for v in value)
        dumped = yaml.dump(value, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=88)
        return f"{key}:\n" + "".join(f"  {line}\n" for line in dumped.splitlines())
    return f"{key}: {scalar(value)}\n"


class _Dumper(yaml.SafeDumper):
    """Text with a line break or a tab in double quotes, `\n` for each break, so that it
    reads as written (the words about a highlight keep their edge spaces and breaks)."""


def _text(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    style = '"' if any(c in text for c in "\n\t\r") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _text)


def _reads_back(plain: str) -> bool:
    return yaml.load(plain, Loader=RecordLoader) == plain  # noqa: S506 - RecordLoader is safe


def scalar(value: Any) -> str:
    if isinstance(value, str) and DAY_PATTERN.match(value) and _reads_back(value):
        return value  # a day plain, as authors write it; a bare year would read as a number
    dumped = yaml.safe_dump(value, allow_unicode=True, width=10_000, default_style=None)
    return dumped.removesuffix("\n...\n").rstrip("\n")
