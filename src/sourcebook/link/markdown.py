"""How record prose reads: as plain text between the record's own marks, or as Markdown.

The site renders each prose field in the reading given here, and link finds the field's
mentions in that same reading (`link.mentions`), so that a page links a name exactly where
link found it. A text whose only markup is the record's marks (wiki links, marked spans,
citations and code spans between single backticks, none of them across lines) reads
without Markdown: a name may stand in its lines between those marks. Any other text is
read by markdown-it, with raw HTML off and the marks as inline rules (`parser`): a name
may stand in a text token outside a link (`text_runs`). Link parses such a text once
more than the site does, keeping where each text token stands in the field
(`markdown_runs`), for the positions of its references.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sourcebook.link import prose as marks
from sourcebook.model.addresses import safe_link
from sourcebook.runtime.memo import memoized

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.parser_inline import ParserInline
    from markdown_it.rules_core import StateCore
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token

MARKUP_CHARS = re.compile(r"[][*_`<>&\\~|\r\0\t]")
"""Characters Markdown might read as markup wherever they stand."""
LINE_MARKUP = re.compile(r"[ \-+=#]|\d{1,9}[.)](?: |\n|$)")
"""What Markdown might read as markup at the start of a line."""
NEW_LINE_MARKUP = re.compile(rf"\n(?:{LINE_MARKUP.pattern})")
OWN_MARKS = re.compile(
    rf"(?P<wiki>{marks.WIKI_LINK.pattern})|(?P<marked>{marks.MARKED_SPAN.pattern})"
    rf"|(?P<cite>{marks.CITATION.pattern})|(?P<code>`[^`\n]+`(?!`))"
)
"""The marks a plain text may hold, tried in the order the inline rules try them: wiki
links, marked spans, citations, and code spans between single backticks."""


def needs_markdown(text: str) -> bool:
    """Whether `text` holds Markdown beyond the marks of OWN_MARKS (see `plain_marks`)."""
    return plain_marks(text) is None


def plain_marks(text: str) -> list[re.Match[str]] | None:
    """The marks of a text that reads without Markdown, in order; None for a text that
    holds Markdown beyond them.

    A mark that spans lines, or a citation of nothing, counts as Markdown: the plain
    reading would read it otherwise than the inline rules do. A text without any reads
    as markdown-it would render it, faster (the site's `ProseRenderer` renders it so).
    """
    found: list[re.Match[str]] = []
    if "![[" in text:  # an embed, which only the inline rules read (`parser`)
        return None
    if "[" in text or "`" in text:
        marked = own_marks(text)
        if marked is None or not all(map(_plain_mark, marked)):
            return None
        found = marked
        # Each pattern below is read as if a letter stood in for each mark: no character
        # of a mark is markup, and none of the patterns reads one across a mark's edge.
        cuts = [0, *(i for mark in found for i in mark.span()), len(text)]
        for start, end in zip(cuts[::2], cuts[1::2], strict=True):
            if MARKUP_CHARS.search(text, start, end) is not None:
                return None
    elif MARKUP_CHARS.search(text) is not None:
        return None
    if (
        LINE_MARKUP.match(text) is not None  # a mark starts with a bracket or a backtick
        or NEW_LINE_MARKUP.search(text) is not None
        or " \n" in text  # a space that ends a line, or the text, may be a hard break
        or text.endswith(" ")
    ):
        return None
    return found


def own_marks(text: str) -> list[re.Match[str]] | None:
    """The marks in `text` as `OWN_MARKS.finditer` finds them, or None if a bracket or
    backtick opens none. Only those are tried: the pattern alone would try every character.
    """
    found = []
    opening = _Openings(text)
    at = opening.next(0)
    while at >= 0:
        mark = OWN_MARKS.match(text, at)
        if mark is None:
            return None
        found.append(mark)
        at = opening.next(mark.end())
    return found


class _Openings:
    """Where the next bracket or backtick stands. str.find, not a regular expression: it
    passes over the text between far faster; and each is looked for again only once the
    reading has passed the last found, so a text of many backticks and no bracket is not
    read to its end for each of them."""

    def __init__(self, text: str):
        self.text = text
        self.bracket = -2 if "[" in text else -1
        self.tick = -2 if "`" in text else -1

    def next(self, start: int) -> int:
        """Where the next opening from `start` stands; -1 where none does."""
        if -1 != self.bracket < start:
            self.bracket = self.text.find("[", start)
        if -1 != self.tick < start:
            self.tick = self.text.find("`", start)
        if self.bracket < 0 or 0 <= self.tick < self.bracket:
            return self.tick
        return self.bracket


def _plain_mark(found: re.Match[str]) -> bool:
    return "\n" not in found[0] and not (found["cite"] and not marks.cited(found["cite"][1:-1]))


# A paper's figures.

EMBED_LINE = re.compile(r"^!\[\[chart:([a-z0-9][a-z0-9-]*)(\|table)?\]\][ \t]*$", re.M)
"""A line of a paper that is a figure: `![[chart:ID]]` draws the chart,
`![[chart:ID|table]]` sets out its data as a table."""
FIGURE_MARK = "\ue000"
FIGURE = re.compile(rf"{FIGURE_MARK}(chart|table):([a-z0-9-]+){FIGURE_MARK}")
"""What a figure's line reads as in a paper: a marker the page puts the figure in place of."""


def paper_text(body: str) -> str:
    """A paper's body as it reads: each figure's line its marker (see FIGURE)."""
    return EMBED_LINE.sub(_figure_marker, body)


def _figure_marker(found: re.Match[str]) -> str:
    return f"{FIGURE_MARK}{'table' if found[2] else 'chart'}:{found[1]}{FIGURE_MARK}"


# Markdown.


def parser(paper: bool = False) -> MarkdownIt:
    """markdown-it as record prose reads: CommonMark without raw HTML, links only to safe
    addresses (`safe_link`), and the record's marks as inline rules, each a token:
    `embed` (`![[kind:id|what]]`, a value the record computes), `wikilink`, `marked` and
    `citation`. A paper's has footnotes too."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.validateLink = safe_link  # type: ignore[method-assign]
    md.inline.ruler.before("link", "embed", _embed)
    md.inline.ruler.before("link", "wikilink", _scan(marks.WIKI_LINK, "wikilink", _wiki_meta))
    md.inline.ruler.before("link", "marked", _scan(marks.MARKED_SPAN, "marked", _marked_meta))
    md.inline.ruler.before("link", "citation", _scan(marks.CITATION, "citation", _cite_meta))
    if paper:
        from mdit_py_plugins.footnote import footnote_plugin

        md.use(footnote_plugin)
    return md


def _scan(pattern: re.Pattern, kind: str, meta: Callable[[re.Match], dict | None]) -> Callable:
    """An inline rule that turns one match of `pattern` at the cursor into one token."""

    def rule(state: StateInline, silent: bool) -> bool:
        if state.src[state.pos] != "[":
            return False
        found = pattern.match(state.src, state.pos, state.posMax)
        data = meta(found) if found else None
        if found is None or data is None:
            return False
        if not silent:
            token = state.push(kind, "", 0)
            token.meta = data
        state.pos = found.end()
        return True

    return rule


def _embed(state: StateInline, silent: bool) -> bool:
    """The inline rule of an embed: `![[…]]` at the cursor, one token."""
    if state.src[state.pos] != "!":
        return False
    found = marks.embed_at(state.src, state.pos, state.posMax)
    if found is None:
        return False
    if not silent:
        token = state.push("embed", "", 0)
        token.meta = {"kind": found.kind, "target": found.target, "what": found.what}
    state.pos = found.end
    return True


def _wiki_meta(found: re.Match) -> dict:
    link = marks.wiki_links(found[0])[0]
    return {"target": link.target, "kind": link.kind, "shown": link.shown}


def _marked_meta(found: re.Match) -> dict:
    return {"text": found[1], "mark": found[2]}


def _cite_meta(found: re.Match) -> dict | None:
    items = marks.cited(found[1])
    return {"items": items} if items else None


def text_runs(tokens: list[Token]) -> list[tuple[Token, int]]:
    """Where a name may stand in parsed Markdown: each text token outside a link, in
    order, as (the inline token that holds it, its index among that token's children)."""
    runs = []
    for block in tokens:
        if block.type != "inline" or not block.children:
            continue
        depth = 0
        for index, token in enumerate(block.children):
            if token.type == "link_open":
                depth += 1
            elif token.type == "link_close":
                depth -= 1
            elif token.type == "text" and depth == 0:
                runs.append((block, index))
    return runs


# Where each text token stands in the text parsed: link needs it for the positions of its
# references; the site only splits the tokens at the names link found.

Where = Callable[[int, int], int]
"""`where(run, index)`: the offset in the text parsed of the character at `index` of the
run numbered `run`."""


def markdown_runs(text: str, reading: str) -> tuple[list[str], Where]:
    """The text of each run of `text` read as Markdown ('block', 'inline', or 'paper' for
    a paper's body as `paper_text` gives it) as `text_runs` orders them, and where each
    of their characters stands in `text`."""
    md = _tracked(reading == "paper")
    env: dict[str, Any] = {_TEXT: (text, reading == "inline")}
    tokens = md.parseInline(text, env) if reading == "inline" else md.parse(text, env)
    runs = text_runs(tokens)
    contents = [block.children[index].content for block, index in runs]  # type: ignore[index]
    located: _Located = env[_LOCATED]

    def where(run: int, index: int) -> int:
        block, child = runs[run]
        return located.offset(block, block.children[child], index)  # type: ignore[index]

    return contents, where


_TEXT = "sourcebook.text"
"""In the parse's env: the text parsed, and whether it is read as one line."""
_LOCATED = "sourcebook.located"
"""In the parse's env: where its inline tokens stand in the text (see `_Located`)."""
_BLOCK = "sourcebook.block"
"""In the parse's env: the inline token being parsed."""
_PARSING = "sourcebook.parsing"
"""In the parse's env: the inline parse under way, around any parse nested in it."""


def parsers() -> None:
    """Make link's parsers now, so that the workers forked after share them (importing
    markdown-it takes a few hundredths of a second)."""
    _tracked(False)
    _tracked(True)


@memoized()
def _tracked(paper: bool) -> MarkdownIt:
    """`parser(paper)`, each text token of its parse noting where in its inline token's
    content it starts: in its meta, `at` (an offset) and `block` (that inline token).
    Made once for each `paper`."""
    from functools import partial

    md = parser(paper)
    md.inline.ruler.before("text", "track", _track)
    md.inline.ruler2.before("fragments_join", "track", _keep_first_place)
    md.core.ruler.before("text_join", "track", _keep_first_place_joined)
    md.core.ruler.at("inline", _inline_blocks)
    md.inline.parse = partial(_parse_tracked, md.inline)  # type: ignore[method-assign]
    return md


def _inline_blocks(state: StateCore) -> None:
    """markdown-it's `inline` core rule, noting in the env the inline token it parses;
    first, where each inline token stands in the text (before footnotes take away the
    definitions that nothing refers to, whose inline footnotes still show)."""
    text, inline = state.env[_TEXT]
    state.env[_LOCATED] = _Located(text, state.tokens, inline)
    for token in state.tokens:
        if token.type == "inline":
            if token.children is None:
                token.children = []
            state.env[_BLOCK] = token
            state.md.inline.parse(token.content, state.md, state.env, token.children)


def _parse_tracked(
    inline: ParserInline, src: str, md: MarkdownIt, env: Any, tokens: list[Token]
) -> list[Token]:
    """ParserInline.parse with a state that notes where its text tokens start.

    A parse nested in another (an inline footnote `^[…]`, an image's text `![…]`) reads
    the text from two characters past where the rule around it began."""
    state: Any = _tracking_state()(src, md, env, tokens)
    around = env.get(_PARSING)
    state.base = around.base + around.began + 2 if around is not None else 0
    state.block = env.get(_BLOCK)
    state.began = state.pending_from = state.pushed = 0
    env[_PARSING] = state
    try:
        inline.tokenize(state)
        for rule in inline.ruler2.getRules(""):
            rule(state)
    finally:
        env[_PARSING] = around
    return state.tokens  # type: ignore[no-any-return]


_STATE: list[type] = []


def _tracking_state() -> type:
    """StateInline, each text token it makes noting where it starts (see `_track`)."""
    if not _STATE:
        from markdown_it.rules_inline import StateInline

        class Tracked(StateInline):
            base: int
            began: int
            pending_from: int
            pushed: int
            block: Token | None

            def pushPending(self) -> Token:
                token = super().pushPending()
                token.meta = {"at": self.base + self.pending_from, "block": self.block}
                return token

            def push(self, ttype: str, tag: str, nesting: Any) -> Token:
                token = super().push(ttype, tag, nesting)
                if ttype == "text" or ttype == "text_special":
                    at = self.base + self.began + self.pushed
                    token.meta = {"at": at, "block": self.block}
                    self.pushed += 1
                return token

        _STATE.append(Tracked)
    return _STATE[0]


def _track(state: Any, silent: bool) -> bool:
    """The first inline rule, which never matches: it notes where the rule that does
    begins, and where the text still pending starts (it runs up to the cursor)."""
    if not silent:
        state.began = state.pos
        state.pending_from = state.pos - len(state.pending)
        state.pushed = 0
    return False


def _keep_first_place(state: StateInline) -> None:
    """`fragments_join` keeps the last of adjacent text tokens, their text joined: each
    of them takes the place of the first that holds any text."""
    _place_runs(state.tokens, ("text",))


def _keep_first_place_joined(state: StateCore) -> None:
    """As `_keep_first_place`, for `text_join`, which joins escapes and entities to the
    text around them and keeps the first."""
    for token in state.tokens:
        if token.type == "inline" and token.children:
            _place_runs(token.children, ("text", "text_special"))


def _place_runs(tokens: list[Token], kinds: tuple[str, ...]) -> None:
    run: list[Token] = []
    for token in [*tokens, None]:
        if token is not None and token.type in kinds:
            run.append(token)
            continue
        if len(run) > 1:
            placed = next((t.meta for t in run if t.content and "at" in t.meta), None)
            if placed is not None:
                for each in run:
                    each.meta = placed
        run = []


_ESCAPABLE = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


class _Located:
    """Where the text tokens of one parse stand in the text parsed.

    An inline token's content is made of the ends of its lines (paragraphs, list items,
    quotes: indentation and markers cut off, the last line's trailing space too), or of
    part of one line (a heading, a table's cell); each text token notes where it starts
    in that content; its characters are those of the text from there, an escape or an
    entity read as the character it stands for. Where that cannot be followed (never,
    for the prose the tests generate), the position of the token's block stands in.
    """

    def __init__(self, text: str, tokens: list[Token], inline: bool):
        self.text = text
        src = text.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd")
        self.src = src  # as markdown-it reads it
        self.crlf = [at - i for i, at in enumerate(_all(text, "\r\n"))]
        """Where each CRLF stands in `src`, where it is one character."""
        self.starts = [0, *(i + 1 for i in _all(src, "\n"))]
        self.lines = src.split("\n")
        self.blocks: dict[int, list[int] | None] = {}
        """Per inline token (by id): where each line of its content starts in `src`."""
        self.kept = list(tokens)
        """The tokens by whose ids `blocks` knows them, kept alive so that no id is reused
        (footnotes take some out of the parse's tokens)."""
        self.pipes: dict[int, list[int]] = {}
        """Per table cell written with escaped pipes (`\\|`): where each pipe stands in its
        content, each one character short of the text."""
        cursor: dict[int, int] = {}
        for index, token in enumerate(tokens):
            if token.type != "inline":
                continue
            if inline:
                self.blocks[id(token)] = self.starts
                continue
            before = tokens[index - 1].type if index else ""
            cell = before in ("th_open", "td_open")
            heading = before == "heading_open" and tokens[index - 1].markup.startswith("#")
            self.blocks[id(token)] = self._lines_of(token, cell, heading, cursor)

    def _lines_of(
        self, block: Token, cell: bool, heading: bool, cursor: dict[int, int]
    ) -> list[int] | None:
        if block.map is None:
            return None
        parts = block.content.split("\n")
        found = []
        for i, part in enumerate(parts):
            number = block.map[0] + i
            if number >= len(self.lines):
                return None
            line = self.lines[number]
            if cell or heading:  # part of the line: the next one along it
                written = part.replace("|", "\\|") if cell else part  # a cell's pipes escaped
                opened = len(line) - len(line.lstrip(" ").lstrip("#")) if heading else 0
                at = line.find(written, cursor.get(number, opened))
                if at < 0:
                    return None
                cursor[number] = at + len(written)
                if written != part:
                    self.pipes[id(block)] = [i for i, ch in enumerate(part) if ch == "|"]
            else:
                ends = _line_end(line if i < len(parts) - 1 else line.rstrip(_trimmed()), part)
                if ends is None:
                    return None
                at = ends
            found.append(self.starts[number] + at)
        return found

    def offset(self, block: Token, token: Token, index: int) -> int:
        """Where the character at `index` of text token `token` (a child of `block`) stands
        in the text parsed."""
        home = token.meta.get("block") or block
        lines = self.blocks.get(id(home))
        at = token.meta.get("at")
        found = None
        if lines is not None and at is not None:
            content = home.content
            line = content.count("\n", 0, at)
            column = at - (content.rfind("\n", 0, at) + 1)
            start = lines[line] + column + bisect.bisect_left(self.pipes.get(id(home), ()), column)
            found = _follow(self.src, start, token.content, index)
        if found is None:
            found = self.starts[min(home.map[0], len(self.starts) - 1)] if home.map else 0
        return found + bisect.bisect_left(self.crlf, found)


def _trimmed() -> str | None:
    """The white space markdown-it trims off a paragraph's ends: its own list where it
    has one (from 4.1), else Python's (None), as `str.strip` takes it."""
    from markdown_it.common import utils

    return getattr(utils, "MD_TRIM_CHARS", None)


def _line_end(line: str, part: str) -> int | None:
    """Where `part`, a line of a block's content, starts in its line of the text: the
    line ends with it, or with it less the spaces a tab split in two left before it."""
    if line.endswith(part):
        return len(line) - len(part)
    kept = part.lstrip(" ")
    if kept and line.endswith(kept):
        return len(line) - len(kept) - (len(part) - len(kept))
    return None


def _follow(src: str, start: int, content: str, index: int) -> int | None:
    """Where `content[index]` stands in `src`, reading `content` from `start` on: an
    escaped character is its backslash and itself, an entity its whole; None where the
    content is not there."""
    before = content[:index]
    if "&" not in before and "\\" not in before and src.startswith(before, start):
        return start + index  # as written up to there: nothing escaped (nearly always)
    i, j = 0, start
    end = len(src)
    while i < len(content):
        if i >= index:
            return j
        if j >= end:
            return None
        ch = src[j]
        if ch == "\\" and j + 1 < end and src[j + 1] in _ESCAPABLE and content[i] == src[j + 1]:
            i, j = i + 1, j + 2
            continue
        if ch == "&":
            entity = _entity(src, j)
            if entity is not None and content.startswith(entity[1], i):
                i, j = i + len(entity[1]), j + entity[0]
                continue
        if ch != content[i]:
            return None
        i, j = i + 1, j + 1
    return j if i >= index else None


_DIGITAL = re.compile(r"&#((?:x[a-f0-9]{1,6}|[0-9]{1,7}));", re.IGNORECASE)
_NAMED = re.compile(r"&([a-z][a-z0-9]{1,31});", re.IGNORECASE)
"""CommonMark's entities, as markdown-it's inline rule reads them (its own patterns are
anchored at the start of the text in some versions, so cannot be matched at a place)."""


def _entity(src: str, at: int) -> tuple[int, str] | None:
    """The entity at `at` as markdown-it reads it: (its length, the text it stands for)."""
    from markdown_it.common.entities import entities
    from markdown_it.common.utils import fromCodePoint, isValidEntityCode

    digital = _DIGITAL.match(src, at)
    if digital is not None:
        number = digital[1]
        code = int(number[1:], 16) if number[0] in "xX" else int(number)
        return len(digital[0]), fromCodePoint(code if isValidEntityCode(code) else 0xFFFD)
    named = _NAMED.match(src, at)
    if named is not None and named[1] in entities:
        return len(named[0]), entities[named[1]]
    return None


def _all(text: str, what: str) -> list[int]:
    found = []
    at = text.find(what)
    while at >= 0:
        found.append(at)
        at = text.find(what, at + 1)
    return found
