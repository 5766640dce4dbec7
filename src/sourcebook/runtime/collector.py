"""Python's cycle collector, held off while a stage builds the record's objects.

Reading, linking, compiling and deriving from a large record make millions of objects
that live as long as the record. The cycle collector would look at each of them again and
again as it grows (a fifth of a check's time at 10,000 entities) and find little to free.
So each such stage runs with it paused, and leaves what it made among the oldest objects,
where it is looked at only when a full collection comes due.
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
