"""The normalization under which a quote is looked for in a Library item's text.

Both sides pass through `normalize`; docs/library.md lists the rules in this order:

1. Unicode NFKC: ligatures (ﬁ → fi), no-break and other spaces, full-width forms.
2. Soft hyphens and zero-width characters are dropped.
3. A word hyphenated across a line break is joined: "integ-⏎rate" reads "integrate".
4. Curly, straight and angle quotes, primes and apostrophes are one mark: '.
5. Hyphens, dashes and minus signs are one mark, -, with no space around it.
6. Any run of white space, line breaks included, is one space.

A quote may also leave words out: an ellipsis (…, ..., [...], […]) stands for any
omitted words, and a bracketed insertion [like this] for a short span of the source
(at most INSERTION_SPAN characters). A hyphen between two letters in a quote may
stand for no hyphen in the source, where a line-break hyphenation was joined.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

NORMALIZATION_VERSION = "1"
"""Bump when a rule changes: the cache of normalized texts is keyed on it."""

INSERTION_SPAN = 80
"""The most characters of the source that a bracketed insertion [like this] stands for."""

_DROPPED = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_QUOTES = (
    "'\"`\u00b4\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u2032\u2033"
    + "\u00ab\u00bb\u2039\u203a"
)
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2043\ufe58\ufe63\uff0d"
# White space that NFKC leaves alone; str.split would have split on it.
_ODD_SPACES = "\x0b\x0c\x1c\x1d\x1e\x1f\x85\u1680\u2028\u2029"
# One str.replace per mark present is far faster than str.translate on non-ASCII text.
_MARKS = {
    **dict.fromkeys(_DROPPED, ""),
    **dict.fromkeys(_QUOTES[1:], "'"),
    **dict.fromkeys(_DASHES, "-"),
    **dict.fromkeys(_ODD_SPACES, " "),
}
_ASCII_MARKS = {'"': "'", "`": "'", **dict.fromkeys("\t\r\n\x0b\x0c\x1c\x1d\x1e\x1f", " ")}
# What NFKC would do to the commonest marks, done first so that most texts need no NFKC.
_NFKC_COMMON = {
    **dict.fromkeys("\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f", " "),
    "\u2026": "...",
    "\ufb00": "ff",
    "\ufb01": "fi",
    "\ufb02": "fl",
    "\ufb03": "ffi",
    "\ufb04": "ffl",
}
# Each starts with its hyphen, so that the engine skips ahead to it; a check that a
# letter precedes it follows. A leading lookbehind would try every position of the text.
_LINE_HYPHEN = re.compile(r"-(?<=[^\W\d_]-)[ \t]*\r?\n\s*(?=[^\W\d_])")
_LINE_HYPHEN_OTHER = re.compile(r"[\u00ad\u2010\u2011](?<=[^\W\d_].)[ \t]*\r?\n\s*(?=[^\W\d_])")

# The white space before a gap is taken from where its run starts only: a leading \s*
# would read the rest of a run from each of its places in turn.
_ELLIPSIS = re.compile(
    r"(?:(?<!\s)\s+)?(?:\[\s*(?:…|\.\s?\.\s?\.)\s*\]|\(\s*…\s*\)|…|\.\s?\.\s?\.)\s*"
)
_INSERTION = re.compile(r"(?:(?<!\s)\s+)?\[[^\[\]]{1,200}\]\s*")
_EDGE_PUNCTUATION = " .,;:"
_GAP_MARKS = ("[", "\u2026", "*", "...", ". .")
_LETTER_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")


def normalize(text: str) -> str:
    """The normalized form of a text: rules 1 to 6 above."""
    text = _replace_marks(text, _NFKC_COMMON)
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    if "\n" in text:
        if "-" in text:
            text = _LINE_HYPHEN.sub("", text)
        if not text.isascii() and any(h in text for h in "\u00ad\u2010\u2011"):
            text = _LINE_HYPHEN_OTHER.sub("", text)
    text = _replace_marks(_replace_marks(text, _MARKS), _ASCII_MARKS)
    # str.split and join cost five times as much on long non-ASCII text.
    while "  " in text:
        text = text.replace("  ", " ")
    text = text.strip(" ")
    if "-" in text:
        text = text.replace(" -", "-").replace("- ", "-")
        while "--" in text:
            text = text.replace("--", "-")
    return text


def _replace_marks(text: str, marks: dict[str, str]) -> str:
    if marks is not _ASCII_MARKS and text.isascii():
        return text
    for mark, replacement in marks.items():
        if mark in text:
            text = text.replace(mark, replacement)
    return text


@dataclass(frozen=True)
class QuotePattern:
    """A quote made ready to look for: its literal parts and what may stand between them.

    `gaps[i]` is the most characters allowed between part i and part i+1: None for an
    ellipsis (any number), INSERTION_SPAN for a bracketed insertion. A quote that opens
    or closes with a gap may start or end inside a word of the source.
    """

    parts: tuple[str, ...]
    gaps: tuple[int | None, ...]
    open_start: bool
    open_end: bool

    @property
    def exact(self) -> bool:
        """One literal part and no hyphen that may be missing: str.find alone decides."""
        return len(self.parts) == 1 and not _LETTER_HYPHEN.search(self.parts[0])

    @cached_property
    def segments(self) -> tuple[re.Pattern[str], ...]:
        """The pattern, bracketed gaps and optional hyphens included, for what str.find
        misses: one expression for each run of parts between ellipses, since a run of any
        length cannot be read in linear time by one expression (see `match.locate`).

        Compiled only when first needed: compiling costs more than most searches.
        """
        return _segments(list(self.parts), list(self.gaps), self.open_start, self.open_end)

    @property
    def literal(self) -> str:
        """The longest literal part: what an index looks for first."""
        return max(self.parts, key=len) if self.parts else ""

    @property
    def words(self) -> str:
        """The quote's normalized words, each gap shown as …, for messages."""
        return " … ".join(self.parts)


