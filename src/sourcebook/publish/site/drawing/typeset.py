"""The paper as a PDF, typeset by Typst from the same HTML its page shows.

The page's HTML is walked and written as Typst markup: sections, emphasis, links (made
absolute, back to the site), lists, quotes, footnotes, the charts as vector graphics and
their tables. Every piece of text is escaped for Typst, so nothing in the record is read
as Typst code. The same record gives the same bytes: the document's date is the paper's,
Typst's clock is set to it, and only the fonts Typst brings are used.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from lxml import html as lxml_html

from sourcebook.children import bounded_run, last_line
from sourcebook.model.base import day_start
from sourcebook.model.kinds import Paper
from sourcebook.publish.claimed import scratch
from sourcebook.publish.site.drawing.paper import bibliography_entry, paper_authors, paper_of
from sourcebook.publish.site.pages.render import RenderError
from sourcebook.publish.site.view.wording import day as day_words

if TYPE_CHECKING:
    from sourcebook.publish.site.view.site_view import SiteView

_SPECIAL = re.compile(r"([\\#$*_`<>@\[\]=\-+/~\"'])")
_SPACE = re.compile(r"\s+")


def text(value: str) -> str:
    """Plain text as Typst markup: every character Typst could read as markup escaped."""
    return _SPECIAL.sub(r"\\\1", _SPACE.sub(" ", value))


def _after_call(markup: str) -> str:
    """Text right after an embedded call (`#link(…)[…]`): a `;` there would end the call
    and be lost, a `(` or `.` carry it on, so the first is escaped."""
    return "\\" + markup if markup[:1] in (";", "(", ".") else markup


def string(value: str) -> str:
    """A Typst string literal."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Typst:
    """One paper's HTML → Typst markup; the charts it draws as files beside it, each named
    by its place among them (the HTML is a template's, and chooses no file's name)."""

    def __init__(self, view: SiteView, page_url: str):
        self.view = view
        self.page_url = page_url
        self.images: dict[str, str] = {}
        self.footnotes: dict[str, Any] = {}

    def link(self, href: str) -> str:
        if href.startswith("#"):
            href = self.page_url + href
        return self.view.links.absolute(href) if href.startswith("/") else href

    def body(self, html: str) -> str:
        root = lxml_html.fragment_fromstring(html, create_parent="div")
        for note in root.xpath('.//li[contains(@class, "footnote-item")]'):
            self.footnotes[note.get("id", "")] = note
        for section in root.xpath('.//section[contains(@class, "footnotes")]'):
            section.getparent().remove(section)
        for separator in root.xpath('.//hr[contains(@class, "footnotes-sep")]'):
            separator.getparent().remove(separator)
        return self.blocks(root)

    def blocks(self, element: Any) -> str:
        out = []
        if element.text and element.text.strip():
            out.append(text(element.text))
        for child in element:
            out.append(self.block(child))
            if child.tail and child.tail.strip():
                out.append(text(child.tail))
        return "\n\n".join(o for o in out if o)

    def block(self, el: Any) -> str:
        tag = el.tag
        if tag in ("h2", "h3", "h4"):
            level = {"h2": 1, "h3": 2, "h4": 3}[tag]
            for number in el.xpath('.//span[@class="section-number"]'):
                number.drop_tree()
            return f"{'=' * level} {self.inline(el).strip()}"
        if tag == "p":
            return self.inline(el).strip()
        if tag in ("ul", "ol"):
            mark = "-" if tag == "ul" else "+"
            items = [f"{mark} {self.blocks(li).replace(chr(10), chr(10) + '  ')}" for li in el]
            return "\n".join(items)
        if tag == "blockquote":
            return f"#quote(block: true)[{self.blocks(el)}]"
        if tag == "figure":
            return self.figure(el)
        if tag == "div" and "paper-table" in (el.get("class") or ""):
            return self.table(el)
        if tag == "pre":
            return f"#raw(block: true, {string(el.text_content())})"
        if tag == "hr":
            return "#line(length: 100%)"
        return self.blocks(el)

    def inline(self, el: Any) -> str:
        out = [text(el.text or "")]
        for child in el:
            out.append(self.span(child))
            out.append(_after_call(text(child.tail or "")))
        return "".join(out)

    def span(self, el: Any) -> str:
        tag, cls = el.tag, el.get("class") or ""
        if tag in ("em", "i"):
            return f"#emph[{self.inline(el)}]"
        if tag in ("strong", "b"):
            return f"#strong[{self.inline(el)}]"
        if tag == "code":
            return f"#raw({string(el.text_content())})"
        if tag == "br":
            return " \\ "
        if tag == "sup" and "footnote-ref" in cls:
            anchor = el.find("a")
            target = (anchor.get("href") or "").lstrip("#") if anchor is not None else ""
            note = self.footnotes.get(target)
            if note is None:
                return ""
            for back in note.xpath('.//a[contains(@class, "footnote-backref")]'):
                back.drop_tree()
            return f"#footnote[{self.blocks(note).strip()}]"
        if tag == "a" and el.get("href"):
            return f"#link({string(self.link(el.get('href')))})[{self.inline(el)}]"
        return self.inline(el)

    def figure(self, el: Any) -> str:
        svg = el.find("{http://www.w3.org/2000/svg}svg")
        if svg is None:
            svg = el.find("svg")
        caption = el.find("figcaption")
        for number in el.xpath('.//span[@class="figure-number"]'):
            number.drop_tree()
        said = self.inline(caption).strip() if caption is not None else ""
        source = self.view.drawn.svg_text(self._chart_of(el))
        if not source:
            return f"#figure([], caption: [{said}])"
        name = f"chart-{len(self.images) + 1}.svg"
        self.images[name] = source
        return f"#figure(image({string(name)}, width: 100%), caption: [{said}])"

    def _chart_of(self, el: Any) -> str:
        for anchor in el.xpath(".//figcaption//a"):
            href = anchor.get("href") or ""
            if "#" in href:
                return href.rsplit("#", 1)[1]
        return ""

    def table(self, el: Any) -> str:
        table = el.find("table")
        caption = table.find("caption")
        for number in caption.xpath('.//span[@class="figure-number"]'):
            number.drop_tree()
        said = self.inline(caption).strip()
        heads = [f"[*{self.inline(th).strip()}*]" for th in table.xpath("./thead/tr/th")]
        cells = [f"[{self.inline(td).strip()}]" for td in table.xpath("./tbody/tr/td")]
        columns = max(len(heads), 1)
        return (
            f"#figure(table(columns: {columns}, stroke: 0.4pt + luma(180), "
            f"inset: 4pt, align: left, {', '.join([*heads, *cells])}), "
            f"caption: [{said}], kind: table)"
        )


