"""Read `sourcebook.toml`, reporting problems at their line in the file."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from sourcebook.diagnostics import Diagnostics, Pos, did_you_mean
from sourcebook.model.settings import Settings
from sourcebook.read.paths import SETTINGS_FILE, record_problem


class RecordError(Exception):
    """A record that cannot be read at all; its message is one line for a person."""


def read_settings(root: Path, shown_root: str, diagnostics: Diagnostics) -> Settings | None:
    path = root / SETTINGS_FILE
    shown = f"{shown_root}/{SETTINGS_FILE}" if shown_root not in ("", ".") else SETTINGS_FILE
    problem = record_problem(root, shown_root)
    if problem:
        raise RecordError(problem)
    loaded = load_toml(path, shown, diagnostics)
    if loaded is None:
        return None
    return validated(Settings, *loaded, shown, diagnostics)


T = TypeVar("T", bound=BaseModel)


def load_toml(path: Path, shown: str, diagnostics: Diagnostics) -> tuple[str, Any] | None:
    """A TOML file's text and data; None, with the problem reported, where it cannot be read."""
    try:
        text = path.read_bytes().decode("utf-8")
        return text, tomllib.loads(text)
    except UnicodeDecodeError as exc:
        diagnostics.error(Pos(shown), "R002", f"not UTF-8 text (byte {exc.start})")
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"line (\d+), column (\d+)", str(exc))
        line, col = (int(found[1]), int(found[2])) if found else (1, 1)
        message = re.sub(r"\s*\(at .*\)$", "", str(exc))
        diagnostics.error(Pos(shown, line, col), "R001", f"malformed TOML: {message}")
    except ValueError:  # tomllib reads an integer with int(), which stops at 4,300 digits
        diagnostics.error(
            Pos(shown, _long_integer_line(text), 1),
            "R001",
            f"an integer of more than {MAX_DIGITS:,} digits",
            "no setting needs a number so long",
        )
    return None


MAX_DIGITS = 4300
"""The most digits Python reads as an integer (sys.get_int_max_str_digits' default)."""


def _long_integer_line(text: str) -> int:
    """The first line with a run of more than MAX_DIGITS digits; 1 if there is none."""
    for number, line in enumerate(text.splitlines(), 1):
        for run in re.finditer(r"[0-9_]+", line):
            if len(run[0]) - run[0].count("_") > MAX_DIGITS:
                return number
    return 1


def validated(
    model: type[T], text: str, data: Any, shown: str, diagnostics: Diagnostics
) -> T | None:
    """`data` as `model`; None, with each problem reported at its line, where it is not one."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        line_of = _first_lines(text)
        for error in exc.errors():
            loc = [str(p) for p in error["loc"] if not isinstance(p, int)]
            pos = Pos(shown, line_of.get(loc[-1], 1) if loc else 1, 1)
            if error["type"] == "extra_forbidden":
                hint = did_you_mean(loc[-1], _known_keys(model, loc))
                diagnostics.error(pos, "S002", f"unknown setting '{'.'.join(loc)}'", hint)
            elif error["type"] == "missing":
                diagnostics.error(
                    Pos(shown, line_of.get(loc[0], 1) if len(loc) > 1 else 1, 1),
                    "S001",
                    f"missing setting '{'.'.join(loc)}'",
                )
            else:
                message = error["msg"].removeprefix("Value error, ")
                diagnostics.error(pos, "S003", f"setting '{'.'.join(loc)}': {message}")
        return None


def _first_lines(text: str) -> dict[str, int]:
    """Each key → the first line that sets it (`key =`) or opens its table (`[key]`): read
    in one pass, however many keys are asked for."""
    first: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), 1):
        line = line.lstrip()
        if line.startswith("["):
            key = line[1 : line.find("]")] if "]" in line else ""
        else:
            key = line[: line.find("=")].rstrip() if "=" in line else ""
        if key:
            first.setdefault(key, number)
    return first


def _known_keys(top: type[BaseModel], loc: list[str]) -> list[str]:
    model: Any = top
    for part in loc[:-1]:
        field = model.model_fields.get(part)
        annotation = field.annotation if field is not None else None
        inner = getattr(annotation, "__args__", None)  # list[Model]: the model of its items
        annotation = inner[0] if inner and not isinstance(annotation, type) else annotation
        if not isinstance(annotation, type):
            return []
        model = annotation
    return list(getattr(model, "model_fields", {}))
