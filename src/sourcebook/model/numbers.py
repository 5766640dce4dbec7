"""Numbers as sources write them, so that a figure's quote can be shown to carry its number.

`1,400,000`, `1.4M`, `1.4 million`, `five million`, `200 megawatts`, `200-megawatt`,
`5GW`, `$20 billion`, `$1.70/hr`, `38%`: each is read as a value (its scale word
applied) and, where one follows, the unit it is written in.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from sourcebook.model.units import UnitError, dimension_of, to_base

_ONES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_WORD_VALUES = {
    **{word: index for index, word in enumerate(_ONES)},
    **{word: 20 + 10 * index for index, word in enumerate(_TENS)},
    "dozen": 12,
}
_ONES_ALT = "|".join(sorted([*_ONES, "dozen"], key=len, reverse=True))
_WORDS = (
    rf"(?:(?:{'|'.join(_TENS)})(?:[ -](?:{'|'.join(_ONES[1:10])}))?|{_ONES_ALT})(?:[ -]hundred)?"
)
_SCALES = {
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
    "mn": 1e6,
    "bn": 1e9,
    "tn": 1e12,
    "k": 1e3,
    "K": 1e3,
    "M": 1e6,
    "B": 1e9,
    "T": 1e12,
}
_UNIT_WORDS = (
    (r"kilowatts?|kW", "kW"),
    (r"megawatts?|MW", "MW"),
    (r"gigawatts?|GW", "GW"),
    (r"terawatts?|TW", "TW"),
    (r"watts?|W", "W"),
    (r"acres?", "acre"),
    (r"square[- ](?:feet|foot)|sq\.? ?ft|sqft", "sqft"),
    (r"days?", "day"),
    (r"months?", "month"),
    (r"GPUs?|chips?|accelerators?", "chip"),
    (r"H100e|H100-equivalents?", "H100e"),
    (r"buildings?", "building"),
    (r"percent|per cent|%", "percent"),
    (r"USD|dollars?", "USD"),
)
_UNIT_LOOKUP = [(re.compile(rf"(?:{words})$", re.I), unit) for words, unit in _UNIT_WORDS]

_UNIT_ALT = "|".join(words for words, _unit in _UNIT_WORDS)
_PATTERN = re.compile(
    r"(?P<dollar>(?:US)?\$\s?)?"
    r"(?:(?<![\w.,])(?P<digits>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"|\b(?P<words>(?i:{_WORDS}))\b)"
    r"(?:\s?-?\s?(?P<scale>(?i:thousand|million|billion|trillion)|mn|bn|tn)\b"
    r"|(?P<abbr>[kKMBT])(?![A-Za-z]))?"
    rf"(?:\s?-?\s?(?P<unit>{_UNIT_ALT})(?![A-Za-z]))?"
)


@dataclass(frozen=True, slots=True)
class Written:
    """A number found in text: its value with any scale word applied, and its unit."""

    value: float
    unit: str | None
    start: int
    end: int


def written_numbers(text: str) -> list[Written]:
    """Every number written in `text`, in order."""
    found = []
    for match in _PATTERN.finditer(text):
        number = _digits(match["digits"]) if match["digits"] else _words(match["words"])
        scale = match["scale"] or match["abbr"]
        if scale:
            number *= _SCALES.get(scale, _SCALES.get(scale.lower(), 1.0))
        unit = _unit(match["unit"]) if match["unit"] else None
        if unit is None and match["dollar"]:
            unit = "USD"
        found.append(Written(number, unit, match.start(), match.end()))
    return found


def carries(text: str, value: float, unit: str) -> bool:
    """Whether `text` writes `value` in `unit`, in any of its usual forms.

    A number matches when it equals the value as given, or the value in its base unit
    (`$10 billion` carries 10 billion USD and 10000000000 USD), or, written with a unit
    of the same kind, the same quantity (`1,500 MW` carries 1.5 GW). A number written
    with a unit of another kind (`2 acres` for 2 GW) does not.
    """
    try:
        base, found = to_base(value, unit)
        dimension: str | None = found.name
    except UnitError:
        base, dimension = value * _scale_words(unit), None
    for number in written_numbers(text):
        written = _dimension(number)
        if not _may_be(written, dimension, unit):
            continue
        if _close(number.value, value) or _close(number.value, base):
            return True
        if (
            written is not None
            and written == dimension
            and _close(to_base(number.value, str(number.unit))[0], base)
        ):
            return True
    return False


def _may_be(written: str | None, dimension: str | None, unit: str) -> bool:
    """Whether a number written as `written` may state a figure of `dimension`: dollars
    may state a price in dollars per something."""
    if written is None or dimension is None or written == dimension:
        return True
    return written == "money" and unit.startswith("USD/")


def _dimension(number: Written) -> str | None:
    if number.unit is None:
        return None
    found = dimension_of(number.unit)
    return found.name if found else None


def _scale_words(unit: str) -> float:
    """The scale a compound unit is written at: 1e9 for `billion USD/GW/year`."""
    scale = 1.0
    for word in re.findall(r"[A-Za-z]+", unit):
        scale *= _SCALES.get(word.lower(), 1.0) if word.lower() in _SCALE_WORDS else 1.0
    return scale


_SCALE_WORDS = {"thousand", "million", "billion", "trillion", "mn", "bn", "tn"}


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)


def _digits(text: str) -> float:
    return float(text.replace(",", ""))


def _words(text: str) -> float:
    parts = re.split(r"[ -]", text.lower())
    hundreds = parts[-1] == "hundred"
    value = sum(_WORD_VALUES[part] for part in parts if part != "hundred")
    return float(value * 100 if hundreds else value)


def _unit(text: str) -> str | None:
    for pattern, unit in _UNIT_LOOKUP:
        if pattern.match(text):
            return unit
    return None


NUMBER_WORDS = _WORDS
"""A number written in words (`five`, `twenty-two`, `three hundred`), as a pattern."""
SCALES = _SCALES
"""Each scale word and abbreviation (`million`, `bn`, `M`) and what it multiplies by."""


def word_value(text: str) -> float:
    """The value of a number written in words (as NUMBER_WORDS matches it)."""
    return _words(text)
