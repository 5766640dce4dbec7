"""Python's cycle collector, held off while a stage builds the record's objects.

Reading, linking, compiling and deriving from a large record make millions of objects
that live as long as the record. The cycle collector would look at each of them again and
again as it grows (a fifth of a check's time at 10,000 entities) and find little to free.
So each such stage runs with it paused, and leaves what it made among the oldest objects,
where it is looked at only when a full collection comes due; and a command that ends its
process when it is done (`check`, `build`, `release`) runs with it paused throughout, as
its objects live as long as the process (at 10,000 entities, a build after an edit ran
four full collections, 0.6 s, and a cold build three, 1.1 s, for 2% more peak memory).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

from sourcebook.runtime.switches import plain


@contextmanager
def collector_paused() -> Iterator[None]:
    """Hold off the cycle collector for the block (or the function it decorates), unless
    the `collector` speed-up is off."""
    if not gc.isenabled() or plain("collector"):
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        # Freezing then unfreezing moves every object to the oldest generation unscanned;
        # not where the caller keeps objects frozen, which unfreezing would let go.
        if not gc.get_freeze_count():
            gc.freeze()
            gc.unfreeze()
        gc.enable()


IDLE_SECONDS = 2.0
"""How long a process that works in bursts has waited for the next before its oldest
objects are collected (`Bursts.idle`)."""
MOST_BURSTS = 8
"""Bursts at most between two collections of the oldest objects, however close together."""
IDLE_OBJECTS = 10_000
"""Objects made since the last collection past which a wait collects, though no burst came
(a server's requests make a few at a time)."""


class Bursts:
    """The cycle collector of a process that works in bursts and waits between them:
    `serve`, which rebuilds at each save and then serves what it built.

    Python collects its oldest objects when enough new ones have joined them; in a process
    holding a large record, that pause (a second at 10,000 entities) fell inside one save in
    three or four, between the edit and the page shown. Held (`hold`), the collector never
    runs by itself: what a burst made is moved, unscanned, among the oldest objects when it
    ends (`worked`), and the oldest are collected once the process has waited
    IDLE_SECONDS for the next burst (`idle`), or after MOST_BURSTS bursts without such a
    wait. The cycles a save leaves are freed between saves, not in one. Not held where the
    `collector` speed-up is off, or the collector is off already.
    """

    def __init__(self) -> None:
        self.held = False
        self.due = 0
        """Bursts since the oldest objects were last collected."""
        self.collected = 0
        """Collections of the oldest objects made here (for tests and the bench)."""

    def hold(self) -> None:
        """Hold the collector off for the process, from now on."""
        if plain("collector") or not gc.isenabled():
            return
        gc.disable()
        self.held = True

    def release(self) -> None:
        """The collector as Python runs it again."""
        if self.held:
            self.held = False
            gc.enable()

    def worked(self) -> None:
        """A burst is over: what it made is moved among the oldest objects, unscanned; they
        are collected now where MOST_BURSTS have passed without a wait."""
        if not self.held:
            return
        if not gc.get_freeze_count():
            gc.freeze()
            gc.unfreeze()
        self.due += 1
        if self.due >= MOST_BURSTS:
            self.idle()

    def idle(self) -> None:
        """The process waits for the next burst: the oldest objects are collected, where a
        burst has ended since they last were, or IDLE_OBJECTS were made between."""
        if self.held and (self.due or gc.get_count()[0] >= IDLE_OBJECTS):
            gc.collect()
            self.due = 0
            self.collected += 1
