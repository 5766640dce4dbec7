"""What a template may ask of the record: URLs, prose, citations, backlinks, figures.

One `SiteView` serves every page of a build; it renders each piece of prose once.
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from jinja2 import Environment
from markupsafe import Markup, escape

from sourcebook.derive import Derived, Timeline, TimelinePoint
from sourcebook.library.report import QuoteReport
from sourcebook.link.backlinks import BacklinkIndex, Backlinks
from sourcebook.link.graph import Graph
from sourcebook.model.addresses import safe_link
from sourcebook.model.base import Entity, day_end
from sourcebook.model.figures import Placed
from sourcebook.model.kinds import (
    Campus,
    CampusParty,
    Chapter,
    Figure,
    Parameter,
    Party,
    Source,
    Term,
    kind_by_name,
)
from sourcebook.model.record import Record
from sourcebook.publish.site.citations import Citations, ProvenQuotes, sentence
from sourcebook.publish.site.computed import Computed
from sourcebook.publish.site.drawn import DrawnCharts
from sourcebook.publish.site.prose import ProseRenderer, Rendered
from sourcebook.publish.site.releases import Release, entity_tables
from sourcebook.publish.site.series import InSeries
from sourcebook.publish.site.urls import NavItem, Urls
from sourcebook.publish.site.wording import day, number, sentence_case
from sourcebook.read.state import state_folder

_TAG = re.compile(r"<[^>]+>")
DRAFT_MARK = Markup(' <span class="draft-mark">(draft)</span>')
EMPTY = Markup("")
CATEGORY_LABELS = {
    "company": "What the companies say",
    "press": "The press",
    "research": "Research",
    "other": "Books, essays and the rest",
}
METRIC_WORDS = {"it": "IT", "gpu": "GPU", "gpus": "GPUs", "pue": "PUE", "usd": "USD"}
STATUS_RANK = {"operating": 2, "under construction": 1}
POWER_UNITS = {"W": 1e-6, "kW": 1e-3, "MW": 1.0, "GW": 1e3}
"""Units of power, in MW, for the ledger's 'latest power'."""


