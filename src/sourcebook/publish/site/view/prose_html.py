"""Record prose → safe HTML: Markdown without raw HTML, wiki links, citations and mentions.

Markdown is parsed by markdown-it with HTML disabled, so nothing in the record can
inject markup; links may only be http(s), mailto or site-relative (`safe_link`). On top of
CommonMark: `[[id]]`, `[[kind:id]]` and `[[id|text]]` link to the entity;
`![[kind:id|what]]` says a value derive computed of it (`embed`); `[@id, p. 81]` links to
the source; a span written `[“…”]{.scare}` or `{.title}`
shows its quoted text; and every name of a term, campus, party or person that link found
in the text (`link.mentions`: outside links and code) links to its page. A term's link
carries no definition: the page lists the definitions of the terms it mentions once, for
the hover script.

How a text reads (plain, or Markdown) and where its names stand is link's: a prose field
of the record renders as link read it, its names split out of the text where link found
them; a text link did not read (or not in that reading) is read by link's code as it
renders, which finds the same names.
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
from markdown_it.token import Token
from markupsafe import Markup, escape

from sourcebook.incremental import READS, SharedMemo, Table
from sourcebook.link import markdown as reading
from sourcebook.link import mentions
from sourcebook.link import prose as marks
from sourcebook.link.graph import Graph, build_matcher, resolve_wiki
from sourcebook.link.markdown import own_marks
from sourcebook.link.mentions import Read
from sourcebook.link.names import NameMatcher
from sourcebook.model.addresses import safe_link
from sourcebook.model.base import Entity
from sourcebook.model.record import Record
from sourcebook.publish.site.pages.urls import Urls

Key = tuple[str, str]


def _escape(text: str) -> str:
    """markupsafe's escape, as a plain str: what Python writes into the HTML is escaped as
    the templates escape what they write."""
    return str(escape(text))


_PARAGRAPH = re.compile(r"[^\n]+(?:\n[^\n]+)*")
"""A paragraph of a plain text: lines with no empty line between."""
_UNREAD = ("", "")

__all__ = ["ProseRenderer", "Rendered", "Said", "paper_markdown", "safe_link"]


@dataclass(frozen=True, slots=True)
class Said:
    """A computed value as prose says it: its words, and where it is computed."""

    text: str
    url: str | None


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
        graph: Graph,
        cite_label: Callable[[Entity], str],
    ):
        self.record = record
        self.urls = urls
        self.graph = graph
        self.cite_label = cite_label
        self.md = _markdown(self)
        self.embedded: Callable[[Entity, str | None], Said | None] | None = None
        """What prose says of a value derive computed (`embedded.Embedded.said`), once it
        has; before, no text with an embed is rendered (see `waits`)."""
        self._matcher = graph.matcher
        # What prose reads of the record besides its own text, through the engine's
        # tables, each compared from build to build by the entities and links (the site's
        # `Snapshot`): the names, what link found in a field, where a page is, and what a
        # wiki link leads to.
        self._names: Table[tuple[()], NameMatcher] = Table(("names",), make=self._all_names)
        self._found: Table[tuple[str, str, str], Read | None] = Table(
            ("read",), make=lambda found: graph.read_of((found[0], found[1]), found[2])
        )
        self._pages: Table[Key, tuple[str, str | None]] = Table(("url",), make=self._link)
        self._wiki: Table[tuple[str | None, str], Key | None] = Table(
            ("wiki",), make=self._resolved
        )
        self._links = SharedMemo()
        """Per entity: the opening tag of a link to it ("" if it has no page), its term id."""
        self._cited = SharedMemo()
        self.shared: tuple[SharedMemo, ...] = (self._links, self._cited)
        """What it makes that pages share, for the next build to take what is unchanged."""
        """Per source id: its short citation, linked."""

    @property
    def matcher(self) -> NameMatcher:
        """The record's names, for a text that link did not read."""
        return self._names[()]

    def _all_names(self, _: tuple[()]) -> NameMatcher:
        if self._matcher is None:
            self._matcher = build_matcher(self.record)
        return self._matcher

    def block(self, text: str, owner: Key | None = None, field: str | None = None) -> Rendered:
        """Paragraphs, lists and headings: a body. `field` names the prose field of
        `owner` that `text` is, whose names link found."""
        read = self.read(text, owner, field, mentions.BLOCK)
        env: dict[str, Any] = {"owner": owner, "terms": set(), "read": read}
        if not text:
            html = ""
        elif read is None or read.reading != mentions.PLAIN:
            html = self.md.render(text, env)
        else:
            spans = _Spans(read)
            html = "".join(
                f"<p>{self._plain(found[0], found.start(), spans, env)}</p>\n"
                for found in _PARAGRAPH.finditer(text)
            )
        return Rendered(Markup(html), frozenset(env["terms"]))

    def inline(self, text: str, owner: Key | None = None, field: str | None = None) -> Rendered:
        """One line without a paragraph around it: a definition, a summary, an annotation."""
        read = self.read(text, owner, field, mentions.INLINE)
        env: dict[str, Any] = {"owner": owner, "terms": set(), "read": read}
        if not text:
            html = ""
        elif read is None or read.reading != mentions.PLAIN:
            html = self.md.renderInline(text, env)
        else:
            html = self._plain(text, 0, _Spans(read), env)
        return Rendered(Markup(html), frozenset(env["terms"]))

    def read(self, text: str, owner: Key | None, field: str | None, how: str) -> Read | None:
        """How link read `text`, field `field` of `owner`, and the names it found there.
        For a text link did not read as `how` (BLOCK, INLINE or PAPER), link's reading of
        it now where it reads as plain text; else None, and link's code finds its names
        in the tokens the site parses (see `_mentions`)."""
        if owner is not None and field is not None:
            read = self._found[(*owner, field)]
            if read is not None and (
                read.reading == how or (read.reading == mentions.PLAIN and how != mentions.PAPER)
            ):
                return read
        if how == mentions.PAPER:
            return None
        return mentions.read_plain(text, self.matcher, owner)

    def _plain(self, text: str, offset: int, spans: _Spans, env: dict[str, Any]) -> str:
        """Text whose only markup is marks of OWN_MARKS, rendered as markdown-it would,
        faster; `offset` is where it stands in the text link read."""
        lines = []
        for line in text.split("\n"):
            lines.append(self._line(line, offset, spans, env))
            offset += len(line) + 1
        return "\n".join(lines)

    def _line(self, line: str, offset: int, spans: _Spans, env: dict[str, Any]) -> str:
        if "[" not in line and "`" not in line:
            return self._text(line, offset, spans, env)
        parts = []
        cursor = 0
        for found in own_marks(line) or ():  # never None: link read the text as plain
            parts.append(self._text(line[cursor : found.start()], offset + cursor, spans, env))
            if found["cite"] and found.start() and line[found.start() - 1] not in GLUE:
                parts.append(" ")
            parts.append(self._own_mark(found, env))
            cursor = found.end()
        parts.append(self._text(line[cursor:], offset + cursor, spans, env))
        return "".join(parts)

    def _text(self, text: str, offset: int, spans: _Spans, env: dict[str, Any]) -> str:
        """Text without markup, each name link found in it a link."""
        parts = []
        cursor = 0
        for start, end, key in spans.within(offset, offset + len(text)):
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
        link = READS.lookup(self._links, key, self._pages.__getitem__, key)
        opening, term = link
        if not opening:
            return inner
        if term is not None:
            env["terms"].add(term)
        return f"{opening}{inner}</a>"

    def _link(self, key: Key) -> tuple[str, str | None]:
        """All a link reads of what it leads to: where its page is (the entity itself is
        not noted as read: its title and fields are not shown)."""
        entity = Record.get(self.record, *key)
        url = self.urls.page_of(entity) if entity is not None else None
        if entity is None or url is None:
            return "", None
        if entity.KIND == "term":
            return f'<a class="mention term" href="{_escape(url)}">', entity.id
        return f'<a class="mention" href="{_escape(url)}">', None

    def wiki(self, meta: dict, env: dict) -> str:
        entity = self._named(meta["kind"], meta["target"])
        if entity is None:
            return _escape(meta["shown"] or meta["target"])
        return self.link_to(entity.key, _escape(meta["shown"] or entity.title), env)

    def _named(self, kind: str | None, target: str) -> Entity | None:
        """The entity a wiki link or an embed names, as link resolved it."""
        key = self._wiki[(kind, target)]
        return self.record.get(*key) if key else None

    def _resolved(self, link: tuple[str | None, str]) -> Key | None:
        key = self.graph.wiki.get(link, _UNREAD)
        if key == _UNREAD:  # a wiki link link did not read
            kind, target = link
            key = resolve_wiki(self.record, kind, target)
        return key  # type: ignore[return-value]

    def waits(self, text: str) -> bool:
        """Whether `text` says a computed value that derive has not given yet."""
        return self.embedded is None and "![[" in text

    def embed(self, meta: dict, env: dict) -> str:
        """A computed value (`![[kind:id|what]]`), worded as every page words it and
        linked to where it is computed; a link to the entity where nothing of it is."""
        entity = self._named(meta["kind"], meta["target"])
        if entity is None:
            return _escape(meta["target"])
        if self.embedded is None:
            raise RuntimeError("a computed value was rendered before derive computed it")
        said = self.embedded(entity, meta["what"])
        if said is None:
            return self.link_to(entity.key, _escape(entity.title), env)
        if said.url is None:
            return f'<span class="computed">{_escape(said.text)}</span>'
        return f'<a class="computed" href="{_escape(said.url)}">{_escape(said.text)}</a>'

    def citation(self, items: list[tuple[str, str | None]]) -> str:
        parts = []
        for source_id, locator in items:
            cited = READS.lookup(self._cited, source_id, self._cite, source_id)
            parts.append(f"{cited}, {_escape(locator)}" if locator else cited)
        return f'<span class="citation">({"; ".join(parts)})</span>'

    def _cite(self, source_id: str) -> str:
        source = self.record.get("source", self.record.cited(source_id))
        if source is None and ("source", source_id) in self.record.withheld:
            return '<span class="withheld">a source of a later day</span>'
        if source is None:
            return _escape(f"@{source_id}")
        href, label = _escape(self.urls.entity(source)), _escape(self.cite_label(source))
        return f'<a href="{href}">{label}</a>'