PREAMBLE = """#set document(
  title: {title},
  author: ({authors}),
  date: datetime(year: {y}, month: {m}, day: {d}),
  keywords: ({keywords}),
)
#set page(
  paper: "a4",
  margin: (x: 2.2cm, y: 2.4cm),
  numbering: "1",
  footer: context [
    #set text(size: 8pt, fill: luma(90)); #h(1fr) #counter(page).display("1") #h(1fr)
  ],
)
#set text(font: "Libertinus Serif", size: 10.5pt, lang: "en")
#set par(justify: true, leading: 0.62em)
#set heading(numbering: "1.1")
#show heading: set block(above: 1.4em, below: 0.8em)
#show link: set text(fill: rgb("#7a2e1d"))
#show figure.caption: set text(size: 9pt)
#show table: set text(size: 8pt)
"""


def paper_pdf(view: SiteView, paper: Paper) -> bytes:
    """The paper typeset: the page's text, its figures as vector graphics, its
    bibliography, with the document's title, authors and date, and links to the site."""
    rendered = paper_of(view, paper)
    url = view.urls.entity(paper)
    typst = Typst(view, url)
    body = typst.body(str(rendered.html))
    authors = paper_authors(view, paper)
    summary = view.prose.html(paper, "summary", inline=True)
    day = day_start(paper.date)
    site = view.links.absolute(url)
    parts = [
        PREAMBLE.format(
            title=string(paper.title),
            authors=", ".join(string(a) for a in authors) + ("," if len(authors) == 1 else ""),
            y=day.year,
            m=day.month,
            d=day.day,
            keywords=string(view.book.title) + ",",
        ),
        f'#align(center)[#text(size: 17pt, weight: "bold")[{text(paper.title)}]]',
        f"#align(center)[{text(', '.join(authors))}#linebreak(){text(day_words(paper.date))}"
        f"#linebreak()#text(size: 9pt)[#link({string(site)})[{text(site)}]]]",
        f"#block(inset: (x: 1.5em))[#text(size: 9.5pt)[{typst.inline(_fragment(summary))}]]",
        f"#outline(title: {string('Contents')}, depth: 2)",
        body,
    ]
    if rendered.cited:
        entries = [
            f"+ {typst.inline(_fragment(bibliography_entry(view, s)))}. "
            f"#link({string(view.links.absolute(view.links.url(s)))})[In the Sources]"
            for s in rendered.cited
        ]
        parts.append("#heading(numbering: none)[Sources]\n\n" + "\n".join(entries))
    parts.append(
        f"#v(1em)#text(size: 8.5pt)[From the record of #emph[{text(view.book.title)}], as of "
        f"{text(day_words(view.computed.as_of))}: #link({string(site)})[{text(site)}]]"
    )
    return compile_typst("\n\n".join(parts), typst.images, day)


