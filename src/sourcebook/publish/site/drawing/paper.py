"""The paper as its page shows it: numbered sections, footnotes, figures embedding the
record's charts and their tables by id, and a bibliography of the sources it cites.

A figure is a line of its own: `![[chart:ID]]` draws the chart, `![[chart:ID|table]]`
sets out its data as a table. Figures and tables are numbered in the order they come.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from markupsafe import Markup

from sourcebook.incremental import READS, read_field
from sourcebook.link.markdown import FIGURE, paper_text
from sourcebook.link.mentions import PAPER
from sourcebook.model.kinds import Chart, Paper, Source
from sourcebook.publish.site.view.prose_html import paper_markdown

if TYPE_CHECKING:
    from sourcebook.publish.site.view.site_view import SiteView

_PLACED = re.compile(rf"<p>{FIGURE.pattern}</p>")


@dataclass
class Figure:
    kind: str
    """"chart" or "table"."""
    number: int
    chart: Chart


@dataclass
class RenderedPaper:
    html: Markup
    figures: list[Figure] = field(default_factory=list)
    cited: list[Source] = field(default_factory=list)
    """The sources it cites, in the bibliography's order."""


_TAG = re.compile(r"<[^>]+>")
_SECTION = re.compile(
    r'<h[23] id="(section-[\d-]+)"><span class="section-number">([\d.]+)</span> (.*?)</h[23]>'
)


def paper_of(view: SiteView, paper: Paper) -> RenderedPaper:
    """The paper rendered once per build: the page and its PDF share it."""
    key = ("paper", paper.id)
    return READS.lookup(view.once, key, render_paper, view, paper)  # type: ignore[no-any-return]


def paper_authors(view: SiteView, paper: Paper) -> list[str]:
    """Who wrote the paper: its `authors`, else the book's author."""
    people = [p for p in (view.record.get("person", i) for i in getattr(paper, "authors", [])) if p]
    return [p.title for p in people] or ([view.book.author] if view.book.author else [])


def paper_sections(rendered: RenderedPaper) -> list[tuple[str, str, str]]:
    """(number, title, anchor) of each numbered section of a rendered paper."""
    found = _SECTION.findall(str(rendered.html))
    return [(n, html.unescape(_TAG.sub("", t)), a) for a, n, t in found]


def render_paper(view: SiteView, paper: Paper) -> RenderedPaper:
    renderer = view.prose.renderer
    body = read_field(paper, "body")
    read = renderer.read(body, paper.key, "body", PAPER)
    env: dict = {"owner": paper.key, "terms": set(), "read": read}
    md = paper_markdown(renderer)
    html = md.render(paper_text(body), env)
    view.prose.mentioned(env["terms"])
    figures: list[Figure] = []
    counts = {"chart": 0, "table": 0}

    def place(found: re.Match[str]) -> str:
        chart = view.record.get("chart", found[2])
        if not isinstance(chart, Chart):
            return ""
        counts[found[1]] += 1
        figure = Figure(found[1], counts[found[1]], chart)
        figures.append(figure)
        return str(figure_html(view, figure))

    html = _PLACED.sub(place, html)
    return RenderedPaper(Markup(html), figures, cited_sources(view, paper))


def figure_html(view: SiteView, figure: Figure) -> Markup:
    """A figure as `fragments/paper_figure.html` sets it out: the chart, or its table."""
    assert view.env is not None, "the build sets the templates"
    template = view.env.get_template("fragments/paper_figure.html")
    return Markup(template.render(figure=figure, chart=figure.chart))


def cited_sources(view: SiteView, paper: Paper) -> list[Source]:
    from sourcebook.publish.site.pages.sections import bibliography_key

    cited = [s for s in view.query.used(paper, "source") if isinstance(s, Source)]
    return sorted(cited, key=lambda s: bibliography_key(view.record, s))


def bibliography_entry(view: SiteView, source: Source) -> Markup:
    """The house's citation of a source, without its annotation: who, “what,” when."""
    return Markup(view.citations._head(source))