def _code(inside: str) -> str:
    """A code span's text: CommonMark takes one space off each end, if both have one."""
    if inside.startswith(" ") and inside.endswith(" ") and inside.strip(" "):
        return inside[1:-1]
    return inside


def _markdown(renderer: ProseRenderer, paper: bool = False) -> MarkdownIt:
    md = reading.parser(paper)
    md.core.ruler.after("text_join", "mentions", lambda state: _mentions(state, renderer))
    md.core.ruler.after("block", "headings", _shift_headings)
    md.add_render_rule("embed", lambda r, t, i, o, env: renderer.embed(t[i].meta, env))
    md.add_render_rule("wikilink", lambda r, t, i, o, env: renderer.wiki(t[i].meta, env))
    md.add_render_rule("citation", lambda r, t, i, o, env: _cited(renderer, t, i))
    md.add_render_rule("marked", _render_marked)
    md.add_render_rule("mention", lambda r, t, i, o, env: _render_mention(renderer, t[i], env))
    return md


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
    """Split the text tokens outside links (`link.markdown.text_runs`) around the names
    link found in them."""
    read = state.env.get("read")
    if read is None:  # a text link did not read so: its names found in these tokens
        read = mentions.read_tokens(state.tokens, renderer.matcher, state.env.get("owner"))
    if not read.keys:
        return
    named: dict[int, list[tuple[int, int, Key]]] = {}
    spans = read.spans
    for i, key in enumerate(read.keys):
        named.setdefault(spans[3 * i], []).append((spans[3 * i + 1], spans[3 * i + 2], key))
    split: dict[int, tuple[Token, list[tuple[int, list[Token]]]]] = {}
    for run, (block, index) in enumerate(reading.text_runs(state.tokens)):
        found = named.get(run)
        if found is not None:
            pieces = _split(block.children[index].content, found)  # type: ignore[index]
            split.setdefault(id(block), (block, []))[1].append((index, pieces))
    for block, changes in split.values():
        children = list(block.children or ())
        for index, pieces in reversed(changes):
            children[index : index + 1] = pieces
        block.children = children


