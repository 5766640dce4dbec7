"""Record prose → safe HTML: Markdown without raw HTML, wiki links, citations and mentions.

Markdown is parsed by markdown-it with HTML disabled, so nothing in the record can
inject markup; links may only be http(s), mailto or site-relative. On top of
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
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markupsafe import Markup, escape

from sourcebook.link import prose as marks
from sourcebook.link.names import NameMatcher
from sourcebook.model.base import Entity
from sourcebook.model.kinds import KINDS
from sourcebook.model.record import Record
from sourcebook.publish.site.urls import Urls

Key = tuple[str, str]
SAFE_SCHEMES = {"http", "https", "mailto"}
_SCHEME = re.compile(r"^\s*([a-z][a-z0-9+.\-]*):", re.I)
_KIND_RANK = {k.name: i for i, k in enumerate(KINDS)}
MARKDOWN = re.compile(r"[][*_`<>&\\~#|\r\0\t]|(?:^|\n)(?:[ \-+=]|\d{1,9}[.)](?: |\n|$))| (?:\n|$)")
"""Anything Markdown might read as markup: text without it takes a faster, equal path."""
OWN_MARKS = re.compile(
    rf"(?P<wiki>{marks.WIKI_LINK.pattern})|(?P<marked>{marks.MARKED_SPAN.pattern})"
    rf"|(?P<cite>{marks.CITATION.pattern})"
)
"""Wiki links, marked spans and citations, tried in the order the inline rules try them."""


MASKABLE = re.compile(r"`|://|www\.|\]\(|\[", re.I)
"""What every region masked from mentions (code, URLs, wiki links, citations) contains."""


_SCAN = re.compile(rf"(?P<own>{OWN_MARKS.pattern})|{MARKDOWN.pattern}")


def needs_markdown(text: str) -> bool:
    """Whether `text` holds Markdown beyond our own marks (which the fast path renders).

    A mark that spans lines, or a citation of nothing, counts as Markdown: the fast path
    would read it otherwise than the inline rules do.
    """
    for found in _SCAN.finditer(text):
        if found["own"] is None or "\n" in found[0]:
            return True
        if found["cite"] and not marks.citations(found["cite"]):
            return True
    return False


def safe_link(url: str) -> bool:
    """Only http(s), mailto and scheme-less (site-relative) links reach a page."""
    found = _SCHEME.match(url)
    return found is None or found[1].lower() in SAFE_SCHEMES


@dataclass(frozen=True, slots=True)
class Rendered:
    html: Markup
    terms: frozenset[str]
    """Ids of the terms the HTML links to, whose definitions the page must carry."""


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
        """Text whose only markup is our own, rendered as markdown-it would, faster."""
        lines = []
        for line in text.split("\n"):
            parts: list[str] = []
            cursor = 0
            for found in OWN_MARKS.finditer(line):
                parts += self._text(line[cursor : found.start()], env)
                parts.append(self._own_mark(found, env))
                cursor = found.end()
            parts += self._text(line[cursor:], env)
            lines.append("".join(parts))
        return "\n".join(lines)

    def _text(self, text: str, env: dict[str, Any]) -> list[str]:
        out = []
        for content, key in _pieces(text, self.matcher, env["owner"]):
            if key is None:
                out.append(content.replace('"', "&quot;"))
            else:
                out.append(self.link_to(key, escape(content), env))
        return out

    def _own_mark(self, found: re.Match, env: dict[str, Any]) -> str:
        if found["wiki"]:
            link = marks.wiki_links(found["wiki"])[0]
            return self.wiki({"target": link.target, "kind": link.kind, "shown": link.shown}, env)
        if found["marked"]:
            span = marks.marked_spans(found["marked"])[0]
            return Markup(f'<span class="{span.mark}">{escape(span.text)}</span>')
        items = [(c.source, c.locator) for c in marks.citations(found["cite"])]
        return self.citation(items)

    # Rendering the tokens the rules below produce.

    def link_to(self, key: Key, inner: Markup, env: dict) -> Markup:
        """A link to the entity; `inner` is HTML already (escaped text, usually)."""
        entity = self.record.get(*key)
        url = self.urls.page_of(entity) if entity is not None else None
        if entity is None or url is None:
            return inner
        href = escape(url)
        if entity.KIND == "term":
            env["terms"].add(entity.id)
            return Markup(f'<a class="mention term" href="{href}">{inner}</a>')
        return Markup(f'<a class="mention" href="{href}">{inner}</a>')

    def wiki(self, meta: dict, env: dict) -> Markup:
        key = _resolve(self.record, meta["kind"], meta["target"])
        entity = self.record.get(*key) if key else None
        if entity is None:
            return escape(meta["shown"] or meta["target"])
        return self.link_to(entity.key, escape(meta["shown"] or entity.title), env)

    def citation(self, items: list[tuple[str, str | None]]) -> Markup:
        parts = []
        for source_id, locator in items:
            source = self.record.get("source", source_id)
            if source is None:
                parts.append(str(escape(f"@{source_id}")))
                continue
            href, label = escape(self.urls.entity(source)), escape(self.cite_label(source))
            part = f'<a href="{href}">{label}</a>'
            parts.append(f"{part}, {escape(locator)}" if locator else part)
        return Markup(f'<span class="citation">({"; ".join(parts)})</span>')


def _resolve(record: Record, kind: str | None, target: str) -> Key | None:
    if kind:
        return (kind, target)
    for each in KINDS:
        if record.get(each.name, target) is not None:
            return (each.name, target)
    return None


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
    items = [(c.source, c.locator) for c in marks.citations(found[0])]
    return {"items": items} if items else None


def _render_marked(r: RendererHTML, tokens: list[Token], i: int, o: Any, env: Any) -> str:
    meta = tokens[i].meta
    return Markup('<span class="{}">{}</span>').format(meta["mark"], meta["text"])


def _render_mention(renderer: ProseRenderer, token: Token, env: dict) -> str:
    return renderer.link_to(token.meta["key"], escape(token.content), env)


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
    if not text:
        return [(text, None)]
    masked = marks.masked_regions(text) if MASKABLE.search(text) else []
    found = matcher.find(text, masked)
    out: list[tuple[str, Key | None]] = []
    cursor = 0
    for mention in found:
        targets = [t for t in mention.targets if t != owner]
        if not targets:
            continue
        if mention.start > cursor:
            out.append((text[cursor : mention.start], None))
        key = min(targets, key=lambda t: (_KIND_RANK.get(t[0], 99), t[1]))
        out.append((text[mention.start : mention.end], key))
        cursor = mention.end
    if cursor < len(text) or not out:
        out.append((text[cursor:], None))
    return out


def _text(content: str) -> Token:
    return Token("text", "", 0, content=content)
