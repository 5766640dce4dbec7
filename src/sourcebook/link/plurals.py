"""English plurals of the record's names, by inflect: campus → campuses, child → children.

inflect decorates its engine with typeguard's `@typechecked`, which parses and rewrites
inflect's source each time it is imported: 1.6 s, against 0.1 s without. The names
passed here are plain strings, so the engine is imported with the decorator standing
aside, as it does when Python runs with -O.
"""

from __future__ import annotations

from typing import Any

from sourcebook.runtime.memo import memoized


@memoized(maxsize=1)
def _engine() -> Any:
    try:
        import typeguard
    except ImportError:  # an inflect that no longer uses it
        import inflect

        return inflect.engine()
    checked = typeguard.typechecked
    typeguard.typechecked = _unchecked  # type: ignore[assignment]
    try:
        import inflect
    finally:
        typeguard.typechecked = checked
    return inflect.engine()


def _unchecked(target: Any = None, **_options: Any) -> Any:
    return target if target is not None else _unchecked


@memoized(maxsize=65536)
def plural(name: str) -> str | None:
    """The plural of a name, or None where it has none of its own.

    A name's last word is its head ("power purchase agreement"), and only it is inflected,
    as a common noun; the name keeps its own capitals. A last word that ends in a figure
    has no plural; one that ends in a single s is already plural ("122 days", "Services");
    one in capitals is an acronym, whose plural adds s ("TVAs").
    """
    head, space, last = name.rpartition(" ")
    lowered = last.lower()
    if not last[-1:].isalpha() or (lowered.endswith("s") and not lowered.endswith(_SINGULAR)):
        return None
    if last.isupper() and len(last) > 1:
        return name + "s"
    form = str(_engine().plural_noun(lowered))
    if form == lowered:
        return None
    return head + space + _cased(form, last)


_SINGULAR = ("ss", "us", "is")
"""Endings of a singular noun that ends in s: address, campus, analysis."""


def _cased(form: str, word: str) -> str:
    """`form`, a lower-case inflection of `word`, with the capitals `word` has."""
    return "".join(
        word[i] if i < len(word) and word[i].lower() == c else c for i, c in enumerate(form)
    )