def _fragment(html: Any) -> Any:
    # lxml refuses text with the controls XML has no place for; a reader sees none of them.
    text = _NOT_XML.sub("", str(html))
    return lxml_html.fragment_fromstring(text or " ", create_parent="span")


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


TYPESET_SECONDS = 60.0
"""How long Typst may take over one paper."""
TYPESET_MEMORY = 2 << 30
"""The address space Typst's process may take, its interpreter included: an allocation
past it fails, and the paper is refused, before the machine runs short."""
TYPESET = """
import os, resource, sys
from sourcebook.children import die_with
die_with(int(sys.argv[4]))
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[5]), int(sys.argv[5])))
import typst
try:
    pdf = typst.compile(
        sys.argv[1], root=sys.argv[2], ignore_system_fonts=True,
        timestamp=int(sys.argv[3]), format="pdf",
    )
except MemoryError:
    sys.stderr.write("memory allocation failed")
    sys.exit(1)
except Exception as exc:
    sys.stderr.write(str(exc)[:2000])
    sys.exit(1)
sys.stdout.buffer.write(pdf)
"""
"""Typst in a process of its own: its engine starts threads, which a process that forks
(as the build's workers are) must not hold, and a paper that runs on, or grows past its
memory, is stopped. The process dies with the build (`die_with`)."""


def compile_typst(source: str, images: dict[str, str], day: Any) -> bytes:
    with scratch("paper-") as root:
        (root / "paper.typ").write_text(source, encoding="utf-8")
        for name, svg in images.items():
            (root / name).write_text(svg, encoding="utf-8")
        stamp = int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())
        command = [sys.executable, "-P", "-c", TYPESET, str(root / "paper.typ"), str(root)]
        command += [str(stamp), str(os.getpid()), str(TYPESET_MEMORY)]
        # One arena per thread reserves address space it may never use (glibc's malloc).
        environment = {**os.environ, "MALLOC_ARENA_MAX": "2"}
        try:
            code, pdf, said = bounded_run(command, TYPESET_SECONDS, cwd=root, env=environment)
        except subprocess.TimeoutExpired:
            raise RenderError(
                f"the paper could not be typeset: it took longer than {TYPESET_SECONDS:g} s"
            ) from None
        if code != 0:
            raise RenderError(f"the paper could not be typeset: {_why(said)}")
        return pdf


def _why(said: bytes) -> str:
    text = said.decode("utf-8", "replace")
    if "memory allocation" in text or "out of memory" in text.lower():
        return f"it needs more memory than Typst may use ({TYPESET_MEMORY >> 20:,} MiB)"
    return last_line(text) or "Typst stopped"