def compile_quote(quote: str, normalize: Callable[[str], str] = normalize) -> QuotePattern:
    """Split a quote at its ellipses and insertions, and normalize each part (by the
    rules above, or by another `normalize` where the rules are being explained)."""
    if not any(mark in quote for mark in _GAP_MARKS):
        part = normalize(quote).strip(_EDGE_PUNCTUATION)
        return QuotePattern((part,) if part else (), (), False, False)
    tokens: list[str | int | None] = []
    for index, chunk in enumerate(_ELLIPSIS.split(quote.replace("*", ""))):
        if index:
            tokens.append(None)
        for offset, piece in enumerate(_INSERTION.split(chunk)):
            if offset:
                tokens.append(INSERTION_SPAN)
            tokens.append(normalize(piece))
    parts: list[str] = []
    gaps: list[int | None] = []
    pending: int | None | bool = False
    for token in tokens:
        if isinstance(token, str):
            if token:
                if parts:
                    gaps.append(None if pending is False else pending)  # type: ignore[arg-type]
                parts.append(token)
                pending = False
            continue
        pending = _wider(pending, token)
    open_start = _opens_with_insertion(tokens)
    open_end = _opens_with_insertion(tokens[::-1])
    if parts:
        parts[0] = parts[0] if open_start else parts[0].lstrip(_EDGE_PUNCTUATION)
        parts[-1] = parts[-1] if open_end else parts[-1].rstrip(_EDGE_PUNCTUATION)
    parts, gaps = _drop_empty(parts, gaps)
    return QuotePattern(tuple(parts), tuple(gaps), open_start, open_end)


def _opens_with_insertion(tokens: list[str | int | None]) -> bool:
    """Whether an insertion comes before the first words: then they may start mid-word."""
    for token in tokens:
        if isinstance(token, str):
            if token:
                return False
        elif token is not None:
            return True
    return False


def _wider(pending: int | None | bool, gap: int | None) -> int | None:
    """Two gaps in a row: an ellipsis wins, two insertions add up."""
    if pending is False:
        return gap
    if pending is None or gap is None:
        return None
    return int(pending) + gap


def _drop_empty(parts: list[str], gaps: list[int | None]) -> tuple[list[str], list[int | None]]:
    while parts and not parts[-1]:
        parts.pop()
        if gaps:
            gaps.pop()
    while parts and not parts[0]:
        parts.pop(0)
        if gaps:
            gaps.pop(0)
    return parts, gaps


def _segments(
    parts: list[str], gaps: list[int | None], open_start: bool, open_end: bool
) -> tuple[re.Pattern[str], ...]:
    segments = [""]
    for index, part in enumerate(parts):
        if index:
            gap = gaps[index - 1]
            if gap is None:
                segments.append("")
            else:
                segments[-1] += f".{{0,{gap}}}?"
        segments[-1] += _LETTER_HYPHEN.sub("-?", re.escape(part).replace(r"\-", "-"))
    head = r"(?<!\w)" if not open_start and is_word(parts[0][0]) else ""
    tail = r"(?!\w)" if not open_end and is_word(parts[-1][-1]) else ""
    segments[0] = head + segments[0]
    segments[-1] += tail
    return tuple(re.compile(segment, re.S) for segment in segments)


def is_word(char: str) -> bool:
    return char.isalnum() or char == "_"
