"""Problems found in a record, reported as `file:line:col: severity CODE message`.

Every stage reports into a `Diagnostics` collection and carries on; the caller
decides what an error means (check exits 1, build refuses to publish).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import NamedTuple


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


class Pos(NamedTuple):
    """A place in a record file; line and column count from 1. A named tuple: linking a
    large record makes one for each of hundreds of thousands of references."""

    file: str
    line: int = 1
    col: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def shifted(self, text_before: str) -> Pos:
        """The position reached after `text_before`, which starts at this position."""
        newlines = text_before.count("\n")
        if not newlines:
            return Pos(self.file, self.line, self.col + len(text_before))
        return Pos(self.file, self.line + newlines, len(text_before) - text_before.rfind("\n"))


@dataclass(frozen=True, slots=True)
class Diagnostic:
    pos: Pos
    severity: Severity
    code: str
    message: str
    hint: str | None = None

    def format(self) -> str:
        """The diagnostic as one line (and its hint's), whatever bytes the record held."""
        line = f"{shown(str(self.pos))}: {self.severity.value} {self.code} {shown(self.message)}"
        return f"{line}\n  hint: {shown(self.hint)}" if self.hint else line

    def as_json(self) -> dict[str, object]:
        return {
            "file": shown(self.pos.file),
            "line": self.pos.line,
            "col": self.pos.col,
            "severity": self.severity.value,
            "code": self.code,
            "message": self.message,
            "hint": self.hint,
        }

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.pos.file, self.pos.line, self.pos.col, self.code, self.message)


@dataclass
class Diagnostics:
    """An ordered, de-duplicated collection of diagnostics."""

    items: list[Diagnostic] = field(default_factory=list)
    _seen: set[tuple[object, ...]] = field(default_factory=set, repr=False)

    def add(self, diagnostic: Diagnostic) -> None:
        key = diagnostic.sort_key()
        if key not in self._seen:
            self._seen.add(key)
            self.items.append(diagnostic)

    def error(self, pos: Pos, code: str, message: str, hint: str | None = None) -> None:
        self.add(Diagnostic(pos, Severity.ERROR, code, message, hint))

    def warning(self, pos: Pos, code: str, message: str, hint: str | None = None) -> None:
        self.add(Diagnostic(pos, Severity.WARNING, code, message, hint))

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        for diagnostic in diagnostics:
            self.add(diagnostic)

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(sorted(self.items, key=Diagnostic.sort_key))

    def __len__(self) -> int:
        return len(self.items)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self if d.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self if d.severity is Severity.WARNING]

    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.items)


_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def shown(text: str) -> str:
    """`text` safe to print on one line of a terminal or a CI log.

    File names and messages come from the record: a newline would forge a diagnostic of
    its own, an escape sequence would drive the terminal, a bidi control would reorder
    what is read (Trojan Source), and the bytes of a file name that is not UTF-8 arrive
    as lone surrogates (os.fsdecode) that no encoder accepts. Each is written as an escape.
    """
    if text.isprintable():  # no control, bidi control (format) or lone surrogate in it
        return text
    return text.translate(_SHOWN)


class _Shown(dict[int, str]):
    """A str.translate table that makes each character's escape once: the text passes in
    one call in C. Only the first few thousand characters met are kept."""

    def __missing__(self, code: int) -> str:
        made = _shown_char(chr(code))
        if len(self) < 4096:
            self[code] = made
        return made


_SHOWN = _Shown()


def _shown_char(ch: str) -> str:
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, kept by surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    if ch == " " or (ch.isprintable() and ch not in _BIDI_CONTROLS):
        return ch
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


_JSON_ESCAPES = {
    code: f"\\u{code:04x}"
    for code in [
        0x7F,
        *range(0x80, 0xA0),
        *map(ord, _BIDI_CONTROLS),
        0x2028,
        0x2029,
        *range(0xD800, 0xE000),
    ]
}


def shown_json(text: str) -> str:
    """JSON text (as `json.dumps(..., ensure_ascii=False)` writes it) with each character a
    terminal would act on, or could not print, written as its JSON escape: the same data
    when read back, and nothing raw on a screen. JSON's own escapes cover C0 already."""
    return text.translate(_JSON_ESCAPES)


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """A hint naming the closest candidate, in the manner of Click."""
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None


def relative(path: Path, root: Path) -> str:
    """A path as shown in diagnostics: relative to the record's root where it can be."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()
