"""The record's prose as pages show it, for templates as `prose`: each field, citation and
list item rendered once per build and placed on every page that shows it.

Placing a piece notes the glossary terms it mentions, for the page, and undoes its links
to the page itself. What is rendered once can be rendered by worker processes and brought
back (`warm`, `warm_citations`, `caches`, `adopt`; see `render.ProseWorkers`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from jinja2 import Environment
from markupsafe import Markup

from sourcebook.incremental import READS, SharedMemo, read_field
from sourcebook.link.graph import Graph
from sourcebook.model.base import Entity
from sourcebook.model.kinds import Chapter, Party, Source, Term
from sourcebook.model.record import Record
from sourcebook.publish.site.pages.urls import Urls
from sourcebook.publish.site.view.citations import (
    Citations,
    ProvenQuotes,
    marked,
    proven_in,
    sentence,
)
from sourcebook.publish.site.view.prose_html import ProseRenderer, Rendered

_TAG = re.compile(r"<[^>]+>")
CITED = ("annotation", "read")
"""A source's prose fields that only its citation shows."""


class PageProse:
    def __init__(self, record: Record, graph: Graph, urls: Urls, citations: Citations):
        self.record = record
        self.citations = citations
        self.renderer = ProseRenderer(record, urls, graph, citations.short)
        citations.prose = lambda source, field: self.rendered(source, field, True)
        citations.disclose = self.disclosed
        self.env: Environment | None = None
        """The templates, for `fragment`; set by the build once it has made them."""
        self._prose = SharedMemo()
        self._plain = SharedMemo()
        self._fragments = SharedMemo()
        self.shared: tuple[SharedMemo, ...] = (
            self._prose,
            self._plain,
            self._fragments,
            *self.renderer.shared,
        )
        """What it makes that pages share, for the next build to take what is unchanged."""
        self._page_url = ""
        self._page_terms: set[str] = set()

    # The page being rendered.

    def begin(self, url: str) -> None:
        """A new page, at `url`: nothing of it placed yet."""
        self._page_url = url.split("#", 1)[0]
        self._page_terms = set()

    def mentioned(self, terms: set[str] | frozenset[str]) -> None:
        """Note terms that prose placed on the page otherwise mentions (the paper's)."""
        self._page_terms |= terms

    # What templates place on it.

    def html(self, entity: Entity, field: str = "body", inline: bool = False) -> Markup:
        """A prose field as HTML: a block (paragraphs, lists) or `inline` (a line's worth),
        each quote in it marked with its proof, as a source's citation marks its own."""
        return self._proved(entity, field, self._place(self.rendered(entity, field, inline)))

    def _proved(self, entity: Entity, field: str, html: Markup) -> Markup:
        """Quotes marked where they are placed, not where rendered: prose is rendered
        while check still proves them (`warm`)."""
        report = self.citations.proofs
        if report is None or "“" not in html:
            return html
        proven = proven_in(report, entity, field)
        if not proven:
            return html
        for proof in report.for_owner(entity.key):  # what the marks read: each copy
            cited = proof.claim.source
            source = self.record.get("source", cited) if cited else None
            if isinstance(source, Source):
                for shelf in read_field(source, "library"):
                    self.citations.library.get(shelf)
        return marked(html, proven)

    def plain(self, entity: Entity, field: str) -> str:
        """A prose field as plain text, for a meta description or a tooltip."""
        return READS.lookup(
            self._plain, (entity.key, f"{field}:plain"), self._plain_of, entity, field
        )

    def _plain_of(self, entity: Entity, field: str) -> str:
        rendered = self.rendered(entity, field, inline=True)
        return " ".join(html.unescape(_TAG.sub("", rendered.html)).split())

    def fragment(self, name: str, entity: Entity) -> Markup:
        """`fragments/<name>.html` rendered for `entity`, once per build: a list's item."""
        return self._place(self._fragment(name, entity))

    def fragments(self, name: str, entities: list[Entity]) -> Markup:
        """`fragment` for each entity, one after the other, placed on the page as one."""
        found = [self._fragment(name, e) for e in entities]
        for rendered in found:
            self._page_terms |= rendered.terms
        return self._unlinked(Markup("\n".join([f.html for f in found])))

    def cite(self, source: Source) -> Markup:
        """The source's citation in full, in the house style (see `citations.py`)."""
        return self._place(self.citations.full(source))

    def disclosure(self, party: Party) -> Markup:
        """What the party sells, as a sentence (see `disclosed`)."""
        return sentence(self._place(self.disclosed(party)))

    # Rendering, once per build.

    def rendered(self, entity: Entity, field: str, inline: bool = False) -> Rendered:
        """A prose field rendered once for the whole build."""
        key = (entity.key, field if inline else f"{field}:block")
        return READS.lookup(self._prose, key, self._render, entity, field, inline)

    def _render(self, entity: Entity, field: str, inline: bool) -> Rendered:
        # a field of the record's, whatever name a template asks for
        value = read_field(entity, field) if field in type(entity).model_fields else ""
        text = value if isinstance(value, str) else ""
        render = self.renderer.inline if inline else self.renderer.block
        return render(text, entity.key, field)

    def disclosed(self, party: Party) -> Rendered:
        """'SemiAnalysis sells …': the party's `sells`, led by its name where it is not. Its
        own page and the citation of every source it publishes say it alike."""
        sells = self.rendered(party, "sells", inline=True)
        title = read_field(party, "title")
        if read_field(party, "sells").casefold().startswith(title.casefold()):
            return sells
        what = Markup(_lower_first(str(sells.html)))
        return Rendered(Markup("{} sells {}").format(title, what), sells.terms)

    def _fragment(self, name: str, entity: Entity) -> Rendered:
        return READS.lookup(self._fragments, (name, entity.key), self._make_fragment, name, entity)

    def _make_fragment(self, name: str, entity: Entity) -> Rendered:
        assert self.env is not None, "the build sets the templates"
        page_url, page_terms = self._page_url, self._page_terms
        self._page_url, self._page_terms = "", set()
        try:
            template = self.env.get_template(f"fragments/{name}.html")
            html = Markup(template.render(entity=entity))
            return Rendered(html, frozenset(self._page_terms))
        finally:
            self._page_url, self._page_terms = page_url, page_terms

    def _place(self, rendered: Rendered) -> Markup:
        """Prose as it stands on this page: its terms noted, links to the page itself undone."""
        self._page_terms |= rendered.terms
        return self._unlinked(rendered.html)

    def _unlinked(self, text: Markup) -> Markup:
        """Links to the page itself undone."""
        if self._page_url and f'href="{self._page_url}"' in text:
            return Markup(unlink(str(text), self._page_url))
        return text

    # Work done once per build, which worker processes can share out.

    def warm(self, entity: Entity) -> None:
        """Render what any page may show of `entity`: its prose and list items.

        Not a source's citation, nor the annotation only its citation shows: the citation
        shows the proof of its quotes, which check makes, and this may run while check
        does (see `warm_citations`). Nothing of an entity whose prose says a computed
        value before derive has computed it."""
        if self._waits(entity):
            return
        for name in entity.PROSE_FIELDS:
            text: object = getattr(entity, name, None)
            if name != "title" and text and not (entity.KIND == "source" and name in CITED):
                self.rendered(entity, name, inline=name != "body")
        if isinstance(entity, Term):
            self.plain(entity, "definition")
        if isinstance(entity, Chapter):
            self.fragment("chapter", entity)
        elif not isinstance(entity, Source):
            self.fragment("item", entity)  # "where the record uses it"
        if isinstance(entity, Term):
            self.fragment("link", entity)  # "related terms"

    def warm_citations(
        self, sources: Sequence[Source], proven: dict[str, ProvenQuotes]
    ) -> tuple[dict, ...]:
        """Render each source's full citation and list item, given what check proved of
        its quotes; return them as `caches` would, and nothing else."""
        self.citations.proven.update(proven)
        sources = [source for source in sources if not self._waits(source)]
        for source in sources:
            self.fragment("source", source)
        keys = [source.key for source in sources]
        return (
            self._prose.subset((key, field) for key in keys for field in CITED),
            SharedMemo(),
            self._fragments.subset(("source", key) for key in keys),
            self.citations._full.subset(key[1] for key in keys),
        )

    def _waits(self, entity: Entity) -> bool:
        """Whether some prose of `entity` says a computed value derive has not given yet."""
        return any(self.renderer.waits(text) for _name, text in entity.prose())

    def caches(self) -> tuple[SharedMemo, ...]:
        return (self._prose, self._plain, self._fragments, self.citations._full)

    def adopt(self, caches: tuple[SharedMemo, ...]) -> None:
        """Take in what another process rendered (see `warm`), with what it read."""
        for mine, theirs in zip(self.caches(), caches, strict=True):
            mine.take(theirs)


def unlink(html: str, url: str) -> str:
    """The HTML with its mentions of `url` (the page itself) as text, not links.

    Mentions are made by the prose renderer as `<a class="mention…" href="URL">text</a>`
    with no markup inside, so a plain search finds each one and its end.
    """
    spans = []
    for opening in (f'<a class="mention term" href="{url}">', f'<a class="mention" href="{url}">'):
        start = html.find(opening)
        while start != -1:
            end = html.find("</a>", start)
            spans.append((start, end, html[start + len(opening) : end]))
            start = html.find(opening, end)
    parts = []
    cursor = 0
    for start, end, inner in sorted(spans):
        parts += [html[cursor:start], f'<span class="self">{inner}</span>']
        cursor = end + len("</a>")
    parts.append(html[cursor:])
    return "".join(parts)


def _lower_first(html: str) -> str:
    """The text with its first word in lower case where it is a common word set at the
    start of a sentence ("Subscriptions, …"), so that it follows "X sells"; a name (linked,
    or with a capital or digit past its first letter: "GPUs", "A100s") keeps its case."""
    word = html.split(" ", 1)[0]
    if word[:1].isupper() and word[1:].rstrip(",.;:").isalpha() and word[1:].islower():
        return html[:1].lower() + html[1:]
    return html
