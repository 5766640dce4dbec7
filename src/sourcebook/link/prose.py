"""Find the marked-up parts of record prose: wiki links, citations, quotes, code and URLs."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NamedTuple

# [[id]], [[kind:id]], [[id|shown text]]
WIKI_LINK = re.compile(r"\[\[([^\[\]|\n]+?)(?:\|([^\[\]\n]+?))?\]\]")
# [@id] or [@id, p. 81]; several may share brackets: [@a; @b, p. 3]
CITATION = re.compile(r"\[(@[^\[\]\n]+?)\]")
# A key as Pandoc reads one: internal punctuation allowed (`EpochAI:2025`, `doe.2024`);
# each character is read by one alternative, once.
_CITED_ID = re.compile(r"@([A-Za-z0-9_](?:\w|[-:.#$%&+?<>~/](?=\w))*)\s*")
# Curly double quotation marks: a quote runs from an opening mark to the closing mark
# that balances it, so a quote may hold a quote (see `quote_spans`). A span marked
# [“…”]{.scare} or {.title} is not a quote of the source.
QUOTE_MARK = re.compile(r"[“”]")
FLAT_QUOTE = re.compile(r"“([^“”]+)”")
MARKED_SPAN = re.compile(r"\[(“[^“”]+”)\]\{\.(scare|title)\}")
# "Words in straight quotes" right before a citation: meant as a quote, but not one. A
# match is tried at each straight mark and reads at most to the next one.
STRAIGHT_CITED = re.compile(r'(?<![\w"])"([^"\n]*[^"\s])"(?=[ ,.;:\u00a0]*\[@)')
# Regions where no mention is looked for. Each pattern is tried only where its first
# character stands, and reads on only to a character it cannot hold: so no character is
# read again for every place that might start a match (see `urls` for the two that could).
CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]+`", re.S)
_BARE_URL = re.compile(r"(?:https?://|www\.)[^\s)\]>]+", re.I)
_TARGET_END = re.compile(r"[)\s]")
_ANGLE_OPENING = re.compile(r"<[a-z]+://", re.I)


# Named tuples, not frozen dataclasses: a large record's prose holds tens of thousands
# of each, and a tuple is made several times faster.
class WikiLink(NamedTuple):
    start: int
    end: int
    target: str
    kind: str | None
    shown: str | None


class Embed(NamedTuple):
    """`![[kind:id|what]]`: a value the record computes, said in prose (`EMBEDDED`)."""

    start: int
    end: int
    kind: str | None
    target: str
    what: str | None
    """What of the entity is said (`campus` of a row, `chips` of a campus); None for the
    kind's first."""


class Citation(NamedTuple):
    start: int
    end: int
    source: str
    locator: str | None


class Quote(NamedTuple):
    start: int
    end: int
    text: str
    cited: str | None
    """The source a citation right after the quote names, if there is one."""
    locator: str | None


class MarkedSpan(NamedTuple):
    start: int
    end: int
    text: str
    mark: str


class QuoteSpans(NamedTuple):
    """Where a text's quotes stand, each (start, end) from its opening to its closing
    mark, and the offset of each quotation mark that nothing balances."""

    spans: list[tuple[int, int]]
    unbalanced: list[int]


def quote_spans(text: str) -> QuoteSpans:
    """The outermost balanced “…” spans of `text`: “a “b” c” is one quote, not “b”.

    Where the marks do not balance (an opening mark never closed, a closing mark never
    opened), each such mark is reported and the quotes are taken as innermost pairs
    between the marks that do balance, as if none held another.
    """
    if "“" not in text and "”" not in text:
        return QuoteSpans([], [])
    spans: list[tuple[int, int]] = []
    unbalanced: list[int] = []
    opened: list[int] = []
    for mark in QUOTE_MARK.finditer(text):
        at = mark.start()
        if mark[0] == "“":
            opened.append(at)
        elif opened:
            start = opened.pop()
            if not opened:
                spans.append((start, at + 1))
        else:
            unbalanced.append(at)
    unbalanced += opened
    if unbalanced:
        spans = [(m.start(), m.end()) for m in FLAT_QUOTE.finditer(text)]
    return QuoteSpans([(a, b) for a, b in spans if b - a > 2], sorted(unbalanced))


@dataclass(frozen=True, slots=True)
class Scan:
    """Everything marked up in one text, each pattern run over it once."""

    wiki_links: list[WikiLink]
    citations: list[Citation]
    quotes: list[Quote]
    marked_spans: list[MarkedSpan]
    unbalanced: list[int]
    """Offsets of curly quotation marks that no other balances."""
    straight: list[int]
    """Offsets of straight quotation marks that open words cited as a quote would be."""


def scan(text: str) -> Scan:
    bracketed = "[" in text  # where each of the patterns but the quotes' starts
    cites = _citations(CITATION.finditer(text)) if bracketed else []
    marked = marked_spans(text) if bracketed else []
    found = quote_spans(text)
    return Scan(
        _wiki_links(WIKI_LINK.finditer(text)) if bracketed else [],
        cites,
        _quotes(text, marked, cites, found.spans) if found.spans else [],
        marked,
        _unmarked(found.unbalanced, marked),
        [m.start() for m in STRAIGHT_CITED.finditer(text)] if cites else [],
    )


