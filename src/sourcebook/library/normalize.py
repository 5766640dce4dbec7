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
from dataclasses import dataclass

NORMALIZATION_VERSION = "1"
"""Bump when a rule changes: the cache of normalized texts is keyed on it."""

INSERTION_SPAN = 80
"""The most characters of the source that a bracketed insertion [like this] stands for."""

_DROPPED = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\u2060\ufeff"))
_QUOTES = "'\"`\u00b4\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u2032\u2033\u00ab\u00bb\u2039\u203a"
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2043\ufe58\ufe63\uff0d"
_TABLE = {
    **_DROPPED,
    **dict.fromkeys(map(ord, _QUOTES), "'"),
    **dict.fromkeys(map(ord, _DASHES), "-"),
}
_LINE_HYPHEN = re.compile(r"([^\W\d_])[-\u00ad\u2010\u2011][ \t]*\r?\n\s*(?=[^\W\d_])")
_DASH_RUN = re.compile(r"\s*-+\s*")
_SPACE = re.compile(r"\s+")

_ELLIPSIS = re.compile(r"\s*(?:\[\s*(?:…|\.\s?\.\s?\.)\s*\]|\(\s*…\s*\)|…|\.\s?\.\s?\.)\s*")
_INSERTION = re.compile(r"\s*\[[^\[\]]{1,200}\]\s*")
_EDGE_PUNCTUATION = " .,;:"
_LETTER_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")


def normalize(text: str) -> str:
    """The normalized form of a text: rules 1 to 6 above."""
    text = unicodedata.normalize("NFKC", text)
    text = _LINE_HYPHEN.sub(r"\1", text)
    text = text.translate(_TABLE)
    if "-" in text:
        text = _DASH_RUN.sub("-", text)
    return _SPACE.sub(" ", text).strip()


@dataclass(frozen=True, slots=True)
class QuotePattern:
    """A quote made ready to look for: its literal parts and what may stand between them.

    `gaps[i]` is the most characters allowed between part i and part i+1: None for an
    ellipsis (any number), INSERTION_SPAN for a bracketed insertion.
    """

    parts: tuple[str, ...]
    gaps: tuple[int | None, ...]
    regex: re.Pattern[str] | None
    """None where the quote is one literal part, looked for with str.find."""

    @property
    def literal(self) -> str:
        """The longest literal part: what an index looks for first."""
        return max(self.parts, key=len) if self.parts else ""

    @property
    def words(self) -> str:
        """The quote as one line, each gap shown as …, for messages."""
        out = self.parts[0] if self.parts else ""
        for part in self.parts[1:]:
            out += " … " + part
        return out


def compile_quote(quote: str) -> QuotePattern:
    """Split a quote at its ellipses and insertions, and normalize each part."""
    quote = quote.replace("*", "")
    parts: list[str] = []
    gaps: list[int | None] = []
    for index, chunk in enumerate(_ELLIPSIS.split(quote)):
        pieces = _INSERTION.split(chunk)
        for offset, piece in enumerate(pieces):
            _append(parts, gaps, normalize(piece), None if offset == 0 and index else INSERTION_SPAN)
    if parts:
        parts[0] = parts[0].lstrip(_EDGE_PUNCTUATION)
        parts[-1] = parts[-1].rstrip(_EDGE_PUNCTUATION)
        while parts and not parts[-1]:
            parts.pop()
            gaps.pop()
    regex = None if len(parts) == 1 and not _LETTER_HYPHEN.search(parts[0]) else _regex(parts, gaps)
    return QuotePattern(tuple(parts), tuple(gaps), regex)


def _append(parts: list[str], gaps: list[int | None], piece: str, gap: int | None) -> None:
    """Add a literal part; a gap before the first part, or an empty part, widens a gap."""
    if not parts:
        if piece:
            parts.append(piece)
        return
    if not piece:
        if gaps and gap is None:
            gaps[-1] = None
        return
    if len(gaps) == len(parts):
        gap = None if gaps[-1] is None or gap is None else gaps[-1] + gap
        gaps[-1] = gap
        parts.append(piece)
        return
    gaps.append(gap)
    parts.append(piece)


def _regex(parts: list[str], gaps: list[int | None]) -> re.Pattern[str]:
    pattern = ""
    for index, part in enumerate(parts):
        if index:
            gap = gaps[index - 1]
            pattern += ".*?" if gap is None else f".{{0,{gap}}}?"
        pattern += _LETTER_HYPHEN.sub("-?", re.escape(part).replace(r"\-", "-"))
    head = r"(?<!\w)" if parts and _is_word(parts[0][0]) else ""
    tail = r"(?!\w)" if parts and _is_word(parts[-1][-1]) else ""
    return re.compile(head + pattern + tail, re.S)


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"
