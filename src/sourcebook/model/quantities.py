"""Quantities as the record's own prose says them: a number, its unit, and how exactly.

`200 MW`, `1.2 gigawatts`, `5-gigawatt`, `two gigawatts`, `100,000 H100s`, `200,000
Nvidia Hopper GPUs`, `1.4M H100e`: each is read as a value in its dimension's base unit
(through pint, `model/units.py`), with the range the words allow. Only the dimensions a
campus's figures are checked in are read: power, chips and H100-equivalents.

The range is the written precision: half a step of the number's last significant digit
(`500 MW` is 450–550 MW, `1.2 GW` 1.15–1.25 GW, `150 MW` 145–155 MW); a word before the
number widens it: `about` (or around, roughly, approximately, some) to a tenth either way
at least, `more than` (over, above, at least, beyond) to no upper end, `up to` (nearly,
almost, under, less than, below, at most) to no lower end. A small number right after a
capitalised word is part of a chip's name, not a count (`Trainium 2 chips`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from sourcebook.model.numbers import NUMBER_WORDS, SCALES, word_value
from sourcebook.model.spans import merged
from sourcebook.model.units import to_base

_VENDOR = r"(?:(?:Nvidia|NVIDIA|AMD|Google|Amazon|AWS|Intel)\s)?"
_CHIP_MODEL = r"(?:[A-Z]{1,3}\d{2,4}[A-Z]?|Hopper|Blackwell|Trainium\d?|TPU(?:\s?v\d+)?)"
_CHIP_NOUN = r"(?:AI\s)?(?:GPUs?|chips?|accelerators?)\b"
_UNIT = re.compile(
    r"(?<![A-Za-z])(?P<power>[kMGT]W|(?i:kilowatts?|megawatts?|gigawatts?|terawatts?))"
    r"(?![A-Za-z])"
    r"|\b(?P<compute>H100e|H100[ -]equivalents?)\b"
    rf"|\b(?P<chips>{_VENDOR}(?:{_CHIP_MODEL}(?:s\b|\s{_CHIP_NOUN})|{_CHIP_NOUN}))"
)
"""A unit of power, chips or H100-equivalents: where a quantity ends."""
_NUMBER = re.compile(
    r"(?:(?<![\w.,])(?P<digits>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<decimals>\d+))?"
    rf"|\b(?P<words>(?i:{NUMBER_WORDS}))\b)"
    r"(?:[ -]?(?P<scale>(?i:thousand|million|billion))\b|(?P<abbr>[kKMB])(?![A-Za-z0-9]))?"
    r"[ -]?$"
)
"""The number right before a unit, its scale included, searched for in a few characters
before the unit only: each unit looks back a bounded way, so the text is read once."""
_BEFORE = 48
"""How far before a unit its number may start."""
_POWER_UNITS = {"k": "kW", "m": "MW", "g": "GW", "t": "TW"}
_AT_LEAST = ("more than", "over", "above", "at least", "beyond", "upwards of", "in excess of")
_AT_MOST = ("up to", "nearly", "almost", "under", "less than", "below", "at most")
_ABOUT = ("about", "around", "roughly", "approximately", "some", "circa", "close to", "~")


@dataclass(frozen=True, slots=True)
class Quantity:
    """A number with a unit said in prose, in its dimension's base unit."""

    start: int
    end: int
    value: float
    dimension: str
    """`power`, `chips` or `compute`."""
    low: float
    high: float
    """The range the words allow (`high` may be infinite, `low` zero)."""

    def allows(self, value: float) -> bool:
        return self.low <= value <= self.high