class SiteView:
    def __init__(
        self,
        record: Record,
        graph: Graph,
        urls: Urls,
        nav: list[NavItem],
        derived: Derived | None = None,
        releases: Sequence[Release] = (),
    ):
        self.record = record
        self.releases = list(releases)
        """The record's data releases, newest first."""
        self.computed = Computed(derived or Derived("", [], [], [], []))
        self.drawn = DrawnCharts(record, self.computed.derived, urls)
        """The record's charts, drawn once derive has given their data."""
        self.book = record.settings.book
        self.site = record.settings.site
        self.urls = urls
        self.nav = nav
        self.citations = Citations(record)
        self.prose_renderer = ProseRenderer(record, urls, graph, self.citations.short)
        self.citations.annotation = lambda source: self.rendered(source, "annotation", True)
        self.citations.disclose = self.disclosed
        self._backlinks = BacklinkIndex(record, graph)
        self._backlinks_of: dict[tuple[str, str], Backlinks] = {}
        self._urls: dict[tuple[str, str], str] = {}
        self.references: dict[tuple[str, str], dict[str, Any]] = {}
        """Each entity as the JSON twins refer to it, made once (see `api.reference`)."""
        self._graph = graph
        self._prose: dict[tuple[tuple[str, str], str], Rendered] = {}
        self._plain: dict[tuple[tuple[str, str], str], str] = {}
        self._roles = _roles_by_party(record)
        self._page_url = ""
        self._page_terms: set[str] = set()
        self._fragments: dict[tuple[str, tuple[str, str]], Rendered] = {}
        self._used_by_html: dict[tuple[str, str], str] = {}
        self._nav: Markup | None = None
        self.once: dict[Any, Any] = {}
        """What several pages of a build share, made by the first that asks (the machine,
        the paper); made again once derive's result changes."""
        self.env: Environment | None = None
        """The templates, for fragments; set by the build once it has made them."""
        self.series = InSeries("")
        """The volume's place in its series (a house's site), set by the build."""
        self.notify: Any = None
        """The sign-up form and the policy the Consent page states, where the record has a
        sign-up service (`notify.site.SignupForm`); set by the build."""

    def use_proofs(self, proofs: QuoteReport | None) -> None:
        """What check proved of the quotes, which the sources' citations show."""
        self.citations.proofs = proofs

    def use_derived(self, derived: Derived) -> None:
        """What derive computed, for the pages that show it; no prose depends on it. The
        charts are drawn now: raises ChartRenderError for one that cannot be."""
        self.computed = Computed(derived)
        kept = state_folder(self.record.root, "charts") if self.record.of("chart") else None
        self.drawn = DrawnCharts(self.record, derived, self.urls, kept)
        self.drawn.draw()
        self.once.clear()

    # The page being rendered.

    def begin(self, url: str) -> None:
        self._page_url = url.split("#", 1)[0]
        self._page_terms = set()

    def nav_list(self, current: str) -> Markup:
        """The navigation's list, the current page marked."""
        if self._nav is None:
            items = [
                Markup('<li><a href="{}">{}</a></li>').format(item.url, item.label)
                for item in self.nav
            ]
            self._nav = Markup("<ul>\n") + Markup("\n").join(items) + Markup("\n</ul>")
        mark = f'<a href="{escape(current)}">'
        if mark not in self._nav:
            return self._nav
        return Markup(str(self._nav).replace(mark, mark[:-1] + ' aria-current="page">', 1))

    def fragments(self, name: str, entities: list[Entity]) -> Markup:
        """`fragment` for each entity, one after the other, placed on the page as one."""
        found = [self._fragment(name, e) for e in entities]
        for rendered in found:
            self._page_terms |= rendered.terms
        return self._unlinked(Markup("\n".join([f.html for f in found])))

    # URLs.

    def url(self, entity: Entity) -> str:
        """The entity's URL; '' for a kind the site has no page for (not linked, then)."""
        key = entity.key
        found = self._urls.get(key)
        if found is None:
            found = self._urls[key] = self.urls.page_of(entity) or ""
        return found

    def section(self, name: str) -> str:
        return self.urls.section(name)

    def static(self, name: str) -> str:
        return self.urls.static(name)

    def absolute(self, url: str) -> str:
        return self.urls.absolute(url)

    # Prose.

    def prose(self, entity: Entity, field: str = "body", inline: bool = False) -> Markup:
        return self._place(self.rendered(entity, field, inline))

    def rendered(self, entity: Entity, field: str, inline: bool = False) -> Rendered:
        """A prose field rendered once for the whole build."""
        key = (entity.key, field if inline else f"{field}:block")
        rendered = self._prose.get(key)
        if rendered is None:
            text = getattr(entity, field, "") or ""
            render = self.prose_renderer.inline if inline else self.prose_renderer.block
            rendered = self._prose[key] = render(text, entity.key, field)
        return rendered

    def plain(self, entity: Entity, field: str) -> str:
        """A prose field as plain text, for a meta description or a tooltip."""
        key = (entity.key, f"{field}:plain")
        cached = self._plain.get(key)
        if cached is None:
            rendered = self.rendered(entity, field, inline=True)
            cached = " ".join(html.unescape(_TAG.sub("", rendered.html)).split())
            self._plain[key] = cached
        return cached

    def fragment(self, name: str, entity: Entity) -> Markup:
        """`fragments/<name>.html` rendered for `entity`, once per build: a list's item."""
        return self._place(self._fragment(name, entity))

    def _fragment(self, name: str, entity: Entity) -> Rendered:
        key = (name, entity.key)
        cached = self._fragments.get(key)
        if cached is None:
            assert self.env is not None, "the build sets the view's templates"
            page_url, page_terms = self._page_url, self._page_terms
            self._page_url, self._page_terms = "", set()
            try:
                template = self.env.get_template(f"fragments/{name}.html")
                html = Markup(template.render(entity=entity))
                cached = self._fragments[key] = Rendered(html, frozenset(self._page_terms))
            finally:
                self._page_url, self._page_terms = page_url, page_terms
        return cached

    def citation_meta(self, source: Source) -> list[tuple[str, str]]:
        """The citation_* meta tags of a source's own page, for Zotero's connector."""
        from sourcebook.publish.site.citation_meta import citation_meta

        return citation_meta(self.record, source, self.absolute(self.urls.source_page(source)))

    def coins(self, source: Source) -> str:
        from sourcebook.publish.site.citation_meta import coins

        return coins(self.record, source)

    def source_page(self, source: Source) -> str:
        return self.urls.source_page(source)

    def cite(self, source: Source) -> Markup:
        return self._place(self.citations.full(source))

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
        does (see `warm_citations`)."""
        for name in entity.PROSE_FIELDS:
            text: object = getattr(entity, name, None)
            if name != "title" and text and not (name == "annotation" and entity.KIND == "source"):
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
        for source in sources:
            self.fragment("source", source)
        keys = [source.key for source in sources]
        return (
            {k: self._prose[k] for k in ((key, "annotation") for key in keys) if k in self._prose},
            {},
            {k: self._fragments[k] for k in (("source", key) for key in keys)},
            {key[1]: self.citations._full[key[1]] for key in keys},
        )

    def caches(self) -> tuple[dict, ...]:
        return (self._prose, self._plain, self._fragments, self.citations._full)

    def adopt(self, caches: tuple[dict, ...]) -> None:
        """Take in what another process rendered (see `warm`)."""
        for mine, theirs in zip(self.caches(), caches, strict=True):
            mine.update(theirs)

    # The record.

    def backlinks(self, entity: Entity) -> Backlinks:
        """Once per entity: its page and its JSON twin both show them."""
        found = self._backlinks_of.get(entity.key)
        if found is None:
            found = self._backlinks_of[entity.key] = self._backlinks(entity)
        return found

    def used_by_line(self, entity: Entity) -> Markup:
        """Its backlinks as a 'Used by' line: 'Chapter 1; Term <a …>Name</a>; …', chapters
        first, then items, then sources. A source category lists thousands of users, many
        of them more than once: each is escaped once."""
        return Markup("; ".join([self._user_html(user) for user in self._users_of(entity)]))

    def _users_of(self, entity: Entity) -> list[Entity]:
        links = self.backlinks(entity)
        return [*links.book, *links.record, *links.sources]

    def _user(self, user: Entity) -> tuple[str, str, str]:
        if isinstance(user, Chapter):
            return "", self.url(user), self.chapter_label(user)
        if isinstance(user, Source):
            return "", self.url(user), self.citations.short(user)
        return self.label(user), self.url(user), user.title

    def _user_html(self, user: Entity) -> str:
        found = self._used_by_html.get(user.key)
        if found is None:
            label, url, name = self._user(user)
            shown = f'<a href="{escape(url)}">{escape(name)}</a>' if url else escape(name)
            found = f"{escape(label)} {shown}" if label else shown
            self._used_by_html[user.key] = found
        return found

    def roles(self, party: Entity) -> list[tuple[Campus, CampusParty]]:
        return self._roles.get(party.id, [])

    @staticmethod
    def chapter_label(chapter: Chapter) -> str:
        """'Chapter 1'; a chapter numbered 0 (a preface) by its title."""
        return f"Chapter {chapter.number}" if chapter.number else chapter.title

    @staticmethod
    def chapter_name(chapter: Chapter) -> str:
        """'Chapter 1 — The Stakes'."""
        return f"Chapter {chapter.number} — {chapter.title}" if chapter.number else chapter.title

    @staticmethod
    def draft(entity: Entity) -> Markup:
        """The mark a draft carries wherever it is listed."""
        return DRAFT_MARK if entity.draft else EMPTY

    def label(self, entity: Entity) -> str:
        """What the entity is, as the exemplar says it: 'Campus', 'Scorecard indicator'."""
        kind = kind_by_name(entity.KIND)
        return kind.label if kind else entity.KIND

    def entity(self, kind: str, entity_id: str | None) -> Entity | None:
        return self.record.get(kind, entity_id) if entity_id else None

    def entities(self, kind: str, ids: list[str]) -> list[Entity]:
        found = (self.record.get(kind, i) for i in ids)
        return [e for e in found if e is not None]

    def same_as(self, term: Term) -> Entity | None:
        """The party, person or campus a term names, where it says so."""
        if not term.same_as or ":" not in term.same_as:
            return None
        return self.record.get(*term.same_as.split(":", 1))

    def category_label(self, category: str) -> str:
        return CATEGORY_LABELS.get(category, category.capitalize())

    def disclosure(self, party: Party) -> Markup:
        return sentence(self._place(self.disclosed(party)))

    def disclosed(self, party: Party) -> Rendered:
        """'SemiAnalysis sells …': the party's `sells`, led by its name where it is not."""
        sells = self.rendered(party, "sells", inline=True)
        if party.sells.casefold().startswith(party.title.casefold()):
            return sells
        return Rendered(Markup("{} sells: {}").format(party.title, sells.html), sells.terms)

    @staticmethod
    def safe_url(url: str) -> bool:
        return safe_link(url)

    @staticmethod
    def host(url: str) -> str:
        """The host of an address, shown as a link's text: 'www.bloomberg.com'."""
        return urlsplit(url).hostname or url

    def chapter_terms(self, chapter: Chapter) -> list[Term]:
        """Terms the chapter introduces (it is first in their `chapters`)."""
        return self._backlinks._by_first_chapter.get(chapter.id, [])

    def users(self, entity: Entity, kind: str) -> list[Entity]:
        """Entities of `kind` that refer to `entity`, in their own order, once each."""
        seen: dict[str, Entity] = {}
        for ref in self._graph.incoming(entity.key):
            if ref.source[0] == kind and ref.field != "same_as":
                user = self.record.get(*ref.source)
                if user is not None:
                    seen[user.id] = user
        return [seen[i] for i in sorted(seen)]

    def used(self, entity: Entity, kind: str) -> list[Entity]:
        """Entities of `kind` that `entity` refers to, once each, in id order."""
        found = {
            ref.target[1]
            for ref in self._graph.outgoing(entity.key)
            if ref.target[0] == kind and ref.resolved and ref.target != entity.key
        }
        entities = (self.record.get(kind, i) for i in sorted(found))
        return [e for e in entities if e is not None]

    # Figures.

    def figure(self, figure: Figure) -> str:
        """'about 1,000 MW', '$20,000,000,000', '200,000 chips (H100)'."""
        value = number(figure.value)
        if figure.unit == "USD":
            text = f"${value}"
        elif figure.unit.startswith("USD/"):
            text = f"${value} per {figure.unit[4:]}"
        else:
            text = f"{value} {figure.unit}"
        if figure.chip:
            text += f", {figure.chip}" if "(" in figure.chip else f" ({figure.chip})"
        return f"{figure.qualifier} {text}" if figure.qualifier else text

    @staticmethod
    def carried(item: Figure | Parameter) -> Markup:
        """What carries a number: the source's words, the method of an estimate, the
        author's note; escaped."""
        parts = []
        if item.quote:
            parts.append(f'<q class="figure-quote">{escape(item.quote)}</q>')
        if item.method:
            parts.append(f'<span class="figure-note">Method: {escape(item.method)}</span>')
        if item.note:
            parts.append(f'<span class="figure-note">{escape(item.note)}</span>')
        return Markup("".join(parts))

    def figure_rows(self, owner: Entity, timeline: Timeline) -> Markup:
        """A figures table's rows, a point each, escaped: a campus has dozens of cells, too
        many for a template's call and escape per cell."""
        figures = _figures_by_id(owner)
        rows = [self._figure_row(figures[p.figure], p, timeline.unit) for p in timeline.points]
        return Markup("".join(rows))

    def _figure_row(self, figure: Figure, point: TimelinePoint, unit: str) -> str:
        shown = escape(self.figure(figure))
        if point.unit != unit and point.shown_value is not None:
            as_of = escape(self.computed.shown(point.shown_value, unit))
            shown = Markup(f'{shown}<span class="as-of">{as_of}</span>')
        source = self.entity("source", point.source)
        grade = escape(point.grade)
        said = ""
        if source:
            cited = escape(self.citations.short(source))
            said = f': <a href="{escape(self.url(source))}">{cited}</a>'
        return (
            f'<tr id="figure-{escape(point.figure)}">\n'
            f'<th scope="row">{escape(day(point.as_of))}</th>\n'
            f'<td class="number" data-label="Figure">{shown}</td>\n'
            f'<td data-label="State">{escape(point.status)}</td>\n'
            f'<td data-label="Evidence"><span class="grade grade-{grade}">{grade}</span>{said}'
            f"{self.carried(figure)}\n</td>\n</tr>\n"
        )

    def latest(self, campus: Campus, what: str) -> Figure | None:
        """The campus's power ('power') or chips ('chips') as far as the record has them.

        What is running counts before what is being built, and that before what is only
        announced or projected; within each, the latest figure.
        """
        if what == "power":
            found = [f for f in campus.figures if f.unit in POWER_UNITS]
        else:
            found = [f for f in campus.figures if f.unit == "chips" or f.metric == "chips"]
        ranked = [
            (STATUS_RANK.get(f.status.value, 0), day_end(f.as_of), i, f)
            for i, f in enumerate(found)
        ]
        return max(ranked)[3] if ranked else None

    def power_mw(self, figure: Figure) -> float:
        return figure.value * POWER_UNITS.get(figure.unit, 1.0)

    @staticmethod
    def metric(name: str) -> str:
        """'it-power' → 'IT power'."""
        words = [METRIC_WORDS.get(w, w) for w in name.replace("_", "-").split("-") if w]
        return sentence_case(" ".join(words))

    @staticmethod
    def size(count: int) -> str:
        """'812 bytes', '14.2 KB', '1.5 MB' (powers of 1,000, as file managers now show)."""
        if count < 1000:
            return f"{count:,} bytes"
        for unit in ("KB", "MB", "GB"):
            count /= 1000  # type: ignore[assignment]
            if count < 1000 or unit == "GB":
                return f"{count:.1f} {unit}"
        raise AssertionError  # pragma: no cover

    def day(self, value: Any) -> str:
        return day(value)

    def release_file(self, release: Release, path: str) -> str:
        return self.urls.release_file(release.version, path)

    def in_release(self, entity: Entity) -> list[tuple[str, str, str]]:
        """(table, CSV URL, JSON URL) of each table of the latest release with `entity`'s rows."""
        if not self.releases:
            return []
        latest = self.releases[0]
        return [
            (
                name,
                self.release_file(latest, latest.tables[name]["csv"]),
                self.release_file(latest, latest.tables[name]["json"]),
            )
            for name in entity_tables(latest, entity)
        ]


def _roles_by_party(record: Record) -> dict[str, list[tuple[Campus, CampusParty]]]:
    roles: dict[str, list[tuple[Campus, CampusParty]]] = defaultdict(list)
    for campus in record.of("campus"):
        assert isinstance(campus, Campus)
        for entry in campus.parties:
            roles[entry.party].append((campus, entry))
    return roles


def _figures_by_id(owner: Entity) -> dict[str, Figure]:
    """The owner's figures by the ids the compiled record gives them (see `Placed`)."""
    figures = getattr(owner, "figures", [])
    return {Placed(owner, i, f).id: f for i, f in enumerate(figures)}


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
