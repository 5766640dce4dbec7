"""A source cited in the house style, in full or short.

In full: `Authors, Publisher, “Title,” 28 October 2024, updated …, reprint (what was
read; the annotation; sponsored by …; disputed by …) (Publisher sells …; held in the
Library as S1).` An article of the press or of research with named authors puts its
periodical after the title: `Authors, “Title,” Bloomberg, 31 July 2026`, the periodical
in italics where it is a research house's own (`*SemiAnalysis*`). Without authors the
publisher is the author and leads. A book or essay has its title in italics instead of
quotes. Short, for a `[@id]` in prose: `Hawkins and Fan, 31 July 2026`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html import unescape as html_unescape
from typing import Any

from markupsafe import Markup, escape

from sourcebook.incremental import READS, SharedMemo, Table
from sourcebook.library.report import Proof, QuoteReport
from sourcebook.link.prose import quote_spans
from sourcebook.model.base import Entity
from sourcebook.model.kinds import Party, PartyType, Source
from sourcebook.model.person_names import name_parts
from sourcebook.model.record import Record
from sourcebook.publish.site.view.prose_html import Rendered
from sourcebook.publish.site.view.wording import day, join

PERIODICALS = ("press", "research")
"""The categories of sources that appear in periodicals: an article of one with named
authors is cited as `Authors, “Title,” Periodical, date`."""


class Citations:
    """Full and short citations of a record's sources; each full one is made once."""

    def __init__(self, record: Record):
        self.record = record
        self.prose: Callable[[Source, str], Rendered] | None = None
        """A prose field of a source (its annotation, what was read) rendered, as the
        site's view renders (and keeps) it."""
        self.disclose: Callable[[Party], Rendered] | None = None
        """What a publisher sells, as the site's view words it."""
        self.proofs: QuoteReport | None = None
        """What check proved of the record's quotes (see `SiteView.use_proofs`)."""
        self.proven: dict[str, ProvenQuotes] = {}
        """Per source id, its annotation's proven quotes, where given from outside (a
        process forked before check proved them); otherwise read from `proofs`."""
        self.proven_table: Table[str, ProvenQuotes] = Table(
            ("proven",), self._all_proven, make=self._proven_of
        )
        """What check proved of each source's annotation quotes, by source id."""
        self.library: Table[str, Any] = Table(("library",), record.library.items)
        """The Library's items, by shelf."""
        self._full = SharedMemo()
        self._short = SharedMemo()
        self.shared: tuple[SharedMemo, ...] = (self._full, self._short)
        """What it makes that pages share, for the next build to take what is unchanged."""

    def authors(self, source: Source) -> list[str]:
        """Its people, then the organizations that wrote it as a body."""
        people = (self.record.get("person", a) for a in source.authors)
        bodies = (self.record.get("party", o) for o in source.organizations)
        return [p.title for p in (*people, *bodies) if p is not None]

    def publisher(self, source: Source) -> Party | None:
        party = self.record.get("party", source.publisher) if source.publisher else None
        return party if isinstance(party, Party) else None

    def publication(self, source: Source) -> str:
        publisher = self.publisher(source)
        return source.publication or (publisher.title if publisher else "")

    def short(self, source: Entity) -> str:
        """Who and when, for a citation in running prose; made once per source, as pages
        name a source again and again."""
        return READS.lookup(self._short, source.id, self._make_short, source)

    def _make_short(self, source: Entity) -> str:
        source = self._read(source)
        people = (self.record.get("person", a) for a in source.authors)
        names = [name_parts(p)[1] for p in people if p is not None and p.title.split()]
        bodies = (self.record.get("party", o) for o in source.organizations)
        names += [body.title for body in bodies if body is not None]
        if len(names) > 2:
            who = f"{names[0]} et al."
        else:
            who = join(names) or self.publication(source) or source.title
        return f"{who}, {day(source.date)}" if source.date else who

    def full(self, source: Source) -> Rendered:
        return READS.lookup(self._full, source.id, self._make_full, source)

    def head(self, source: Source) -> Markup:
        """Who, what and when in the house style (HTML): the citation without its notes,
        one style for every source, as the Sources index lists them."""
        return Markup(self._head(self._read(source)))

    def line(self, source: Source) -> str:
        """Who, what and when, as plain text: the citation without its notes (a preview's)."""
        return " ".join(html_unescape(_TAG.sub("", self._head(source))).split())

    def _make_full(self, source: Source) -> Rendered:
        source = self._read(source)
        assert self.prose is not None, "Citations.prose is set by the site's view"
        annotation = self.prose(source, "annotation")
        annotation = Rendered(self._mark_quotes(source, annotation.html), annotation.terms)
        read = self.prose(source, "read")
        disclosures, terms = self._disclosures(source)
        notes = self._notes(source, read.html, annotation.html)
        head = self._head(source)
        html = head + notes + disclosures if notes or disclosures else sentence(head)
        return Rendered(Markup(html), annotation.terms | read.terms | terms)

    def _read(self, source: Entity) -> Source:
        """The source as the record holds it, read through it (and so noted as read)."""
        found = self.record.get(*source.key)
        assert isinstance(found, Source)
        return found

    def _mark_quotes(self, source: Source, html: Markup) -> Markup:
        """Wrap each quote of the annotation in its verification, found by its words."""
        return marked(html, self.proven_table[source.id])

    def _proven_of(self, source_id: str) -> ProvenQuotes:
        proven = self.proven.get(source_id)
        if proven is not None:
            return proven
        source = Record.get(self.record, "source", source_id)  # noted as the table's
        report = self.proofs
        if report is None or not isinstance(source, Source):
            return {}
        return proven_quotes(report, source)

    def _all_proven(self) -> dict[str, ProvenQuotes]:
        report = self.proofs
        if report is None:
            return {}
        sources = Record.of(self.record, "source")
        return {s.id: proven_quotes(report, s) for s in sources if isinstance(s, Source)}

    # The citation is built as HTML strings, each value from the record escaped where it
    # goes in: markupsafe's Markup.format costs several times more, on every source.

    def _head(self, source: Source) -> str:
        authors = join(self.authors(source))
        publication = self.publication(source)
        if publication == authors:
            publication = ""
        after = self._after_title(source)
        name = escape(source.title)
        if (
            authors
            and publication
            and source.category.value in PERIODICALS
            and not source.italic_title
        ):
            # An article: the periodical follows its title, as Chicago places it.
            periodical = str(escape(publication))
            if self._italic_periodical(source):
                periodical = f"<i>{periodical}</i>"
            head = f"{escape(authors)}, “{name},” {periodical}"
            return f"{head}, {after}" if after else head
        lead = ", ".join(escape(w) for w in (authors, publication) if w)
        if source.italic_title:
            title = f"<i>{name}</i>, {after}" if after else f"<i>{name}</i>"
        elif after:
            title = f"“{name},” {after}"
        else:
            title = f"“{name}”"
        return f"{lead}, {title}" if lead else title

    def _italic_periodical(self, source: Source) -> bool:
        """A research house's own publication (a newsletter, a report series) is a
        periodical's title, in italics; a news organisation is named in roman, as a news
        service or website is."""
        publisher = self.publisher(source)
        return publisher is not None and publisher.type == PartyType.RESEARCH

    def _after_title(self, source: Source) -> Markup:
        parts = []
        if source.date:
            parts.append(day(source.date))
        if source.updated:
            same = source.updated == source.date
            parts.append("updated the same day" if same else f"updated {day(source.updated)}")
        if source.reprint:
            parts.append(source.reprint)
        if source.pages:
            parts.append(f"{'pp.' if '–' in source.pages else 'p.'} {source.pages}")
        if source.doi:
            parts.append(f"doi:{source.doi}")
        return escape(", ".join(parts))

    def _notes(self, source: Source, read: Markup, annotation: Markup) -> str:
        parts: list[str] = []
        if read:
            parts.append(read)
        if annotation:
            parts.append(annotation)
        if source.sponsor:
            parts.append(f"Sponsored by {escape(source.sponsor)}, as it says")
        disputing = [self.record.get("party", p) for p in source.disputed_by]
        names = [p.title for p in disputing if p is not None]
        if names:
            parts.append(f"Disputed by {escape(join(names))}")
        return _parenthesis(parts)

    def _disclosures(self, source: Source) -> tuple[str, frozenset[str]]:
        parts: list[str] = []
        terms: frozenset[str] = frozenset()
        publisher = self.publisher(source)
        if publisher is not None and publisher.sells and self.disclose is not None:
            disclosed = self.disclose(publisher)
            parts.append(disclosed.html)
            terms = disclosed.terms
        holdings = [self._holding(shelf) for shelf in source.library]
        if holdings:
            parts.append("; ".join(holdings))
        return _parenthesis(parts), terms

    def _holding(self, shelf: str) -> str:
        """'Library S12 (the free portion), held since 5 October 2026, read again on …'."""
        item = self.library.get(shelf)
        if item is None:
            return f"Library {escape(shelf)}"
        text = str(escape(item.label))
        if item.holds and item.holds != "the whole of the original":
            text += f" ({escape(item.holds)})"
        text += f", held since {escape(day(item.captured))}"
        if item.read_again:
            text += f", read again on {escape(join([day(d) for d in item.read_again]))}"
        return text


