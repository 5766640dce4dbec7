"""The normalization's rules one at a time, to say which ones a proved quote needed.

`normalize.normalize` applies all six rules in one fast pass; here each is a function of
its own, so that a quote can be looked for again with one rule left out. A rule the
quote cannot be found without is one it needed. Slower, and used only to explain
(`sourcebook check --quotes --list`); a test holds the two to the same result.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from sourcebook.library import normalize as fast

RULES = {
    1: "Unicode NFKC",
    2: "soft hyphens and zero-width characters dropped",
    3: "a word hyphenated across a line break joined",
    4: "quotation marks and apostrophes made one",
    5: "hyphens and dashes made one, without spaces",
    6: "white space made single spaces",
}
"""Each rule of docs/library.md, by its number, in words."""

_SPACES = re.compile(r"[ \t\r\n\x0b\x0c\x1c\x1d\x1e\x1f\x85\u1680\u2028\u2029]+")


def _nfkc(text: str) -> str:
    for mark, replacement in fast._NFKC_COMMON.items():
        text = text.replace(mark, replacement)
    return unicodedata.normalize("NFKC", text)


def _dropped(text: str) -> str:
    return text.translate(dict.fromkeys(map(ord, fast._DROPPED)))


def _joined(text: str) -> str:
    return fast._LINE_HYPHEN_OTHER.sub("", fast._LINE_HYPHEN.sub("", text))


def _quotes(text: str) -> str:
    return text.translate(dict.fromkeys(map(ord, fast._QUOTES), "'"))


def _dashes(text: str) -> str:
    return text.translate(dict.fromkeys(map(ord, fast._DASHES), "-"))


def _dash_spacing(text: str) -> str:
    text = re.sub(r" ?- ?", "-", text)
    return re.sub(r"-{2,}", "-", text)


def _spaces(text: str) -> str:
    return _SPACES.sub(" ", text).strip(" ")


def normalizer(without: int | None = None) -> Callable[[str], str]:
    """The normalization with rule `without` left out (None: all six rules)."""
    steps: list[tuple[int, Callable[[str], str]]] = [
        (1, _nfkc),
        (3, _joined),
        (2, _dropped),
        (4, _quotes),
        (5, _dashes),
        (6, _spaces),
        (5, _dash_spacing),
    ]
    chosen = [step for rule, step in steps if rule != without]

    def apply(text: str) -> str:
        for step in chosen:
            text = step(text)
        return text

    return apply


def unchanged(text: str) -> str:
    return text
