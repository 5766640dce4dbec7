"""An HTML page made safe to parse: its nesting flattened past a bounded depth.

An HTML parser's tree builder looks up the stack of open elements for many start tags
(a `<div>` closes an open `<p>` in scope), so a page nested 200,000 deep costs time in
the square of its depth. Browsers cap the depth they build (Chromium at 512); here a
tag that would open an element deeper than `MAX_DEPTH` is taken out before parsing,
with its end tag, and a block's tag leaves a line break. The text stays, all of it;
only structure past that depth is lost. Depth is counted from the tags alone: elements
that are empty or whose end tag may be left out (`<br>`, `<p>`, `<li>`, `<td>`, …) do
not count, so a page that never closes its paragraphs is not flattened.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

MAX_DEPTH = 256
"""How deep elements nest before the page is flattened; real pages stay far below."""
MAX_HTML_CHARS = 16 * 1024 * 1024
"""A page longer than this is not parsed: a refusal, not an hour of parsing."""

_TAG_OPENING = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*)")
_VOID = "area base br col embed hr img input link meta param source track wbr keygen"
_OPTIONAL_END = "p li dt dd option optgroup tr td th tbody thead tfoot colgroup caption rb rt rp"
_NOT_NESTING = frozenset(f"{_VOID} {_OPTIONAL_END} html head body".split(" "))
_BLOCK_NAMES = (
    "address article aside blockquote details dialog div dl fieldset figcaption figure "
    "footer form h1 h2 h3 h4 h5 h6 header main nav ol pre section table ul"
)
_BLOCKS = frozenset(_BLOCK_NAMES.split(" "))


def bounded(html: str, max_depth: int = MAX_DEPTH) -> str:
    """`html` with every element nested deeper than `max_depth` taken out (its text kept)."""
    if html.count("<") <= max_depth:
        return html
    pieces: list[str] = []
    depth = dropped = last = 0
    for start, end, closing, name in _tags(html):
        name = name.lower()
        if name in _NOT_NESTING or html.endswith("/>", start, end):
            continue
        if closing:
            if not dropped:
                depth = max(0, depth - 1)
                continue
            dropped -= 1
        elif depth < max_depth:
            depth += 1
            continue
        else:
            dropped += 1
        pieces += [html[last:start], "\n" if name in _BLOCKS else ""]
        last = end
    if not pieces:
        return html
    pieces.append(html[last:])
    return "".join(pieces)


def _tags(html: str) -> Iterator[tuple[int, int, str, str]]:
    """Each tag `<name>`, `</name>` or `<name …>` as (start, end, '/' or '', name), in
    order. The `>` that ends a tag with attributes ends every tag opened before it, so it
    is looked for once, not once for each opening (as a pattern [^>]* would)."""
    close = -1
    at = html.find("<")
    while at >= 0:
        opening = _TAG_OPENING.match(html, at)
        after = opening.end() if opening else at + 1
        if opening is not None and html.startswith(">", after):
            yield at, after + 1, opening[1], opening[2]
            at = html.find("<", after + 1)
            continue
        if opening is not None and html[after : after + 1].isspace():
            if close <= after:
                close = html.find(">", after + 1)
                if close < 0:
                    return
            yield at, close + 1, opening[1], opening[2]
            at = html.find("<", close + 1)
            continue
        at = html.find("<", at + 1)