def quantities(text: str) -> list[Quantity]:
    """Every quantity of power, chips or H100-equivalents said in `text`, in order."""
    found = []
    for unit_match in _units(text):
        at = unit_match.start()
        match = _NUMBER.search(text, max(0, at - _BEFORE), at)
        if match is None:
            continue
        unit, dimension = _unit(unit_match)
        if dimension != "power" and _model_number(text, match):
            continue
        value, step = _number(match)
        factor = to_base(1.0, unit)[0]
        value, step = value * factor, step * factor
        low, high = value - step, value + step
        said = _qualifier(text, match.start())
        if said == "about":
            low, high = min(low, value * 0.9), max(high, value * 1.1)
        elif said == "at least":
            high = math.inf
        elif said == "at most":
            low = 0.0
        found.append(Quantity(match.start(), unit_match.end(), value, dimension, low, high))
    return found


_ANCHORS = ("W", "att", "GPU", "gpu", "hip", "ccelerator", "H10")
"""What every unit holds (`kW` to `TW` and `Watts` a W, `megawatts` an `att`, `chips` a
`hip`, `H100e` an `H10`, …): found by `str.find`, far faster than the unit pattern tried
at each place."""
_MODEL_PLURAL = re.compile(r"\d[A-Z]?s\b")
"""What a chip's name in the plural holds (`GB200s`), the one unit no anchor finds."""
_AROUND = (40, 24)
"""How far before and after an anchor its unit may start and end."""


def _units(text: str) -> list[re.Match[str]]:
    """Every unit of `text`, found near its anchors only: each window around one is read
    once (the windows joined where they overlap), so the text is read a bounded number
    of times."""
    anchors = [m.start() for m in _MODEL_PLURAL.finditer(text)]
    for anchor in _ANCHORS:
        at = text.find(anchor)
        while at >= 0:
            anchors.append(at)
            at = text.find(anchor, at + 1)
    before, after = _AROUND
    windows = merged((max(0, at - before), at + after) for at in anchors)
    return [m for start, end in windows for m in _UNIT.finditer(text, start, end)]


def _number(match: re.Match[str]) -> tuple[float, float]:
    """The number, its scale applied, and half a step of its last significant digit."""
    if match["digits"]:
        whole = match["digits"].replace(",", "")
        decimals = match["decimals"] or ""
        value = float(f"{whole}.{decimals}" if decimals else whole)
        if decimals:
            step = 10.0 ** -len(decimals)
        else:
            step = 10.0 ** (len(whole) - len(whole.rstrip("0"))) if whole.strip("0") else 1.0
    else:
        value = word_value(match["words"])
        step = 100.0 if value >= 100 and value % 100 == 0 else (10.0 if value % 10 == 0 else 1.0)
    scale = match["scale"] or match["abbr"]
    if scale:
        factor = SCALES.get(scale, SCALES.get(scale.lower(), 1.0))
        value, step = value * factor, step * factor
    return value, step / 2


def _unit(match: re.Match[str]) -> tuple[str, str]:
    """The unit as the registry writes it, and its dimension."""
    if match["power"]:
        return _POWER_UNITS[match["power"][0].lower()], "power"
    if match["compute"]:
        return "H100e", "compute"
    return "chip", "chips"


_NAMED_BEFORE = re.compile(r"\b[A-Z][A-Za-z]*[ -]$")


def _model_number(text: str, match: re.Match[str]) -> bool:
    """Whether a small bare number stands in a chip's name, not a count: `Trainium 2
    chips`, `Gaudi 3 accelerators`."""
    digits = match["digits"]
    if not digits or "," in digits or match["decimals"] or len(digits) > 3:
        return False
    return _NAMED_BEFORE.search(text, max(0, match.start() - 24), match.start()) is not None


def _qualifier(text: str, start: int) -> str | None:
    """What the words just before a number say of it: `about`, `at least` or `at most`."""
    before = " ".join(text[max(0, start - 24) : start].lower().split())
    for words, said in ((_AT_LEAST, "at least"), (_AT_MOST, "at most"), (_ABOUT, "about")):
        if any(before.endswith(word) and _word_start(before, word) for word in words):
            return said
    return None


def _word_start(before: str, word: str) -> bool:
    at = len(before) - len(word)
    return at == 0 or not before[at - 1].isalnum() or word == "~"