ProvenQuotes = dict[str, tuple[str, str]]
"""A source's annotation quotes by their words: each one's status and what the reader is
told of its proof."""


def proven_quotes(report: QuoteReport, source: Source) -> ProvenQuotes:
    """What the citation of `source` shows of the proof of its annotation's quotes."""
    return proven_in(report, source, "annotation")


def proven_in(report: QuoteReport, entity: Entity, field: str) -> ProvenQuotes:
    """The proof of each quote written in one prose field of `entity`, by its words."""
    return {
        _words(p.claim.text): (p.status.value, _proof_note(p))
        for p in report.for_owner(entity.key)
        if p.claim.field == field
    }


def marked(html: Markup, proven: ProvenQuotes) -> Markup:
    """Each quote of `html` wrapped in its verification, found by its words (a reader sees
    ✓ after a verified one)."""
    if not proven:
        return html

    def wrap(quoted: str) -> str:
        inner = quoted[1:-1]
        found = proven.get(_words(html_unescape(_TAG.sub("", inner))))
        if found is None or "<" in inner and not _balanced(inner):
            return quoted
        status, note = escape(found[0]), escape(found[1])
        return f'<span class="quote" data-proof="{status}" title="{note}">{quoted}</span>'

    return Markup(_each_quote(str(html), wrap))


