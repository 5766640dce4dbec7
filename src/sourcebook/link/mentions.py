"""Mentions, found once: where a prose field names an entity, and which one it links to.

Link reads each prose field as the site renders it (`link.markdown`): a body as a block,
a paper's body as a paper, any other field as one line. It looks for names only where a
reader sees text: in a plain text, its lines between the record's marks; in Markdown,
the text tokens outside links; and in either, not inside what looks like a URL, code, a
wiki link or a citation (`prose.masked_regions`). Each name found gives a reference to
every entity it stands for but the field's own (`graph`), and links on the page to one of
them (`choice`): what the page shows is `Read`, which the linked graph keeps per field.
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from sourcebook.link import markdown
from sourcebook.link import prose as marks
from sourcebook.link.names import NameMatcher
from sourcebook.model.kinds import KINDS
from sourcebook.model.refs import Key

if TYPE_CHECKING:
    from markdown_it.token import Token

    from sourcebook.model.base import Entity

PLAIN = "plain"
BLOCK = "block"
INLINE = "inline"
PAPER = "paper"
PARSED = "parsed"
"""Markdown the site parsed itself: a text link did not read in the reading it renders."""
_KIND_RANK = {k.name: i for i, k in enumerate(KINDS)}
_NEWLINE = re.compile("\n")


class Read(NamedTuple):
    """How link read one prose field, and the names in it that the page links."""

    reading: str
    """PLAIN for a text without Markdown (its names stand alike in any reading of it);
    else the reading it was parsed in: BLOCK, INLINE or PAPER (or PARSED)."""
    spans: array
    """Where each name stands. In a plain text: its start and end, offsets in the text. In
    Markdown: the run it stands in (numbered as `markdown.text_runs` orders them), and its
    start and end in that run's text."""
    keys: tuple[Key, ...]
    """The entity each name links to, in the same order."""

    def flat(self, numbers: dict[Key, int]) -> tuple[str, bytes, bytes]:
        """As plain values, which pickle makes far faster between processes: each entity
        by its number in `numbers`."""
        keys = array("i", [numbers[key] for key in self.keys])
        return self.reading, self.spans.tobytes(), keys.tobytes()

    @classmethod
    def from_flat(cls, flat: list, keys: list[Key]) -> Read:
        """From `flat`, each entity numbered in `keys`."""
        reading, spans, numbers = flat
        return cls(reading, array("i", spans), tuple(map(keys.__getitem__, array("i", numbers))))


NOTHING = Read(PLAIN, array("i"), ())
"""A plain text that links no name."""


Named = tuple[int, str, tuple[Key, ...]]
"""A name found in a field, for its references: where it starts in the field's text, the
name as it reads there, and every entity it stands for."""


def reading_of(entity: Entity, field: str) -> str:
    """How the site renders the field: a body as a block (a paper's as a paper), any other
    field as one line."""
    if field != "body":
        return INLINE
    return PAPER if entity.KIND == "paper" else BLOCK


def read(
    text: str, reading: str, matcher: NameMatcher, owner: Key | None, shown: bool = True
) -> tuple[Read, list[Named]]:
    """The names in `text` read as `reading`: what the page links (unless not `shown`:
    then NOTHING for a plain text), and each name (in the order they stand in the text)
    for the references. A name that stands for `owner` alone is neither."""
    if reading != PAPER:
        found = markdown.plain_marks(text)
        if found is not None:
            return _plain(text, [mark.span() for mark in found], matcher, owner, shown)
    parsed = markdown.paper_text(text) if reading == PAPER else text
    contents, where = markdown.markdown_runs(parsed, reading)
    spans, keys, named = _in_runs(contents, matcher, owner)
    back = _relined(text, parsed) if parsed != text else None
    out = []
    for run, start, said, targets in named:
        at = where(run, start)
        out.append((back(at) if back else at, said, targets))
    out.sort(key=lambda name: name[0])
    return Read(reading, spans, keys), out


