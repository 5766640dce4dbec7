"""Every page as JSON too, under the volume's /api/ path: the same record, for programs.

`/vol1/glossary/cluster` is also `/vol1/api/glossary/cluster.json`; the volume's home is
`/vol1/api/index.json`. An entity's document holds its fields as the record has them, its
URL, its backlinks (each a reference: kind, id, title, url, api) and what derive computed
for it; a list page's document holds the entities it lists, as references. Each HTML page
names its twin in a `<link rel="alternate" type="application/json">`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sourcebook.incremental import read_field, read_fields
from sourcebook.model.base import Entity
from sourcebook.publish.site.drawing.machine_page import machine_of
from sourcebook.publish.site.formats.json_text import dumps, plain_value
from sourcebook.publish.site.pages.page import MachineContext

if TYPE_CHECKING:
    from sourcebook.publish.site.pages.page import Page
    from sourcebook.publish.site.view.site_view import SiteView

API = "api"
TEMPLATE = "api:json"
"""The pseudo-template of a JSON twin: written by `document`, not by Jinja."""


def api_url(base: str, url: str) -> str:
    """The JSON twin of the page at `url` ('/vol1/glossary/cluster')."""
    path = url.split("#", 1)[0].removeprefix(base).strip("/")
    return f"{base}/{API}/{path or 'index'}.json"


def render(view: SiteView, page: Page) -> str:
    """The JSON of the HTML page `page.context['of']`: sorted keys, compact."""
    return dumps(document(view, page.context["of"])) + "\n"


def document(view: SiteView, page: Page) -> dict[str, Any]:
    data: dict[str, Any] = {"url": page.url, "as_of": view.computed.as_of}
    for name, value in page.context.items():
        if name in ("api", "pages"):
            continue
        if name == "entity":
            data[name] = entity_document(view, value)
        else:
            data[name] = _listed(view, value, page.url)
    return data


def with_twins(pages: list[Page], base: str) -> list[Page]:
    """The pages, each listed HTML page followed by its JSON twin (so that the same worker
    renders both, and what they share is worked out once); each page learns its twin's URL."""
    from sourcebook.publish.site.pages.page import Page

    out = []
    for page in pages:
        out.append(page)
        if page.listed and page.template.endswith(".html"):
            url = page.context["api"] = api_url(base, page.url)
            out.append(Page(url, TEMPLATE, {"of": page}, listed=False))
    return out


def entity_document(view: SiteView, entity: Entity) -> dict[str, Any]:
    links = view.query.backlinks(entity)
    data: dict[str, Any] = {
        "kind": entity.KIND,
        "id": entity.id,
        **read_fields(entity, mode="json"),  # every field of it but its body
        "url": view.links.url(entity),
        "backlinks": {
            "book": [reference(view, e) for e in links.book],
            "record": [reference(view, e) for e in links.record],
            "sources": [reference(view, e) for e in links.sources],
            "related": [reference(view, e) for e in links.related],
        },
    }
    computed = view.computed
    found: Any = {
        "indicator": computed.row,
        "test": computed.verdict,
        "scenario": computed.scenario,
        "campus": computed.campus,
    }.get(entity.KIND)
    if entity.KIND == "chart":  # the drawings asked for by a chart's twin only
        found = view.drawn.data
    if found is not None:
        data["computed"] = found(entity)
    if entity.KIND == "indicator" and data["computed"] is not None:
        data["computed"] = _row(data["computed"])
    if entity.KIND in ("campus", "party"):
        data["timelines"] = computed.timelines(entity)
        data["conflicts"] = computed.conflicts(entity)
    if entity.KIND == "source":
        data["watch"] = watch_document(view, entity)
    return data


def watch_document(view: SiteView, source: Entity) -> dict[str, Any]:
    """A source on the live web: each address's state as of the last watch, and every
    visit of its log (watch/SOURCE.jsonl), as the log has it."""
    import dataclasses
    import json

    from sourcebook.read.watch import line_of

    visits = view.record.watch.visits.get(source.id, [])
    return {
        "addresses": [dataclasses.asdict(a) for a in view.query.addresses(source)],  # type: ignore[arg-type]
        "visits": [json.loads(line_of(visit)) for visit in visits],
    }


def reference(view: SiteView, entity: Entity) -> dict[str, Any]:
    """Kind, id, title, URL and twin's URL: made once per entity and shared by every
    document that names it (json only reads it)."""
    key = entity.key
    url = view.links.url(entity)  # each read noted for the page that reads it
    title = read_field(entity, "title")
    found = view.references.get(key)
    if found is None:
        found = view.references[key] = {
            "kind": entity.KIND,
            "id": entity.id,
            "title": title,
            "url": url,
            "api": api_url(view.urls.base, url) if url else None,
        }
    return found


def _row(row: Any) -> dict[str, Any]:
    """A scorecard row, its history's answers naming their figures by id: the answer
    itself carries them in full, and a total names hundreds."""
    data = plain_value(row)
    data["history"] = [
        {
            "day": point.day,
            **{k: getattr(point.answer, k) for k in ("value", "unit", "campus", "note")},
            "figures": [f.id for f in point.answer.figures],
        }
        for point in row.history
    ]
    return data


def _listed(view: SiteView, value: Any, page_url: str) -> Any:
    """A list page's context: its entities as references, their groups kept; an entity
    that has no page of its own but an anchor on this one (a scorecard row, a
    correction, a source on its category's page) in full."""
    if isinstance(value, MachineContext):  # what the page draws from derive's result
        return machine_of(view).document()
    document = getattr(value, "api_document", None)
    if document is not None:  # a context that says what its twin holds
        return document(view)
    if isinstance(value, Entity):
        url = view.links.url(value)
        if "#" in url and url.split("#", 1)[0] == page_url:
            return entity_document(view, value)
        return reference(view, value)
    if isinstance(value, dict):
        return {str(k): _listed(view, v, page_url) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_listed(view, v, page_url) for v in value]
    return value