def _each_quote(html: str, wrap: Callable[[str], str]) -> str:
    """`html` with each quote, from its opening mark to the one that balances it, wrapped.
    Marks inside tags (a link's title) are not quotes of the text: wrapping one would put
    a span inside an attribute, so tags are blanked out before the marks are paired."""
    text_only = _TAG.sub(lambda tag: " " * len(tag.group()), html)
    out, done = [], 0
    for start, end in quote_spans(text_only).spans:
        out += [html[done:start], wrap(html[start:end])]
        done = end
    return "".join(out) + html[done:]


_TAG = re.compile(r"<[^>]*>")


def _words(text: str) -> str:
    return " ".join(text.split())


def _balanced(html: str) -> bool:
    opened = re.findall(r"<([a-z]+)[\s>]", html)
    closed = re.findall(r"</([a-z]+)>", html)
    return opened == closed[::-1] or sorted(opened) == sorted(closed)


def _proof_note(proof: Proof) -> str:
    """What a reader is told of one quote's verification."""
    if proof.found is not None:
        where = f"Found in Library {proof.found.shelf}"
        return f"{where}, {proof.locator}" if proof.locator else where
    if proof.status.value == "unverifiable":
        return "No copy of this source is held in the Library to check it against"
    return "Not found in the Library's copy"


def _parenthesis(parts: list[str]) -> str:
    """Sentences in parentheses after the citation's head (HTML); nothing where there are
    none."""
    if not parts:
        return ""
    return " (" + " ".join(sentence(_bracketed_end(str(p))) for p in parts) + ")"


def _bracketed_end(html: str) -> str:
    """The text with a parenthesis that ends it set in square brackets, as parentheses
    within parentheses are: the note reads "… days].)", never "… days).)"."""
    bare = html.rstrip()
    stop = "." if bare.endswith(").") else ""
    bare = bare[: len(bare) - len(stop)]
    if not bare.endswith(")"):
        return html
    text = _TAG.sub(lambda tag: " " * len(tag.group()), bare)
    depth = 0
    for at in range(len(text) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(text[at], 0)
        if depth == 0:
            return bare[:at] + "[" + bare[at + 1 : -1] + "]" + stop
    return html


def sentence(text: str) -> Markup:
    """The text with a full stop at its end, unless it ends a sentence already."""
    bare = str(text).rstrip()
    stripped = bare.rstrip('”’")»').rstrip() or bare
    if stripped.endswith((".", "!", "?")):
        return Markup(bare)
    return Markup(bare + ".")