def read_plain(text: str, matcher: NameMatcher, owner: Key | None) -> Read | None:
    """What the page links in a text without Markdown; None for a text with it."""
    found = markdown.plain_marks(text)
    if found is None:
        return None
    return _plain(text, [mark.span() for mark in found], matcher, owner)[0]


def read_tokens(tokens: list[Token], matcher: NameMatcher, owner: Key | None) -> Read:
    """What the page links in Markdown already parsed (by the site, for a text that link
    did not read in that reading)."""
    runs = markdown.text_runs(tokens)
    contents = [block.children[index].content for block, index in runs]  # type: ignore[index]
    spans, keys, _named = _in_runs(contents, matcher, owner)
    return Read(PARSED, spans, keys)


def _plain(
    text: str,
    masked: list[tuple[int, int]],
    matcher: NameMatcher,
    owner: Key | None,
    shown: bool = True,
) -> tuple[Read, list[Named]]:
    """The names of a plain text: in its lines, between its marks (`masked`)."""
    if marks.may_hold_url(text):  # a URL ends at white space, so each stands on one line
        cuts = [0, *(i for span in masked for i in span), len(text)]
        for start, end in zip(cuts[::2], cuts[1::2], strict=True):
            masked += marks.urls(text, start, end)
    if "\n" in text:  # no name runs from one line into the next
        masked += [m.span() for m in _NEWLINE.finditer(text)]
    if masked:
        masked.sort()
    found = matcher.find(text, masked)
    if not found:
        return NOTHING, []
    # A name that stands for the owner alone is neither linked nor referred to; one that
    # stands for more entities stands for one other at least.
    found = [m for m in found if m[2][0] != owner or len(m[2]) > 1]
    named = [(m[0], text[m[0] : m[1]], m[2]) for m in found]
    if not found or not shown:
        return NOTHING, named
    keys = [m[2][0] if len(m[2]) == 1 else _chosen(m[2], owner) for m in found]
    spans = array("i", [at for m in found for at in m[:2]])
    return Read(PLAIN, spans, tuple(keys)), named


def _in_runs(
    contents: list[str], matcher: NameMatcher, owner: Key | None
) -> tuple[array, tuple[Key, ...], list[tuple[int, int, str, tuple[Key, ...]]]]:
    """The names in each run of parsed Markdown: (run, start, end) and the entity each
    links to; and each found, as (run, start, text, the entities it stands for)."""
    spans = array("i")
    keys = []
    named = []
    for run, content in enumerate(contents):
        if markdown.FIGURE.fullmatch(content):  # a paper's figure, never a name
            continue
        masked = marks.masked_regions(content) if marks.may_mask(content) else []
        for mention in matcher.find(content, masked):
            key = choice(mention.targets, owner)
            if key is not None:
                spans.extend((run, mention.start, mention.end))
                keys.append(key)
                said = content[mention.start : mention.end]
                named.append((run, mention.start, said, mention.targets))
    return spans, tuple(keys), named


def _relined(text: str, parsed: str) -> Callable[[int], int]:
    """From an offset in `parsed` to the same line and column of `text`: they differ only
    within lines (a paper's figure lines), never in their number."""
    starts = [0, *(m.end() for m in _NEWLINE.finditer(text))]
    parsed_starts = [0, *(m.end() for m in _NEWLINE.finditer(parsed))]

    def back(at: int) -> int:
        line = bisect.bisect_right(parsed_starts, at) - 1
        return starts[line] + at - parsed_starts[line]

    return back


def choice(targets: tuple[Key, ...], owner: Key | None) -> Key | None:
    """Of the entities a name stands for, the one it links to: not the owner; the first
    kind (in the order of KINDS), then the first id."""
    if len(targets) == 1:  # as nearly every name
        return None if targets[0] == owner else targets[0]
    return min((t for t in targets if t != owner), key=_rank, default=None)


def _chosen(targets: tuple[Key, ...], owner: Key | None) -> Key:
    """`choice` of two entities or more, of which one at least is not the owner."""
    return min((t for t in targets if t != owner), key=_rank)


def _rank(key: Key) -> tuple[int, str]:
    return _KIND_RANK.get(key[0], 99), key[1]
