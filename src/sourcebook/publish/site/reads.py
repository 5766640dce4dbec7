"""What each page of a build was given: its context, as one build compares it with the next.

What a page reads as it renders is noted by the engine (`incremental.Reads`: the record,
an entity's fields and the tables the view reads through); what it was given is its
context, whose entities are noted here as read.
"""

from __future__ import annotations

from typing import Any

from sourcebook.incremental import Token
from sourcebook.model.base import Entity

_PLAIN = frozenset({str, int, float, bool, type(None)})


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
    kind = type(value)
    if kind in _PLAIN:  # most of what a context holds, told by its type alone
        return value
    if kind is dict:
        return [(k if type(k) is str else _shown(k, tokens, inside, seen),
                 _shown(v, tokens, inside, seen)) for k, v in value.items()]  # fmt: skip
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
