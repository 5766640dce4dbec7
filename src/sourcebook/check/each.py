"""The rules that look at one entity at a time, their results kept from run to run.

An entity rule reads one entity and the record's settings, nothing else: what it finds
in an entity read from the same file (its text and path, `Record.read_as`) under the
same settings is the same, so it is kept under the hash of those (`incremental.Memo`) and the
next run reports it again without looking. An edit of one file checks that file's
entity again; a change of settings, or of sourcebook, checks them all.

Rules that compare entities with each other, or read the links between them, the Library
or the compiled record stay whole-record rules (`check.RULES`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from sourcebook.diagnostics import Diagnostic, Diagnostics, Pos, Severity
from sourcebook.incremental import CHECKED, Memo, key_of
from sourcebook.model.base import Entity
from sourcebook.model.record import Record
from sourcebook.model.settings import Settings

EntityRule = Callable[[Entity, Settings, Diagnostics], None]

Plain = tuple[str, int, int, str, str, str, str | None]
"""A diagnostic as `marshal` keeps it: file, line, col, severity, code, message, hint."""


def check_each(
    record: Record, rules: Sequence[EntityRule], diagnostics: Diagnostics, kept: Memo
) -> None:
    """Every rule over every entity, each entity's results taken from `kept` where it was
    read as before under the same settings, and kept there where it was not."""
    names = "\0".join(f"{rule.__module__}.{rule.__qualname__}" for rule in rules)
    # An open record's dates are checked against today: the day is part of the key.
    settings = record.settings
    under = key_of(CHECKED, names, settings.model_dump_json(), str(settings.book.stands_at()))
    run = partial(_run_plain, settings=settings, rules=rules)
    for found in kept.each(under, record, record.read_as, _diagnostics, run):
        diagnostics.extend(found)


def _run(entity: Entity, settings: Settings, rules: Sequence[EntityRule]) -> tuple[Diagnostic, ...]:
    found = Diagnostics()
    for rule in rules:
        rule(entity, settings, found)
    return tuple(found.items)


def _run_plain(entity: Entity, settings: Settings, rules: Sequence[EntityRule]) -> list[Plain]:
    return [_plain(d) for d in _run(entity, settings, rules)]


def _plain(diagnostic: Diagnostic) -> Plain:
    pos = diagnostic.pos
    return (pos.file, pos.line, pos.col, diagnostic.severity.value, diagnostic.code,
            diagnostic.message, diagnostic.hint)  # fmt: skip


def _diagnostics(plain: object) -> tuple[Diagnostic, ...] | None:
    """The diagnostics kept, or None where what is kept is not a list of them."""
    try:
        found = tuple(
            Diagnostic(Pos(file, line, col), Severity(severity), code, message, hint)
            for file, line, col, severity, code, message, hint in plain  # type: ignore[attr-defined]
        )
    except (TypeError, ValueError):
        return None
    typed = all(
        type(d.pos.file) is str and type(d.pos.line) is int and type(d.pos.col) is int
        and type(d.code) is str and type(d.message) is str and type(d.hint) in (str, type(None))
        for d in found
    )  # fmt: skip
    return found if typed else None
