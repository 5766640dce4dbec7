"""What the record says of a campus against what its figures show, once compiled.

A campus may say its `status`; the stage the site shows is computed from its figures
(`campus_stage`, docs/database.md). Where the two disagree on the record's day, check
says so: the figures decide, and the page shows theirs.
"""

from __future__ import annotations

from sourcebook.compile.database import CompiledRecord
from sourcebook.derive.sandbox import in_process
from sourcebook.diagnostics import Diagnostics
from sourcebook.incremental import QueryRuns
from sourcebook.model.record import Record

SAME_STAGE = {"planned": "announced"}
"""A campus said to be planned is announced, as a planned figure announces."""


def check_claims(
    record: Record, image: bytes, diagnostics: Diagnostics, kept: QueryRuns | None = None
) -> None:
    """A campus whose `status` is not the stage its figures show (F031, a warning). The
    stages are read again only where what they are computed from changed (`kept`)."""
    stages = in_process(image, campus_stages, runs=kept)
    for campus in record.of("campus"):
        said = getattr(campus, "status", None)
        shown = stages.get(campus.id)
        if said is None or shown is None:
            continue
        value = SAME_STAGE.get(said.value, said.value)
        if value != shown:
            diagnostics.warning(
                campus.pos("status"),
                "F031",
                f"campus '{campus.id}' says it is {said.value}; its figures show it {shown}",
                "the site shows the stage its figures show: remove 'status', or add the "
                "figure that shows it " + said.value,
            )


def campus_stages(db: CompiledRecord) -> dict[str, str]:
    """Each campus's stage on the record's day, as `campus_stage` computes it."""
    return {r["campus"]: r["stage"] for r in db.rows("SELECT campus, stage FROM campus_stage")}
