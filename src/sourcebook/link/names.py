"""One Aho-Corasick automaton over every name and alias: mentions found in a single pass."""

from __future__ import annotations

import bisect
import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

import ahocorasick

from sourcebook.link.plurals import plural


class Mention(NamedTuple):
    """A name found in a text (a named tuple: a large record's prose holds hundreds of
    thousands)."""

    start: int
    end: int
    targets: tuple[tuple[str, str], ...]
    """(kind, id) of every entity the name stands for: usually one."""
    name: str


_NON_WORD = re.compile(r"\W")


class _SpacedOut(dict):
    """A str.translate table that turns each non-word character into a space and keeps
    every other: one pass in C, where a regular expression would stop at each one."""

    def __missing__(self, code: int) -> int:
        kept = ord(" ") if _NON_WORD.match(chr(code)) else code
        self[code] = kept
        return kept


_SPACED_OUT = _SpacedOut()


def may_find(text: str, keys: Iterable[str]) -> bool:
    """Whether `text` may mention any of the names `keys` (as in `NameMatcher.table`): where
    it holds none of them, a matcher with or without them finds the same in it. Markdown
    shows a text's word characters in their order, with only markup and spaces taken from
    between them, so each name is looked for with every character that is no word's
    taken out, on both sides; a character reference (`&eacute;`) could show a word's
    character the text does not hold, so a text with one may mention anything."""
    if "&" in text:
        return True
    words = _words(text).replace(" ", "")
    return any(key.replace(" ", "") in words for key in keys)


def _words(text: str) -> str:
    """The text folded, each non-word character a space, between two spaces: every key of
    the automaton is a name so written, so it only matches whole words."""
    if not text.isascii():
        # Most text that is not ASCII is so only for its quotation marks and dashes.
        for mark in _COMMON_MARKS:
            if mark in text:
                text = text.replace(mark, " ")
    if text.isascii():  # most text: a bytes table does both steps at once, faster
        return f" {text.encode().translate(_ASCII_WORDS).decode()} "
    return f" {_fold(text).translate(_SPACED_OUT)} "


_COMMON_MARKS = "“”‘’–—…"
"""Characters outside ASCII that prose uses most and that are not word characters."""


def _fold(text: str) -> str:
    """Lower case that keeps every character's offset (some characters lengthen in lower())."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


_ASCII_WORDS = bytes(ord(_fold(chr(c)).translate(_SPACED_OUT)) for c in range(128)).ljust(256)
"""What `_words` makes of each ASCII character, as a table for bytes.translate."""


def plural_forms(name: str, known: Mapping[str, str | None] | None = None) -> list[str]:
    """The name and its English plural (see `plurals`; `known`: plurals made before); a
    name that already reads as a plural, such as "122 days", is its own only form."""
    form = known[name] if known is not None and name in known else plural(name)
    return [name] if form is None else [name, form]


class NameMatcher:
    """Finds whole-word, any-case, singular-or-plural mentions of many names at once."""

    def __init__(
        self,
        names: Iterable[tuple[str, tuple[str, str]]],
        plurals: Mapping[str, str | None] | None = None,
    ):
        """`plurals`: each name's plural, where made before (see `plural_forms`)."""
        table: dict[str, set[tuple[str, str]]] = {}
        canonical: dict[str, str] = {}
        names = list(names)  # in the order given, which decides each key's canonical name
        self.fingerprint = hashlib.sha256(repr(names).encode("utf-8", "surrogatepass")).hexdigest()
        """The hash of every name and what it stands for: the same finds the same."""
        self.plurals: dict[str, str | None] = {}
        """Each name's plural, or None (see `plural_forms`)."""
        for name, target in names:
            forms = plural_forms(name.strip(), plurals)
            self.plurals[forms[0]] = forms[1] if len(forms) > 1 else None
            for form in forms:
                key = _words(form)
                table.setdefault(key, set()).add(target)
                canonical.setdefault(key, name)
        self.table: dict[str, frozenset[tuple[str, str]]] = {
            key: frozenset(targets) for key, targets in table.items()
        }
        """Each name as the automaton knows it (see `_words`), with what it stands for."""
        self._automaton = ahocorasick.Automaton()
        for key, targets in table.items():
            self._automaton.add_word(key, (len(key), tuple(sorted(targets)), canonical[key]))
        self._empty = not table
        if not self._empty:
            self._automaton.make_automaton()

    def find(self, text: str, masked: Sequence[tuple[int, int]] = ()) -> list[Mention]:
        """Mentions in `text`, longest first where they overlap, none inside `masked`."""
        if self._empty or not text:
            return []
        # words[i + 1] is text[i]; a key matched up to words[last] spans the name
        # text[last - length + 1 : last - 1], between the spaces that bound it.
        candidates = [
            (last - length + 1, -length, last - 1, targets, name)
            for last, (length, targets, name) in self._automaton.iter(_words(text))
        ]
        if not candidates:
            return []
        candidates.sort()
        starts = [a for a, _ in masked]
        chosen: list[Mention] = []
        taken_until = -1
        for start, _neg, end, targets, name in candidates:
            if start < taken_until or (masked and _inside(starts, masked, start, end)):
                continue
            chosen.append(Mention(start, end, targets, name))
            taken_until = end
        return chosen


def _inside(starts: list[int], masked: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    index = bisect.bisect_right(starts, start) - 1
    if index >= 0 and masked[index][1] > start:
        return True
    following = index + 1
    return following < len(masked) and masked[following][0] < end