def curled(text: str) -> str:
    """`text` with each "…" right before a citation made “…”, every other character as it
    was."""
    if "[@" not in text:
        return text
    return STRAIGHT_CITED.sub(lambda m: f"“{m[1]}”", text)


def _unmarked(offsets: list[int], marked: list[MarkedSpan]) -> list[int]:
    if not marked:
        return offsets
    inside = _within([(s.start, s.end) for s in marked])
    return [at for at in offsets if not inside(at)]


def _within(spans: list[tuple[int, int]]) -> Callable[[int], bool]:
    """Whether an offset stands inside one of `spans` (in order, none overlapping)."""
    starts = [start for start, _ in spans]

    def inside(at: int) -> bool:
        index = bisect.bisect_right(starts, at) - 1
        return index >= 0 and at < spans[index][1]

    return inside


def wiki_links(text: str) -> list[WikiLink]:
    return _wiki_links(WIKI_LINK.finditer(text))


def _wiki_links(matches: Iterable[re.Match[str]]) -> list[WikiLink]:
    out = []
    for m in matches:
        target = m[1].strip()
        kind, _, bare = target.partition(":") if ":" in target else (None, "", target)
        out.append(
            WikiLink(m.start(), m.end(), bare.strip(), kind and kind.strip(), m[2] and m[2].strip())
        )
    return out


EMBEDDED: dict[str, tuple[str, ...]] = {
    "indicator": ("value", "campus"),
    "campus": ("power", "chips", "stage"),
    "test": ("verdict",),
}
"""What prose may embed of each kind, the first of each when it says nothing: a scorecard
row's value or the campus it is at; a campus's evidenced operating power, its chips
running or its stage; a test's verdict."""

_EMBED_STOP = re.compile(r"\]\]|[\[\]\n]")
"""Where an embed's inside ends: its closing brackets, or a bracket or line break that
makes it none."""


def embeds(text: str) -> list[Embed]:
    """Every `![[…]]` of `text`, in order. Found with `str.find` and one search per
    embed that stops at the first bracket, so each character is looked at a bounded number
    of times: linear in the text whatever it holds."""
    found = []
    at = text.find("![[")
    while at >= 0:
        embed = embed_at(text, at)
        if embed is not None:
            found.append(embed)
        at = text.find("![[", embed.end if embed is not None else at + 3)
    return found


def embed_at(text: str, at: int, end: int | None = None) -> Embed | None:
    """The embed that starts at `at` (before `end`), or None where none does."""
    if not text.startswith("![[", at):
        return None
    stop = _EMBED_STOP.search(text, at + 3, len(text) if end is None else end)
    if stop is None or stop[0] != "]]":
        return None
    inside = text[at + 3 : stop.start()]
    named, bar, what = inside.partition("|")
    kind, colon, target = named.partition(":")
    if not colon:
        kind, target = "", named
    target = target.strip()
    if not target or (bar and not what.strip()):
        return None
    return Embed(at, stop.end(), kind.strip() or None, target, what.strip() or None)


def citations(text: str) -> list[Citation]:
    return _citations(CITATION.finditer(text))


def _citations(matches: Iterable[re.Match[str]]) -> list[Citation]:
    out = []
    for m in matches:
        for source, locator in cited(m[1]):
            out.append(Citation(m.start(), m.end(), source, locator))
    return out


def cited(inside: str) -> list[tuple[str, str | None]]:
    """(source, locator) of each item between one citation's brackets (one line's text):
    `@id`, then `, locator` or nothing, up to a semicolon or the end. An `@` that opens
    no such item is passed over."""
    out: list[tuple[str, str | None]] = []
    semicolon = -1  # the first ';' at or after the place being read; found once for all
    at = inside.find("@")
    while at >= 0:
        item = _CITED_ID.match(inside, at)
        after = item.end() if item else at + 1
        mark = inside[after : after + 1]
        if item is not None and mark in ("", ";"):
            out.append((item[1], None))
            after += 1
        elif item is not None and mark == ",":
            if semicolon < after and semicolon != len(inside):
                found = inside.find(";", after)
                semicolon = found if found >= 0 else len(inside)
            if semicolon > after + 1:
                locator = inside[after + 1 : semicolon]
                out.append((item[1], locator.strip()))
                after = semicolon + 1
        at = inside.find("@", after)
    return out


def marked_spans(text: str) -> list[MarkedSpan]:
    return [MarkedSpan(m.start(), m.end(), m[1], m[2]) for m in MARKED_SPAN.finditer(text)]


def quotes(text: str) -> list[Quote]:
    """Curly-quoted spans that claim to be a source's words (marked spans left out)."""
    return _quotes(text, marked_spans(text), citations(text), quote_spans(text).spans)


