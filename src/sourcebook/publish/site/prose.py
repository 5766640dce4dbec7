"""Record prose → safe HTML: Markdown without raw HTML, wiki links, citations and mentions.

Markdown is parsed by markdown-it with HTML disabled, so nothing in the record can
inject markup; links may only be http(s), mailto or site-relative (`safe_link`). On top of
CommonMark: `[[id]]`, `[[kind:id]]` and `[[id|text]]` link to the entity;
`[@id, p. 81]` links to the source; a span written `[“…”]{.scare}` or `{.title}`
shows its quoted text; and every name of a term, campus, party or person found in the
text (outside links and code) links to its page. A term's link carries no definition:
the page lists the definitions of the terms it mentions once, for the hover script.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markupsafe import Markup, escape

from sourcebook.link import prose as marks
from sourcebook.link.graph import resolve_wiki
from sourcebook.link.names import NameMatcher
from sourcebook.model.addresses import safe_link
from sourcebook.model.base import Entity
from sourcebook.model.kinds import KINDS
from sourcebook.model.record import Record
from sourcebook.publish.site.urls import Urls

Key = tuple[str, str]


def _escape(text: str) -> str:
    """markupsafe's escape, as a plain str: what Python writes into the HTML is escaped as
    the templates escape what they write."""
    return str(escape(text))


_KIND_RANK = {k.name: i for i, k in enumerate(KINDS)}
MARKUP_CHARS = re.compile(r"[][*_`<>&\\~|\r\0\t]")
"""Characters Markdown might read as markup wherever they stand."""
LINE_MARKUP = re.compile(r"[ \-+=#]|\d{1,9}[.)](?: |\n|$)")
"""What Markdown might read as markup at the start of a line."""
NEW_LINE_MARKUP = re.compile(rf"\n(?:{LINE_MARKUP.pattern})")
OWN_MARKS = re.compile(
    rf"(?P<wiki>{marks.WIKI_LINK.pattern})|(?P<marked>{marks.MARKED_SPAN.pattern})"
    rf"|(?P<cite>{marks.CITATION.pattern})|(?P<code>`[^`\n]+`(?!`))"
)
"""The marks the fast path renders, tried in the order the inline rules try them: wiki
links, marked spans, citations, and code spans between single backticks."""


def needs_markdown(text: str) -> bool:
    """Whether `text` holds Markdown beyond the marks of OWN_MARKS (the fast path's).

    A mark that spans lines, or a citation of nothing, counts as Markdown: the fast path
    would read it otherwise than the inline rules do. Text without any takes that faster,
    equal path.
    """
    if "[" in text or "`" in text:
        found = own_marks(text)
        if found is None or not all(map(_plain_mark, found)):
            return True
        # A letter stands in for each mark: no pattern below reads one across it.
        text = "x".join(_between(text, found))
    return (
        MARKUP_CHARS.search(text) is not None
        or LINE_MARKUP.match(text) is not None
        or NEW_LINE_MARKUP.search(text) is not None
        or " \n" in text  # a space that ends a line, or the text, may be a hard break
        or text.endswith(" ")
    )


def own_marks(text: str) -> list[re.Match[str]] | None:
    """The marks in `text` as `OWN_MARKS.finditer` finds them, or None if a bracket or
    backtick opens none. Only those are tried: the pattern alone would try every character.
    """
    found = []
    ticks = "`" in text
    at = _opening(text, 0, ticks)
    while at >= 0:
        mark = OWN_MARKS.match(text, at)
        if mark is None:
            return None
        found.append(mark)
        at = _opening(text, mark.end(), ticks)
    return found


def _opening(text: str, start: int, ticks: bool) -> int:
    """Where the next bracket or backtick from `start` stands; -1 where none does.
    str.find, not a regular expression: it passes over the text between far faster."""
    bracket = text.find("[", start)
    if not ticks:
        return bracket
    tick = text.find("`", start)
    return tick if bracket < 0 or 0 <= tick < bracket else bracket


def _plain_mark(found: re.Match[str]) -> bool:
    return "\n" not in found[0] and not (found["cite"] and not marks.cited(found["cite"][1:-1]))


def _between(text: str, found: list[re.Match[str]]) -> list[str]:
    """The text before, between and after the marks."""
    cuts = [0, *(i for mark in found for i in mark.span()), len(text)]
    return [text[a:b] for a, b in zip(cuts[::2], cuts[1::2], strict=True)]


@dataclass(frozen=True, slots=True)
class Rendered:
    html: Markup
    terms: frozenset[str]
    """Ids of the terms the HTML links to, whose definitions the page must carry."""

    def __reduce__(self) -> tuple[Any, tuple[str, frozenset[str]]]:
        # Workers send back thousands: as a plain str and a frozenset, pickle handles
        # them several times faster than a dataclass holding a str subclass.
        return _rendered, (str(self.html), self.terms)


def _rendered(html: str, terms: frozenset[str]) -> Rendered:
    return Rendered(Markup(html), terms)


class ProseRenderer:
    """Renders the prose fields of a linked record; one per build, reused for every page."""

    def __init__(
        self,
        record: Record,
        urls: Urls,
        matcher: NameMatcher,
        cite_label: Callable[[Entity], str],
    ):
        self.record = record
        self.urls = urls
        self.matcher = matcher
        self.cite_label = cite_label
        self.md = _markdown(self)
        self._links: dict[Key, tuple[str, str | None]] = {}
        """Per entity: the opening tag of a link to it ("" if it has no page), its term id."""
        self._cited: dict[str, str] = {}
        """Per source id: its short citation, linked."""

    def block(self, text: str, owner: Key | None = None) -> Rendered:
        """Paragraphs, lists and headings: a body."""
        env: dict[str, Any] = {"owner": owner, "terms": set()}
        if not text:
            html = ""
        elif needs_markdown(text):
            html = self.md.render(text, env)
        else:
            paragraphs = (p for p in re.split(r"\n(?:\n)+", text.strip("\n")) if p)
            html = "".join(f"<p>{self._plain(p, env)}</p>\n" for p in paragraphs)
        return Rendered(Markup(html), frozenset(env["terms"]))

    def inline(self, text: str, owner: Key | None = None) -> Rendered:
        """One line without a paragraph around it: a definition, a summary, an annotation."""
        env: dict[str, Any] = {"owner": owner, "terms": set()}
        if not text:
            html = ""
        elif needs_markdown(text):
            html = self.md.renderInline(text, env)
        else:
            html = self._plain(text, env)
        return Rendered(Markup(html), frozenset(env["terms"]))

    def _plain(self, text: str, env: dict[str, Any]) -> str:
        """Text whose only markup is marks of OWN_MARKS, rendered as markdown-it would, faster."""
        return "\n".join(self._line(line, env) for line in text.split("\n"))

    def _line(self, line: str, env: dict[str, Any]) -> str:
        if "[" not in line and "`" not in line:
            return self._text(line, env)
        parts = []
        cursor = 0
        for found in own_marks(line) or ():  # never None: needs_markdown said so
            parts.append(self._text(line[cursor : found.start()], env))
            parts.append(self._own_mark(found, env))
            cursor = found.end()
        parts.append(self._text(line[cursor:], env))
        return "".join(parts)

    def _text(self, text: str, env: dict[str, Any]) -> str:
        """Text without markup, each name in it a link."""
        parts = []
        cursor = 0
        for start, end, key in _named(text, self.matcher, env["owner"]):
            parts.append(text[cursor:start].replace('"', "&quot;"))
            parts.append(self.link_to(key, _escape(text[start:end]), env))
            cursor = end
        parts.append(text[cursor:].replace('"', "&quot;"))
        return "".join(parts)

    def _own_mark(self, found: re.Match, env: dict[str, Any]) -> str:
        if found["wiki"]:
            link = marks.wiki_links(found["wiki"])[0]
            return self.wiki({"target": link.target, "kind": link.kind, "shown": link.shown}, env)
        if found["marked"]:
            span = marks.marked_spans(found["marked"])[0]
            return f'<span class="{span.mark}">{_escape(span.text)}</span>'
        if found["code"]:
            return f"<code>{escapeHtml(_code(found['code'][1:-1]))}</code>"
        return self.citation(marks.cited(found["cite"][1:-1]))

    # Rendering the tokens the rules below produce.

    def link_to(self, key: Key, inner: str, env: dict) -> str:
        """A link to the entity; `inner` is HTML already (escaped text, usually)."""
        link = self._links.get(key)
        if link is None:
            link = self._links[key] = self._link(key)
        opening, term = link
        if not opening:
            return inner
        if term is not None:
            env["terms"].add(term)
        return f"{opening}{inner}</a>"

    def _link(self, key: Key) -> tuple[str, str | None]:
        entity = self.record.get(*key)
        url = self.urls.page_of(entity) if entity is not None else None
        if entity is None or url is None:
            return "", None
        if entity.KIND == "term":
            return f'<a class="mention term" href="{_escape(url)}">', entity.id
        return f'<a class="mention" href="{_escape(url)}">', None

    def wiki(self, meta: dict, env: dict) -> str:
        key = resolve_wiki(self.record, meta["kind"], meta["target"])
        entity = self.record.get(*key) if key else None
        if entity is None:
            return _escape(meta["shown"] or meta["target"])
        return self.link_to(entity.key, _escape(meta["shown"] or entity.title), env)

    def citation(self, items: list[tuple[str, str | None]]) -> str:
        parts = []
        for source_id, locator in items:
            cited = self._cited.get(source_id)
            if cited is None:
                cited = self._cited[source_id] = self._cite(source_id)
            parts.append(f"{cited}, {_escape(locator)}" if locator else cited)
        return f'<span class="citation">({"; ".join(parts)})</span>'

    def _cite(self, source_id: str) -> str:
        source = self.record.get("source", source_id)
        if source is None:
            return _escape(f"@{source_id}")
        href, label = _escape(self.urls.entity(source)), _escape(self.cite_label(source))
        return f'<a href="{href}">{label}</a>'


def _code(inside: str) -> str:
    """A code span's text: CommonMark takes one space off each end, if both have one."""
    if inside.startswith(" ") and inside.endswith(" ") and inside.strip(" "):
        return inside[1:-1]
    return inside


def _markdown(renderer: ProseRenderer) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.validateLink = safe_link  # type: ignore[method-assign]
    md.inline.ruler.before("link", "wikilink", _scan(marks.WIKI_LINK, "wikilink", _wiki_meta))
    md.inline.ruler.before("link", "marked", _scan(marks.MARKED_SPAN, "marked", _marked_meta))
    md.inline.ruler.before("link", "citation", _scan(marks.CITATION, "citation", _cite_meta))
    md.core.ruler.after("text_join", "mentions", lambda state: _mentions(state, renderer))
    md.core.ruler.after("block", "headings", _shift_headings)
    md.add_render_rule("wikilink", lambda r, t, i, o, env: renderer.wiki(t[i].meta, env))
    md.add_render_rule("citation", lambda r, t, i, o, env: renderer.citation(t[i].meta["items"]))
    md.add_render_rule("marked", _render_marked)
    md.add_render_rule("mention", lambda r, t, i, o, env: _render_mention(renderer, t[i], env))
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


def _wiki_meta(found: re.Match) -> dict:
    link = marks.wiki_links(found[0])[0]
    return {"target": link.target, "kind": link.kind, "shown": link.shown}


def _marked_meta(found: re.Match) -> dict:
    return {"text": found[1], "mark": found[2]}


def _cite_meta(found: re.Match) -> dict | None:
    items = marks.cited(found[1])
    return {"items": items} if items else None


def _render_marked(r: RendererHTML, tokens: list[Token], i: int, o: Any, env: Any) -> str:
    meta = tokens[i].meta
    return f'<span class="{_escape(meta["mark"])}">{_escape(meta["text"])}</span>'


def _render_mention(renderer: ProseRenderer, token: Token, env: dict) -> str:
    return renderer.link_to(token.meta["key"], _escape(token.content), env)


def _shift_headings(state: StateCore) -> None:
    """A `#` in prose is a section of the page, whose own title is the only h1."""
    for token in state.tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(6, int(token.tag[1]) + 1)}"


