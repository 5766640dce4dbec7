"""Find a quote in a normalized text: str.find first, regular expressions where it must.

Most quotes are found by plain substring search of their parts, the first part at each
place it occurs and each later part at its earliest place after the one before. Only
where that fails (a gap that needs backtracking, a hyphen lost to a line break, or a
quote that is not there at all) are the quote's expressions compiled and run.

Both stay linear in the text. A part after an ellipsis is looked for once from each
place, not once for each place the first part stands: its earliest place after one
place is its earliest after every place before that (`_Later`). The expressions are one
for each run of parts between ellipses, each run taken at its first place after the one
before, so no expression reads from every place to the end of the text.
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
    return _search(pattern, text)


def _find(pattern: QuotePattern, text: str) -> tuple[int, int] | None:
    first = pattern.parts[0]
    head = not pattern.open_start and is_word(first[0])
    tail = not pattern.open_end and is_word(pattern.parts[-1][-1])
    later = _Later(pattern, text)
    start = text.find(first)
    while start != -1:
        if not head or start == 0 or not is_word(text[start - 1]):
            end = later.end(start + len(first))
            if end is _NEVER:
                return None
            if end is not None and (not tail or end == len(text) or not is_word(text[end])):
                return start, end
        start = text.find(first, start + 1)
    return None


_NEVER = -1
"""A part after an ellipsis that the text does not hold after a place, nor after any later."""


class _Later:
    """The parts after the first, each at its earliest place after the one before."""

    def __init__(self, pattern: QuotePattern, text: str):
        self.pattern = pattern
        self.text = text
        self.found: dict[int, int] = {}
        """For each part after an ellipsis, its place found last: the places asked from
        only grow, so it answers again for every place up to it."""

    def end(self, position: int) -> int | None:
        """Where the parts after the first end, from `position`; None if one is missing
        or stands too far from the part before; _NEVER if no later place can do better."""
        text = self.text
        for index, (part, gap) in enumerate(
            zip(self.pattern.parts[1:], self.pattern.gaps, strict=True)
        ):
            if gap is None:
                found = self.found.get(index, -2)
                if found != -1 and found < position:
                    found = self.found[index] = text.find(part, position)
                if found == -1:
                    return _NEVER
            else:
                found = text.find(part, position, position + gap + len(part))
                if found == -1:
                    return None
            position = found + len(part)
        return position


def _search(pattern: QuotePattern, text: str) -> tuple[int, int] | None:
    start = None
    position = 0
    for segment in pattern.segments:
        found = segment.search(text, position)
        if found is None:
            return None
        start = found.start() if start is None else start
        position = found.end()
    return None if start is None else (start, position)