def _quotes(
    text: str,
    marked_spans: list[MarkedSpan],
    cites: list[Citation],
    spans: list[tuple[int, int]],
) -> list[Quote]:
    inside = _within([(s.start, s.end) for s in marked_spans])
    cited_at = {c.start: c for c in cites}
    out = []
    for start, end in spans:
        if inside(start):
            continue
        after = end
        while after < len(text) and text[after] in " ,.;:\u00a0":
            after += 1
        cited = cited_at.get(after)
        out.append(
            Quote(
                start,
                end,
                _unmarked_text(text[start + 1 : end - 1]),
                cited.source if cited else None,
                cited.locator if cited else None,
            )
        )
    return out


def _unmarked_text(quoted: str) -> str:
    """A quote's words, a span marked inside it as not the source's shown as plain words."""
    return MARKED_SPAN.sub(r"\1", quoted) if "]{." in quoted else quoted


_SENTENCE_END = re.compile(
    r"[.!?][”’\"')\]]*\s+|\n[ \t]*\n|\n(?=[ \t]*(?:[-*+#>|]|\d{1,9}[.)])[ \t])"
)
"""Where a sentence ends: a full stop (or ! or ?) and space, a blank line, or the start of
a list item, heading, quotation or table row."""


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of `text`, in order (as `_SENTENCE_END` cuts them:
    an abbreviation's full stop ends one too, which only ever makes them shorter)."""
    cuts = [0, *(m.end() for m in _SENTENCE_END.finditer(text)), len(text)]
    return [(a, b) for a, b in zip(cuts, cuts[1:], strict=False) if b > a]


def masked_regions(text: str) -> list[tuple[int, int]]:
    """Spans of code, URLs, wiki links and citations: no mention is found inside them."""
    return _masked(text, WIKI_LINK.finditer(text), CITATION.finditer(text))


def may_mask(text: str) -> bool:
    """Whether `masked_regions` may find any: each region holds one of these."""
    return "[" in text or "`" in text or may_hold_url(text)


def may_hold_url(text: str) -> bool:
    """Whether `urls` may find any: each URL holds one of these."""
    return "://" in text or "](" in text or "www." in text.lower()


def urls(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Spans of the addresses in `text[start:end]`, leftmost first, none overlapping: bare
    (`https://…`, `www.…`, up to white space or a closing bracket), a Markdown link's
    target `](…)`, and `<scheme://…>`."""
    forms = _Addresses(text, len(text) if end is None else end)
    finders = [forms.bare, forms.target, forms.angle]
    upcoming = [find(start) for find in finders]
    found = []
    while any(upcoming):
        span = min(span for span in upcoming if span is not None)
        found.append(span)
        upcoming = [
            find(span[1]) if ahead is not None and ahead[0] < span[1] else ahead
            for find, ahead in zip(finders, upcoming, strict=True)
        ]
    return found


class _Addresses:
    """The first match of each form of address from a place on, as one alternation of the
    three would try them. Each reads on from where it last stopped: the end that one
    opening of a form found (`)`, white space or `>`) is the end of every opening before
    it, so it is looked for once, however many openings share it."""

    def __init__(self, text: str, end: int):
        self.text = text
        self.end = end
        self.stop = -1
        """The first `)` or white space after the last `](` read; len(text): none."""
        self.close = -1
        """The first `>` after the last `<scheme://` read; len(text): none."""

    def bare(self, at: int) -> tuple[int, int] | None:
        found = _BARE_URL.search(self.text, at, self.end)
        return found.span() if found else None

    def target(self, at: int) -> tuple[int, int] | None:
        text, end = self.text, self.end
        at = text.find("](", at, end)
        while at >= 0:
            if self.stop < at + 2:
                after = _TARGET_END.search(text, at + 2, end)
                self.stop = after.start() if after else len(text)
            if self.stop >= end:
                return None
            if text[self.stop] == ")" and self.stop > at + 2:
                return at, self.stop + 1
            at = text.find("](", at + 1, end)
        return None

    def angle(self, at: int) -> tuple[int, int] | None:
        text, end = self.text, self.end
        at = text.find("<", at, end)
        while at >= 0:
            opening = _ANGLE_OPENING.match(text, at, end)
            if opening is not None:
                if self.close < opening.end():
                    found = text.find(">", opening.end(), end)
                    self.close = found if found >= 0 else len(text)
                if self.close >= end:
                    return None
                if self.close > opening.end():
                    return at, self.close + 1
            at = text.find("<", at + 1, end)
        return None


def _masked(
    text: str, links: Iterable[re.Match[str]], bracketed: Iterable[re.Match[str]]
) -> list[tuple[int, int]]:
    regions = [(m.start(), m.end()) for m in CODE.finditer(text)] if "`" in text else []
    if may_hold_url(text):
        regions += urls(text)
    regions += [(m.start(), m.end()) for m in links]
    regions += [(m.start(), m.end()) for m in bracketed]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(regions):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
