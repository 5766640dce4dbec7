"""The passage of a text nearest to a quote that was not found, with the difference marked.

The passage is shown as the copy reads, not as it was normalized: words are compared by
their normalized form, and marks that stand alone between spaces (a list's bullets and
dashes) are not words, so they neither glue onto the next word nor count as a difference.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from sourcebook.library.normalize import normalize
from sourcebook.runtime.memo import memoized

_TOKEN = re.compile(r"\S+")
_WORD_CHARACTER = re.compile(r"\w")
_FIGURE = re.compile(r"\d")
_EDGES = ".,;:!?'()"
CONTEXT_WORDS = 3
"""Words of the source shown either side of the nearest passage."""


@dataclass(frozen=True, slots=True)
class Nearest:
    """Where in an item's normalized text a quote comes closest, and how it differs."""

    start: int
    end: int
    marked: str
    """The passage, each difference shown as {quote's words → the copy's words}."""
    differences: tuple[str, ...]
    """Each difference in words: a changed figure, a changed, missing or extra word."""
    ratio: float


def nearest(quote: str, text: str) -> Nearest | None:
    """The passage of `text` most like `quote`, shown as `text` has it (white space made
    single spaces); None if no word is shared."""
    wanted = quote.split()
    # Each run without white space that holds a word character, found in one pass (a
    # pattern \S*\w\S* would read a run of punctuation again from each of its places).
    spans = [m.span() for m in _TOKEN.finditer(text) if _WORD_CHARACTER.search(m[0])]
    words = [text[a:b] for a, b in spans]
    wanted_keys, keys = [_key(w) for w in wanted], [_key(w) for w in words]
    if not wanted or not words:
        return None
    best: tuple[float, int, int] | None = None
    for anchor in _anchors(wanted_keys, keys):
        lo, hi = _trimmed(wanted_keys, keys, anchor)
        ratio = SequenceMatcher(None, wanted_keys, keys[lo:hi], autojunk=False).ratio()
        if best is None or ratio > best[0]:
            best = (ratio, lo, hi)
    if best is None or best[0] == 0:
        return None
    ratio, lo, hi = best
    return _marked(wanted, words, spans, lo, hi, ratio)


@memoized(maxsize=65536)
def _key(word: str) -> str:
    """A word as compared: normalized, and punctuation at its edges does not count."""
    word = normalize(word)
    return word.strip(_EDGES) or word


def _anchors(wanted: list[str], words: list[str]) -> list[int]:
    """Where the quote might start: each place a run of its words occurs, lined up."""
    matcher = SequenceMatcher(None, words, wanted, autojunk=False)
    anchors: list[int] = []
    lo = 0
    for _ in range(8):
        match = matcher.find_longest_match(lo, len(words), 0, len(wanted))
        if match.size == 0:
            break
        anchors.append(match.a - match.b)
        lo = match.a + match.size
    return anchors


def _bare(words: list[str]) -> str:
    return " ".join(_key(w) for w in words)


def _trimmed(wanted: list[str], words: list[str], anchor: int) -> tuple[int, int]:
    """The window of words around `anchor` that lines up with the quote, first to last."""
    slack = max(2, len(wanted) // 4)
    lo, hi = max(0, anchor - slack), min(len(words), anchor + len(wanted) + slack)
    blocks = [
        b
        for b in SequenceMatcher(None, wanted, words[lo:hi], autojunk=False).get_matching_blocks()
        if b.size
    ]
    if not blocks:
        return lo, max(lo + 1, min(hi, lo + len(wanted)))
    first, last = blocks[0], blocks[-1]
    start = max(lo, lo + first.b - first.a)
    end = min(hi, lo + last.b + last.size + len(wanted) - last.a - last.size)
    return start, max(end, start + 1)


def _marked(
    wanted: list[str],
    words: list[str],
    spans: list[tuple[int, int]],
    lo: int,
    hi: int,
    ratio: float,
) -> Nearest:
    shown: list[str] = words[max(0, lo - CONTEXT_WORDS) : lo]
    differences: list[str] = []
    keys = [_key(w) for w in words[lo:hi]]
    matcher = SequenceMatcher(None, [_key(w) for w in wanted], keys, autojunk=False)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        ours, theirs = " ".join(wanted[a1:a2]), " ".join(words[lo + b1 : lo + b2])
        said, held = _bare(wanted[a1:a2]), _bare(words[lo + b1 : lo + b2])
        if op == "equal":
            shown.append(theirs)
        elif op == "replace":
            shown.append(f"{{{ours} → {theirs}}}")
            what = "a changed figure" if _FIGURE.search(ours + theirs) else "a changed word"
            differences.append(f"{what}: “{said}” where the copy has “{held}”")
        elif op == "delete":
            shown.append(f"{{{ours} → }}")
            differences.append(f"an extra word: “{said}” is not in the copy")
        else:
            shown.append(f"{{→ {theirs}}}")
            differences.append(f"a missing word: the copy has “{held}” here")
    shown.extend(words[hi : hi + CONTEXT_WORDS])
    start, end = spans[lo][0], spans[hi - 1][1]
    return Nearest(start, end, " ".join(shown), tuple(differences), ratio)