def _mentions(state: StateCore, renderer: ProseRenderer) -> None:
    """Split every text token outside a link around the names found in it."""
    owner = state.env.get("owner")
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        out: list[Token] = []
        depth = 0
        for token in block.children:
            if token.type == "link_open":
                depth += 1
            elif token.type == "link_close":
                depth -= 1
            if token.type == "text" and depth == 0:
                out.extend(_split(token, renderer.matcher, owner))
            else:
                out.append(token)
        block.children = out


def _split(token: Token, matcher: NameMatcher, owner: Key | None) -> list[Token]:
    pieces = _pieces(token.content, matcher, owner)
    if len(pieces) == 1 and pieces[0][1] is None:
        return [token]
    out = []
    for content, key in pieces:
        if key is None:
            out.append(_text(content))
        else:
            link = Token("mention", "", 0, content=content)
            link.meta = {"key": key}
            out.append(link)
    return out


def _pieces(text: str, matcher: NameMatcher, owner: Key | None) -> list[tuple[str, Key | None]]:
    """The text cut around the names found in it: (text, None) or (name, its entity)."""
    out: list[tuple[str, Key | None]] = []
    cursor = 0
    for start, end, key in _named(text, matcher, owner):
        if start > cursor:
            out.append((text[cursor:start], None))
        out.append((text[start:end], key))
        cursor = end
    if cursor < len(text) or not out:
        out.append((text[cursor:], None))
    return out