def _split(text: str, found: list[tuple[int, int, Key]]) -> list[Token]:
    """The text cut around the names in it: text tokens, and a mention token for each."""
    out = []
    cursor = 0
    for start, end, key in found:
        if start > cursor:
            out.append(_text(text[cursor:start]))
        link = Token("mention", "", 0, content=text[start:end])
        link.meta = {"key": key}
        out.append(link)
        cursor = end
    if cursor < len(text):
        out.append(_text(text[cursor:]))
    return out


class _Spans:
    """The names link found in a plain text, taken in order as the text is rendered."""

    def __init__(self, read: Read):
        spans = read.spans
        self.found = [(spans[2 * i], spans[2 * i + 1], key) for i, key in enumerate(read.keys)]
        self.next = 0

    def within(self, start: int, end: int) -> list[tuple[int, int, Key]]:
        """The names in text[start:end], as offsets from `start`; the text is rendered
        in order, and no name stands across two of its pieces."""
        out = []
        found = self.found
        while self.next < len(found) and found[self.next][0] < end:
            at, to, key = found[self.next]
            out.append((at - start, to - start, key))
            self.next += 1
        return out


def _text(content: str) -> Token:
    return Token("text", "", 0, content=content)


def paper_markdown(renderer: ProseRenderer) -> MarkdownIt:
    """The prose's Markdown, with footnotes (`[^1]`) and numbered sections: a paper's."""
    md = _markdown(renderer, paper=True)
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


GLUE = " \t(["
"""What a citation may follow with no space: a word or a closing quote gets one, so that
`bet”[@x]` reads "bet” (Geo News, …)", never "bet”(Geo News"."""


def _cited(renderer: Any, tokens: list[Any], at: int) -> str:
    """A citation's HTML, a space before it where it follows a word or a quote."""
    return (" " if _glued(tokens, at) else "") + renderer.citation(tokens[at].meta["items"])


def _glued(tokens: list[Any], at: int) -> bool:
    """Whether the citation at `at` follows text with no space between."""
    if at == 0:
        return False
    before = tokens[at - 1]
    if before.type in ("softbreak", "hardbreak"):
        return False
    return before.type != "text" or bool(before.content) and before.content[-1] not in GLUE
