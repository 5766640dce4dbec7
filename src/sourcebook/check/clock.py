"""The known-day clock (`model/known.py`) of a record, kept from run to run.

The clock reads the entities of the kinds `CLOCKED` names, the Library's captures and the
day the record stands at, and nothing else: where each of those entities was read from the
same file (`Record.read_as`, which for a record without its drafts also names the drafts it
leaves out), the captures and the day are the same, it is the clock the last run computed.
At 10,000 entities it takes about 60 ms to compute, once for the record checked and once
for the record as published, and a third of that to read back: a run after an edit that
touched none of them (a sentence of a term, a chapter's prose) reads it back.
"""

from __future__ import annotations

from sourcebook.incremental import CHECKED, Memo, key_of
from sourcebook.model.known import CLOCKED, clock_of_plain, known, plain_clock
from sourcebook.model.record import Record


def kept_clock(record: Record, memo: Memo | None) -> None:
    """Have `record`'s clock (`known`) be the one `memo` keeps under what the clock reads
    of it (the objects themselves where the memo holds them, `serve`'s); else computed and
    kept. Nothing is kept of a record with an entity of those kinds that was not read
    from a file: nothing says it is the same; nothing is looked up for a record that has
    its clock already (compile's of the record check gave it to)."""
    if memo is None or record.has_once("known"):
        return
    parts: list[str | bytes] = [str(record.settings.book.stands_at())]
    parts += [f"{item.shelf} {item.captured}" for item in record.library]
    for kind in CLOCKED:
        for entity in record.of(kind):
            read_as = record.read_as.get(entity.key)
            if read_as is None:
                return
            parts += [entity.id, read_as]
    key = key_of(CHECKED, "known-day clock", *parts)
    clock = memo.lookup_as(key, clock_of_plain)
    if clock is None:
        made = known(record)
        memo.record(key, plain_clock(made))
        memo.hold(key, made)
    else:
        record.once("known", lambda _record: clock)
