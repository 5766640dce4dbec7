"""What a link to an entity shows before it is followed, and what search shows of a hit.

One line per entity: a term's definition, a campus's place, state and latest power, a
party's roles, a person's role, a source's citation, a chapter's summary, an indicator's
current value, a test's verdict. The build writes them all into one file,
`/vol1/previews.json` (`{url: [kind, title, line, names]}`), which the pages' script fetches the
first time a reader points at a link; no page carries them, so that editing a definition
changes that file and the term's own page, not every page that mentions the term. Search
shows the same line under each hit (see `index.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sourcebook.incremental import READS
from sourcebook.model.base import Entity
from sourcebook.model.kinds import Campus, Chapter, Correction, Person, Source
from sourcebook.publish.site.formats import twins
from sourcebook.publish.site.view.wording import day, sentence_case

if TYPE_CHECKING:
    from sourcebook.publish.site.view.site_view import SiteView

FILE = "previews.json"
LONGEST = 240
"""Characters of a line; a longer one is cut at a word and ends with '…'."""


def previews_url(base: str) -> str:
    return f"{base}/{FILE}"


def kind_label(view: SiteView, entity: Entity) -> str:
    """The kind as a reader names it, and as search filters by it: 'Campus', 'Term'."""
    return view.query.label(entity)


def line(view: SiteView, entity: Entity) -> str:
    """The one line that says what `entity` is, as plain text (escaped where it is shown)."""
    made = LINES.get(entity.KIND)
    text = made(view, entity) if made is not None else ""
    return shortened(" ".join(text.split()))


def shortened(text: str, longest: int = LONGEST) -> str:
    if len(text) <= longest:
        return text
    cut = text[: longest - 1].rsplit(" ", 1)[0].rstrip(",;:·")
    return cut + "…"


NAMED = ("term", "campus", "party", "person")
"""The kinds whose names search forgives a slip in (search.js): each carries its names."""


def previews_json(view: SiteView) -> str:
    """Every entity with a page or an anchor of its own: its URL → [kind, title, line],
    and for a term, campus, party or person its names too (title and aliases), which
    search matches a misspelt query against. Each entity's entry is made once and, with
    what making it read, kept in the view (`SiteView.previews`): a build after an edit
    makes again only the entries that read what the edit changed."""
    table: dict[str, list] = {}
    for entity in view.record:
        url = view.links.url(entity)
        if url:
            table[url] = READS.lookup(view.previews, entity.key, _preview, view, entity)
    return twins.dumps(table) + "\n"


def _preview(view: SiteView, listed: Entity) -> list:
    """One entity's entry. A line reads the entity's fields as they are (a campus's place,
    a person's role), so the entity is read through the record, and so noted, as a whole."""
    entity = view.record.get(*listed.key)
    assert entity is not None, "an entity listed is in the record"
    found: list = [kind_label(view, entity), entity.title, line(view, entity)]
    if entity.KIND in NAMED:
        found.append([entity.title, *getattr(entity, "aliases", ())])
    return found


def _term(view: SiteView, entity: Entity) -> str:
    return view.prose.plain(entity, "definition")


def _campus(view: SiteView, campus: Entity) -> str:
    assert isinstance(campus, Campus)
    parts = [f"{campus.location}, {campus.country}"]
    state = view.computed.campus(campus)
    if state is not None:
        parts.append(state.stage)
        if state.power is not None:
            power = view.computed.power(state.power)
            parts.append(f"evidenced power {power} (as of {day(state.power.as_of)})")
    return " · ".join(parts)


def _party(view: SiteView, party: Entity) -> str:
    roles = [
        f"{_roles([r.value for r in entry.roles])} at {campus.title}"
        for campus, entry in view.query.roles(party)
    ]
    if roles:
        return sentence_case("; ".join(roles))
    kind = getattr(party, "type", None)
    return sentence_case(kind.value) if kind is not None else ""


def _roles(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _person(view: SiteView, person: Entity) -> str:
    assert isinstance(person, Person)
    if person.role:
        return person.role
    parties = [p for p in (view.record.get("party", i) for i in person.affiliations) if p]
    return "With " + ", ".join(p.title for p in parties) if parties else ""


def _source(view: SiteView, source: Entity) -> str:
    assert isinstance(source, Source)
    return view.citations.line(source)


def _chapter(view: SiteView, chapter: Entity) -> str:
    assert isinstance(chapter, Chapter)
    return f"{view.query.chapter_label(chapter)}: {view.prose.plain(chapter, 'summary')}"


def _indicator(view: SiteView, indicator: Entity) -> str:
    row = view.computed.row(indicator)
    answer = row.answer if row is not None else None
    if answer is None or answer.shown is None:
        return f"Row {indicator.row}: no value yet. {view.prose.plain(indicator, 'description')}"  # type: ignore[attr-defined]
    campus = view.record.get("campus", answer.campus) if answer.campus else None
    at = f" at {campus.title}" if campus is not None else ""
    return f"Row {indicator.row}: {answer.shown}{at}, as of {day(view.computed.as_of)}"  # type: ignore[attr-defined]


def _test(view: SiteView, test: Entity) -> str:
    verdict = view.computed.verdict(test)
    when = f"to be judged by {day(test.deadline)}"  # type: ignore[attr-defined]
    if verdict is not None and verdict.outcome is not None:
        when = f"{view.computed.outcome(verdict)}, {when}"
    return f"{sentence_case(when)}. {view.prose.plain(test, 'claim')}"


def _correction(view: SiteView, correction: Entity) -> str:
    assert isinstance(correction, Correction)
    plain = view.prose.plain
    return f"Was: {plain(correction, 'wrong')} Is: {plain(correction, 'right')}"


def _scenario(view: SiteView, scenario: Entity) -> str:
    campus = _campus_of(view, scenario)
    futures = len(getattr(scenario, "futures", []))
    where = f"{campus.title}: " if campus is not None else ""
    return f"{where}{futures} futures, {scenario.start}–{scenario.end}"  # type: ignore[attr-defined]


LINES: dict[str, Callable[[SiteView, Entity], str]] = {
    "term": _term,
    "campus": _campus,
    "party": _party,
    "person": _person,
    "source": _source,
    "chapter": _chapter,
    "indicator": _indicator,
    "test": _test,
    "correction": _correction,
    "scenario": _scenario,
}


def _campus_of(view: SiteView, scenario: Entity) -> Entity | None:
    campus = getattr(scenario, "campus", None)
    return view.record.get("campus", campus) if campus else None
