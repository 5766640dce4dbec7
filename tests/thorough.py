"""How many examples the longest property tests try.

Each tries enough to find what it has found before within the suite's few minutes; set
`SOURCEBOOK_THOROUGH=N` to try N times as many (a night's run, or after a change to the
engine the test holds)."""

from __future__ import annotations

import os


def examples(usual: int) -> int:
    """`usual`, times SOURCEBOOK_THOROUGH when it is set to a whole number above 1."""
    factor = os.environ.get("SOURCEBOOK_THOROUGH", "1")
    return usual * max(1, int(factor)) if factor.isdigit() else usual
