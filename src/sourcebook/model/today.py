"""What day it is: the day an open record stands at, by the machine's clock or, for a build
that must be made again alike, by the reproducible-builds variable `SOURCE_DATE_EPOCH`."""

from __future__ import annotations

import os
from datetime import UTC, date, datetime

EPOCH_VARIABLE = "SOURCE_DATE_EPOCH"
"""The reproducible-builds variable that, set, says what day it is: its whole seconds since
1970 (UTC). An open record stands at that day, so a build of it can be made again later."""
LAST_SECOND = 253_402_300_799
"""The last second of 9999-12-31, the last day a date can be."""


def epoch_problem() -> str | None:
    """What is wrong with `SOURCE_DATE_EPOCH`, or None when it is unset or well formed."""
    given = os.environ.get(EPOCH_VARIABLE)
    if given is None or (given.isascii() and given.isdigit() and int(given) <= LAST_SECOND):
        return None
    return f"{EPOCH_VARIABLE}={given[:40]!r} is not a whole number of seconds since 1970"


def today() -> date:
    """Today, in UTC where `SOURCE_DATE_EPOCH` says it, else by this machine's clock: the day
    an open record stands at. The one clock of the record's days."""
    given = os.environ.get(EPOCH_VARIABLE)
    if given is not None and epoch_problem() is None:
        return datetime.fromtimestamp(int(given), UTC).date()
    return date.today()
