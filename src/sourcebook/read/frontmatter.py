"""Split a Markdown file into YAML front matter and body, keeping every value's position."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from sourcebook.diagnostics import Pos
from sourcebook.model.base import Place

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
    file: str
    data: dict[str, Any]
    body: str
    body_line: int
    places: dict[Path_, Place] = field(default_factory=dict)
    spans: dict[Path_, str] = field(default_factory=dict)
    """The source text of each scalar that runs over several lines, from where its text starts."""
    duplicate_keys: list[tuple[str, Pos]] = field(default_factory=list)
    keys: dict[Path_, Place] = field(default_factory=dict)
    """Where each field's key stands: what a field that should not be there is shown by."""

    @property
    def body_pos(self) -> Pos:
        return Pos(self.file, self.body_line, 1)

    @property
    def positions(self) -> dict[Path_, Pos]:
        """Where each value stands: a scalar where its text starts, a collection at its key."""
        return {path: Pos(self.file, *place) for path, place in self.places.items()}


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


MAX_DEPTH = 32
"""Nesting of front matter at most: a record needs four or five levels; libyaml composes
nested collections by recursion, and a deep enough nesting would crash the interpreter."""
MAX_DEPTH_TEXT = f"nests deeper than {MAX_DEPTH} levels"
MAX_VALUES = 100_000
"""Values front matter may hold once its aliases are expanded: a few hundred bytes of
aliases of aliases would otherwise stand for billions of values."""
_GATE = 400
"""Below this many structural characters and with no alias, no budget can be exceeded."""


def within_budget(text: str, file: str, base_line: int) -> None:
    """Raise FrontMatterError where YAML `text` nests deeper than MAX_DEPTH or expands to
    more than MAX_VALUES values through its aliases, before anything is composed from it.
    Read as libyaml's events, which it makes without recursion, and only where the text
    could exceed a budget at all."""
    if "*" not in text and sum(map(text.count, "[{-:?")) < _GATE:
        return
    loader = SafeLoader(text)
    sizes: dict[str, int] = {}
    open_: list[tuple[int, str | None]] = [(0, None)]  # (values so far, anchor) per level
    total = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                open_.append((1, event.anchor))
                if len(open_) > MAX_DEPTH + 1:
                    raise _over(event, file, base_line, MAX_DEPTH_TEXT)
                added = 1
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                size, anchor = open_.pop()
                if anchor:
                    sizes[anchor] = size
                count, above = open_[-1]
                open_[-1] = (count + size, above)
                continue
            elif isinstance(event, yaml.AliasEvent):
                added = sizes.get(event.anchor or "", 1)
                count, above = open_[-1]
                open_[-1] = (count + added, above)
            elif isinstance(event, yaml.ScalarEvent):
                added = 1
                if event.anchor:
                    sizes[event.anchor] = 1
                count, above = open_[-1]
                open_[-1] = (count + added, above)
            else:
                continue
            total += added
            if total > MAX_VALUES:
                raise _over(event, file, base_line, f"holds more than {MAX_VALUES:,} values")
    except yaml.MarkedYAMLError as exc:
        if _LIBYAML_DEPTH in str(exc.problem):  # libyaml's own limit, far above ours
            raise _over_at(exc.problem_mark, file, base_line, MAX_DEPTH_TEXT) from None
        raise _malformed(exc, file, base_line, text) from None
    except yaml.YAMLError:  # a character libyaml refuses: parse reads it and says so
        return
    finally:
        loader.dispose()


_LIBYAML_DEPTH = "maximum nesting depth"
"""What libyaml (0.2.5 and later) says when its scanner, reading ahead of the events, meets
more than a thousand open collections: a nesting past MAX_DEPTH all the same."""


def _over(event: yaml.Event, file: str, base_line: int, what: str) -> FrontMatterError:
    return _over_at(event.start_mark, file, base_line, what)


def _over_at(mark: Any, file: str, base_line: int, what: str) -> FrontMatterError:
    line, column = (mark.line, mark.column) if mark is not None else (0, 0)
    return FrontMatterError(
        Pos(file, base_line + line, column + 1),
        "R011",
        f"front matter {what} once its YAML aliases are expanded"
        if "values" in what
        else f"front matter {what}",
        "write the values out plainly; a record's front matter needs no deep nesting",
    )


