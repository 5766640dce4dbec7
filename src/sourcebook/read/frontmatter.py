"""Split a Markdown file into YAML front matter and body, keeping every value's position."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from sourcebook.diagnostics import Pos

try:
    from yaml import CSafeLoader as SafeLoader
except ImportError:  # pragma: no cover - libyaml is present on every supported platform
    from yaml import SafeLoader  # type: ignore[assignment]

Path_ = tuple[str | int, ...]


class RecordLoader(SafeLoader):  # type: ignore[misc,valid-type]
    """YAML as usual, but days stay text: the model checks them and says where one is wrong."""


RecordLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in SafeLoader.yaml_implicit_resolvers.items()
}


class FrontMatterError(Exception):
    """A problem that stops a file from being read; carries its position and code."""

    def __init__(self, pos: Pos, code: str, message: str, hint: str | None = None):
        super().__init__(message)
        self.pos, self.code, self.message, self.hint = pos, code, message, hint


@dataclass
class Parsed:
    data: dict[str, Any]
    body: str
    body_pos: Pos
    positions: dict[Path_, Pos] = field(default_factory=dict)
    spans: dict[Path_, str] = field(default_factory=dict)
    """The source text of each scalar that runs over several lines, from where its text starts."""
    duplicate_keys: list[tuple[str, Pos]] = field(default_factory=list)


def split(text: str, file: str) -> tuple[str, int, str, int]:
    """(yaml, first yaml line, body, first body line) of a file that opens with `---`."""
    if not text.startswith("---"):
        raise FrontMatterError(
            Pos(file),
            "R007",
            "no front matter",
            "an entity file opens with a line '---', its YAML fields, and another '---'",
        )
    first_newline = text.find("\n")
    if first_newline == -1 or text[3:first_newline].strip():
        raise FrontMatterError(Pos(file), "R007", "the opening '---' must stand alone on line 1")
    offset = first_newline + 1
    line = 2
    while True:
        end = text.find("\n", offset)
        current = text[offset:] if end == -1 else text[offset:end]
        if current.rstrip() in ("---", "..."):
            yaml_text = text[first_newline + 1 : offset]
            body = "" if end == -1 else text[end + 1 :]
            return yaml_text, 2, body, line + 1
        if end == -1:
            raise FrontMatterError(
                Pos(file, 1, 1),
                "R008",
                "front matter is not closed",
                "close it with a line '---' before the Markdown body",
            )
        offset = end + 1
        line += 1


def parse(text: str, file: str) -> Parsed:
    """Parse a whole entity file. Raises FrontMatterError for what cannot be read."""
    yaml_text, yaml_line, body, body_line = split(text, file)
    loader = RecordLoader(yaml_text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = yaml_line + (mark.line if mark else 0)
        col = (mark.column + 1) if mark else 1
        problem = exc.problem or exc.context or "malformed YAML"
        raise FrontMatterError(
            Pos(file, line, col),
            "R001",
            f"malformed YAML: {problem}",
            "check indentation and quote values that contain ': ' or start with a symbol",
        ) from None
    except (yaml.YAMLError, ValueError, OverflowError) as exc:
        raise FrontMatterError(Pos(file, yaml_line, 1), "R001", f"malformed YAML: {exc}") from None
    finally:
        loader.dispose()
    if node is None or data is None:
        data, node = {}, None
    if not isinstance(data, dict):
        shown = type(data).__name__
        raise FrontMatterError(
            Pos(file, yaml_line, 1),
            "R004",
            f"front matter is a {shown}, not a mapping of fields",
            "write one 'field: value' per line",
        )
    parsed = Parsed(data=data, body=body, body_pos=Pos(file, body_line, 1))
    if node is not None:
        _walk(node, (), parsed, file, yaml_line, yaml_text)
    return parsed


def _walk(node: yaml.Node, path: Path_, parsed: Parsed, file: str, base: int, text: str) -> None:
    """Record where each value stands: a scalar where its text starts, a collection at its key."""
    parsed.positions.setdefault(path, _start(node, file, base, text))
    if isinstance(node, yaml.ScalarNode) and node.end_mark.line > node.start_mark.line:
        parsed.spans[path] = _span(node, text)
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            name = str(key.value) if isinstance(key, yaml.ScalarNode) else "?"
            key_pos = Pos(file, base + key.start_mark.line, key.start_mark.column + 1)
            if name in seen:
                parsed.duplicate_keys.append((name, key_pos))
            seen.add(name)
            if not isinstance(value, yaml.ScalarNode):
                parsed.positions[(*path, name)] = key_pos
            _walk(value, (*path, name), parsed, file, base, text)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*path, index), parsed, file, base, text)


def _span(node: yaml.ScalarNode, text: str) -> str:
    """The scalar's text as written, starting where `_start` says its text starts."""
    start, end = node.start_mark.index, node.end_mark.index
    if node.style in ("|", ">"):
        start = text.index("\n", start) + 1
        while start < end and text[start] in " \n":
            start += 1
    elif node.style in ("'", '"'):
        start += 1
    return text[start:end]


def _start(node: yaml.Node, file: str, base: int, text: str) -> Pos:
    mark = node.start_mark
    if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
        # A block scalar's text starts on the line after its indicator, at its indentation.
        lines = text[mark.index :].split("\n")
        for offset, line in enumerate(lines[1:], start=1):
            if line.strip():
                return Pos(file, base + mark.line + offset, len(line) - len(line.lstrip()) + 1)
    col = mark.column + 1
    if isinstance(node, yaml.ScalarNode) and node.style in ("'", '"'):
        col += 1  # the text starts after the opening quote
    return Pos(file, base + mark.line, col)
