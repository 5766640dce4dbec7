"""What the record says of a campus against what its figures show, once compiled.

A campus may say its `status`; the stage the site shows is computed from its figures
(`campus_stage`, docs/database.md). Where the two disagree on the record's day, check
says so: the figures decide, and the page shows theirs.
"""

from __future__ import annotations

from sourcebook.compile.database import open_image
from sourcebook.diagnostics import Diagnostics
from sourcebook.model.record import Record

SAME_STAGE = {"planned": "announced"}
"""A campus said to be planned is announced, as a planned figure announces."""


def check_claims(record: Record, image: bytes, diagnostics: Diagnostics) -> None:
    """A campus whose `status` is not the stage its figures show (F031, a warning)."""
    with open_image(image) as db:
        rows = db.rows("SELECT campus, stage FROM campus_stage")
        stages = {r["campus"]: r["stage"] for r in rows}
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
