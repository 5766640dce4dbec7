"""What each page of a build read: the record as pages read it, and their contexts.

The tokens a page reads are noted by `incremental.READS` (see `incremental._reads` for what
each token names); this is what of it is about the site's pages: the record that notes
each entity a page asks for, and a page's context as one build compares it with the next.
"""

from __future__ import annotations

from typing import Any

from sourcebook.incremental import READS, Token
from sourcebook.model.base import Entity
from sourcebook.model.record import Record


class TracedRecord(Record):
    """The record as the site's pages read it: each entity they ask for is noted."""

    @classmethod
    def of_record(cls, record: Record) -> TracedRecord:
        traced = cls.__new__(cls)
        traced.__dict__.update(record.__dict__)
        return traced

    def get(self, kind: str, entity_id: str) -> Entity | None:
        READS.note(("entity", kind, entity_id))
        return super().get(kind, entity_id)

    def of(self, kind: str) -> list[Entity]:
        READS.note(("kind", kind))
        return super().of(kind)

    def entities_keys(self) -> list[tuple[str, str]]:
        READS.note_all([("kind", kind) for kind in self.entities])
        return super().entities_keys()


def context_reads(
    context: dict[str, Any], seen: dict[int, tuple[Any, set[Token]]] | None = None
) -> tuple[str, frozenset[Token]]:
    """A page's context as it can be compared from build to build (each entity by its
    key), and the entities it holds, as tokens. `seen`: what other pages' contexts of the
    same build found of each page they hold (a JSON twin holds its page), to be reused."""
    tokens: set[Token] = set()
    return repr(_shown(context, tokens, set(), seen)), frozenset(tokens)


def _shown(
    value: Any,
    tokens: set[Token],
    inside: set[int],
    seen: dict[int, tuple[Any, set[Token]]] | None = None,
) -> Any:
    if isinstance(value, Entity):
        tokens.add(("entity", *value.key))
        return ("entity", *value.key)
    if isinstance(value, str | int | float | bool | type(None)):
        return value
    if isinstance(value, dict):
        return [
            (_shown(k, tokens, inside, seen), _shown(v, tokens, inside, seen))
            for k, v in value.items()
        ]
    if isinstance(value, list | tuple):
        return [_shown(v, tokens, inside, seen) for v in value]
    fields = getattr(value, "__dataclass_fields__", None)  # a Page, a Release
    if fields is None:
        return type(value).__name__  # an object that reads the view when asked (the machine's)
    if id(value) in inside:  # the sitemap, among the pages it lists
        return type(value).__name__
    if seen is not None and not inside and id(value) in seen:  # as it was found before
        shown, held = seen[id(value)]
        tokens |= held
        return shown
    inside.add(id(value))
    own: set[Token] = set()
    shown = (type(value).__name__, [_shown(getattr(value, f), own, inside, seen) for f in fields])
    inside.discard(id(value))
    tokens |= own
    if seen is not None and not inside:
        seen[id(value)] = (shown, own)
    return shown
