"""Find a quote in a normalized text: str.find first, a regular expression where it must.

Most quotes are found by plain substring search of their parts, the first part at each
place it occurs and each later part at its earliest place after the one before. Only
where that fails (a gap that needs backtracking, a hyphen lost to a line break, or a
quote that is not there at all) is the quote's full regular expression compiled and run.
"""

from __future__ import annotations

from sourcebook.library.normalize import QuotePattern, is_word


def locate(pattern: QuotePattern, text: str) -> tuple[int, int] | None:
    """Where the quote stands in a normalized text, as (start, end); None if it does not."""
    if not pattern.parts:
        return None
    span = _find(pattern, text)
    if span is not None or pattern.exact:
        return span
    match = pattern.regex.search(text)
    return match.span() if match else None


def _find(pattern: QuotePattern, text: str) -> tuple[int, int] | None:
    first = pattern.parts[0]
    head = not pattern.open_start and is_word(first[0])
    tail = not pattern.open_end and is_word(pattern.parts[-1][-1])
    start = text.find(first)
    while start != -1:
        if not head or start == 0 or not is_word(text[start - 1]):
            end = _rest(pattern, text, start + len(first))
            if end is not None and (not tail or end == len(text) or not is_word(text[end])):
                return start, end
        start = text.find(first, start + 1)
    return None


def _rest(pattern: QuotePattern, text: str, position: int) -> int | None:
    """Where the parts after the first end, each taken at its earliest place; None if one
    is missing or stands too far from the part before."""
    for part, gap in zip(pattern.parts[1:], pattern.gaps, strict=True):
        limit = len(text) if gap is None else position + gap + len(part)
        found = text.find(part, position, limit)
        if found == -1:
            return None
        position = found + len(part)
    return position