def _named(text: str, matcher: NameMatcher, owner: Key | None) -> list[tuple[int, int, Key]]:
    """Where the text names an entity other than `owner`, and which: (start, end, key)."""
    if not text:
        return []
    masked = marks.masked_regions(text) if marks.may_mask(text) else []
    out = []
    for mention in matcher.find(text, masked):
        key = _choice(mention.targets, owner)
        if key is not None:
            out.append((mention.start, mention.end, key))
    return out


def _choice(targets: tuple[Key, ...], owner: Key | None) -> Key | None:
    """Of the entities a name stands for, the one it links to: not the owner; the first
    kind (in the order of KINDS), then the first id."""
    if len(targets) == 1:  # as nearly every name
        return None if targets[0] == owner else targets[0]
    return min((t for t in targets if t != owner), key=_rank, default=None)


def _rank(key: Key) -> tuple[int, str]:
    return _KIND_RANK.get(key[0], 99), key[1]


def _text(content: str) -> Token:
    return Token("text", "", 0, content=content)


def paper_markdown(renderer: ProseRenderer) -> MarkdownIt:
    """The prose's Markdown, with footnotes (`[^1]`) and numbered sections: a paper's."""
    from mdit_py_plugins.footnote import footnote_plugin

    md = _markdown(renderer).use(footnote_plugin)
    md.core.ruler.after("headings", "numbered", _number_sections)
    return md


def _number_sections(state: StateCore) -> None:
    """Number each section and subsection (h2, h3: `#` and `##` in the paper) as 1, 1.1;
    each heading gets its number as its anchor, `section-1-1`."""
    counts = [0, 0]
    tokens = state.tokens
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.tag not in ("h2", "h3"):
            continue
        level = int(token.tag[1]) - 2
        counts[level] += 1
        if level == 0:
            counts[1] = 0
        number = ".".join(str(c) for c in counts[: level + 1])
        token.attrSet("id", f"section-{number.replace('.', '-')}")
        inline = tokens[index + 1]
        mark = Token("html_inline", "", 0)
        mark.content = f'<span class="section-number">{number}</span> '
        inline.children = [mark, *(inline.children or [])]
