"""A source cited in the house style, in full or short.

In full: `Authors, Publication, “Title,” 28 October 2024, updated …, reprint (what was
read; the annotation; sponsored by …; disputed by …) (Publisher sells …; held in the
Library as S1).` A book or essay has its title in italics instead of quotes. Short,
for a `[@id]` in prose: `Hawkins and Fan, 31 July 2026`.
"""

from __future__ import annotations

from markupsafe import Markup, escape

from sourcebook.model.base import Entity
from sourcebook.model.kinds import Party, Source
from sourcebook.model.record import Record
from sourcebook.publish.site.prose import ProseRenderer, Rendered
from sourcebook.publish.site.wording import day, join


class Citations:
    """Full and short citations of a record's sources; each full one is made once."""

    def __init__(self, record: Record):
        self.record = record
        self.prose: ProseRenderer | None = None
        self._full: dict[str, Rendered] = {}

    def authors(self, source: Source) -> list[str]:
        people = (self.record.get("person", a) for a in source.authors)
        return [p.title for p in people if p is not None]

    def publisher(self, source: Source) -> Party | None:
        party = self.record.get("party", source.publisher) if source.publisher else None
        return party if isinstance(party, Party) else None

    def publication(self, source: Source) -> str:
        publisher = self.publisher(source)
        return source.publication or (publisher.title if publisher else "")

    def short(self, source: Entity) -> str:
        """Who and when, for a citation in running prose."""
        assert isinstance(source, Source)
        names = [n.split()[-1] for n in self.authors(source) if n.split()]
        if len(names) > 2:
            who = f"{names[0]} et al."
        else:
            who = join(names) or self.publication(source) or source.title
        return f"{who}, {day(source.date)}" if source.date else who

    def full(self, source: Source) -> Rendered:
        cached = self._full.get(source.id)
        if cached is None:
            cached = self._full[source.id] = self._make_full(source)
        return cached

    def _make_full(self, source: Source) -> Rendered:
        assert self.prose is not None, "Citations.prose is set by the site's view"
        annotation = self.prose.inline(source.annotation, source.key)
        html = self._head(source) + self._notes(source, annotation.html) + self._disclosures(source)
        return Rendered(html + Markup("."), annotation.terms)

    def _head(self, source: Source) -> Markup:
        who = [join(self.authors(source))]
        publication = self.publication(source)
        if publication and publication != who[0]:
            who.append(publication)
        lead = Markup(", ").join(w for w in who if w)
        after = self._after_title(source)
        if source.italic_title:
            title = Markup("<i>{}</i>").format(source.title)
            title += Markup(", ") + after if after else Markup("")
        elif after:
            title = Markup("“{},” ").format(source.title) + after
        else:
            title = Markup("“{}”").format(source.title)
        return (lead + Markup(", ") if lead else Markup("")) + title

    def _after_title(self, source: Source) -> Markup:
        parts = []
        if source.date:
            parts.append(day(source.date))
        if source.updated:
            same = source.updated == source.date
            parts.append("updated the same day" if same else f"updated {day(source.updated)}")
        if source.reprint:
            parts.append(source.reprint)
        return escape(", ".join(parts))

    def _notes(self, source: Source, annotation: Markup) -> Markup:
        parts: list[Markup] = []
        if source.read:
            parts.append(escape(source.read))
        if annotation:
            parts.append(annotation)
        if source.sponsor:
            parts.append(Markup("sponsored by {}, as it says").format(source.sponsor))
        disputing = [self.record.get("party", p) for p in source.disputed_by]
        names = [p.title for p in disputing if p is not None]
        if names:
            parts.append(Markup("disputed by {}").format(join(names)))
        return Markup(" (") + Markup("; ").join(parts) + Markup(")") if parts else Markup("")

    def _disclosures(self, source: Source) -> Markup:
        parts: list[Markup] = []
        publisher = self.publisher(source)
        if publisher is not None and publisher.sells:
            sells = publisher.sells.strip().rstrip(".")
            if sells.casefold().startswith(publisher.title.casefold()):
                parts.append(escape(sells))
            else:
                parts.append(Markup("{} sells {}").format(publisher.title, sells))
        if source.library:
            parts.append(Markup("held in the Library as {}").format(join(source.library)))
        return Markup(" (") + Markup("; ").join(parts) + Markup(")") if parts else Markup("")