def parse(text: str, file: str) -> Parsed:
    """Parse a whole entity file. Raises FrontMatterError for what cannot be read."""
    yaml_text, yaml_line, body, body_line = split(text, file)
    within_budget(yaml_text, file, yaml_line)
    parsed = Parsed(file, {}, body, body_line)
    loader = RecordLoader(yaml_text)
    node = None
    try:
        node = loader.get_single_node()
        if node is None:
            return parsed
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        raise _malformed(exc, file, yaml_line, yaml_text) from None
    except (yaml.YAMLError, ValueError, OverflowError) as exc:
        line, col = _unbuildable(loader, node, yaml_line) if node is not None else (yaml_line, 1)
        raise FrontMatterError(
            Pos(file, line, col), "R001", f"malformed YAML: {_plain(exc)}"
        ) from None
    finally:
        loader.dispose()
    if data is None:
        return Parsed(file, {}, body, body_line)
    if not isinstance(data, dict):
        raise FrontMatterError(
            Pos(file, yaml_line, 1),
            "R004",
            f"front matter is a {type(data).__name__}, not a mapping of fields",
            "write one 'field: value' per line",
        )
    parsed = Parsed(file, data, body, body_line)
    _walk(node, (), parsed, yaml_line, yaml_text)
    return parsed


def _unbuildable(loader: RecordLoader, node: yaml.Node, base: int) -> Place:
    """Where the value stands that PyYAML could not build (a number of thousands of digits):
    its constructor says what went wrong but not where."""
    stack, seen = [node], set()
    while stack:
        each = stack.pop()
        if id(each) in seen:  # an alias, maybe of a collection that holds itself
            continue
        seen.add(id(each))
        if isinstance(each, yaml.ScalarNode):
            try:
                loader.construct_object(each)
            except (yaml.YAMLError, ValueError, OverflowError):
                return (base + each.start_mark.line, each.start_mark.column + 1)
        elif isinstance(each, yaml.MappingNode):
            stack.extend(value for pair in reversed(each.value) for value in reversed(pair))
        elif isinstance(each, yaml.SequenceNode):
            stack.extend(reversed(each.value))
    return (base, 1)


def _plain(exc: Exception) -> str:
    """An error's message for a person: Python's own words for an over-long number are
    about its settings, not the file."""
    if isinstance(exc, ValueError) and "integer string conversion" in str(exc):
        return "a number of more than 4,300 digits"
    return " ".join(str(exc).split())


def _malformed(exc: yaml.MarkedYAMLError, file: str, yaml_line: int, text: str) -> FrontMatterError:
    mark = exc.problem_mark or exc.context_mark
    problem = exc.problem or exc.context or "malformed YAML"
    if exc.context_mark is not None and mark is not None and mark.index >= len(text.rstrip()):
        # Found only at the end (a quote or bracket never closed): the closing '---' is not
        # where to look, the value that opened it is.
        mark = exc.context_mark
        problem = f"{problem} {exc.context}" if exc.context else problem
        return FrontMatterError(
            Pos(file, yaml_line + mark.line, mark.column + 1),
            "R001",
            f"malformed YAML: {problem}",
            "close the quote or bracket this value opens",
        )
    line = yaml_line + (mark.line if mark else 0)
    col = (mark.column + 1) if mark else 1
    return FrontMatterError(
        Pos(file, line, col),
        "R001",
        f"malformed YAML: {problem}",
        "check indentation and quote values that contain ': ' or start with a symbol",
    )


def _walk(node: yaml.Node, path: Path_, parsed: Parsed, base: int, text: str) -> None:
    """Record where each value stands: a scalar where its text starts, a collection at its key."""
    parsed.places.setdefault(path, _start(node, base, text))
    if isinstance(node, yaml.ScalarNode) and node.end_mark.line > node.start_mark.line:
        parsed.spans[path] = _span(node, text)
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            name = str(key.value) if isinstance(key, yaml.ScalarNode) else "?"
            key_place = (base + key.start_mark.line, key.start_mark.column + 1)
            parsed.keys.setdefault((*path, name), key_place)
            if name in seen:
                parsed.duplicate_keys.append((name, Pos(parsed.file, *key_place)))
            seen.add(name)
            if not isinstance(value, yaml.ScalarNode):
                parsed.places[(*path, name)] = key_place
            _walk(value, (*path, name), parsed, base, text)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*path, index), parsed, base, text)


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


def _start(node: yaml.Node, base: int, text: str) -> Place:
    mark = node.start_mark
    style = node.style if isinstance(node, yaml.ScalarNode) else None
    if style in ("|", ">"):
        # A block scalar's text starts on the line after its indicator, at its indentation.
        found = _first_inked_line(text, mark.index)
        if found is not None:
            offset, line = found
            return (base + mark.line + offset, len(line) - len(line.lstrip()) + 1)
    col = mark.column + 1
    if style in ("'", '"'):
        col += 1  # the text starts after the opening quote
    return (base + mark.line, col)


def _first_inked_line(text: str, index: int) -> tuple[int, str] | None:
    """(lines after the one at `index`, the line) of the first later line that is not blank."""
    offset = 0
    start = text.find("\n", index)
    while start != -1:
        offset += 1
        end = text.find("\n", start + 1)
        line = text[start + 1 :] if end == -1 else text[start + 1 : end]
        if line.strip():
            return offset, line
        start = end
    return None
