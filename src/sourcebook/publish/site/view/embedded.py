"""Values the record says in prose without typing them: `![[kind:id|what]]`.

Each is worded from what derive computed, as the page that computes it words it (the
scorecard's row, the campus's page, the test's verdict), and linked there, so that a new
figure or a correction changes it wherever the record says it. What each kind embeds is
`link.prose.EMBEDDED`; docs/record-format.md ("Values said in prose") lists them.
"""

from __future__ import annotations

from sourcebook.link.prose import EMBEDDED
from sourcebook.model.base import Entity
from sourcebook.model.record import Record
from sourcebook.publish.site.pages.urls import Urls
from sourcebook.publish.site.view.computed import Computed
from sourcebook.publish.site.view.prose_html import Said

NONE_YET = "no value yet"
"""What prose says where derive computed nothing (a row with no answer, a campus with no
evidenced power)."""


class Embedded:
    """What prose says of the values derive computed, for one build."""

    def __init__(self, computed: Computed, record: Record, urls: Urls):
        self.computed = computed
        self.record = record
        self.urls = urls

    def said(self, entity: Entity, what: str | None) -> Said | None:
        """The words and the link of `what` of `entity` (its kind's first where None);
        None where the kind embeds no such thing."""
        embeds = EMBEDDED.get(entity.KIND, ())
        what = what or (embeds[0] if embeds else None)
        if what not in embeds:
            return None
        if entity.KIND == "indicator":
            return self._row(entity, what)
        if entity.KIND == "campus":
            return self._campus(entity, what)
        verdict = self.computed.verdict(entity)
        return Said(self.computed.outcome(verdict).lower(), self.urls.page_of(entity))

    def _row(self, indicator: Entity, what: str) -> Said:
        row = self.computed.row(indicator)
        answer = row.answer if row is not None else None
        if what == "campus":
            campus = self.record.get("campus", answer.campus) if answer and answer.campus else None
            if campus is None:
                return Said(NONE_YET, self.urls.page_of(indicator))
            return Said(campus.title, self.urls.page_of(campus))
        shown = answer.shown if answer is not None else None
        return Said(shown if shown is not None else NONE_YET, self.urls.page_of(indicator))

    def _campus(self, campus: Entity, what: str) -> Said:
        state = self.computed.campus(campus)
        page = self.urls.page_of(campus)
        if state is None:
            return Said(NONE_YET, page)
        if what == "stage":
            return Said(state.stage, page)
        carried = state.power if what == "power" else state.chips
        if carried is None:
            return Said(NONE_YET, page)
        words = self.computed.power(carried) if what == "power" else self.computed.chips(carried)
        return Said(words, f"{page}#figure-{carried.figure}" if page else None)
