"""The figures of campuses and parties as pages word them, for templates as `figures`: a
figure's value in words, a campus's latest power or chips, a metric's name.

What derive computed from them (timelines, conflicts, scorecard values) is `computed.py`;
the figures tables themselves are the `figure_rows` macro.
"""

from __future__ import annotations

from sourcebook.model.base import Entity, day_end
from sourcebook.model.figures import Placed
from sourcebook.model.kinds import Campus, Figure
from sourcebook.publish.site.wording import number, sentence_case

METRIC_WORDS = {"it": "IT", "gpu": "GPU", "gpus": "GPUs", "pue": "PUE", "usd": "USD"}
STATUS_RANK = {"operating": 2, "under construction": 1}
POWER_UNITS = {"W": 1e-6, "kW": 1e-3, "MW": 1.0, "GW": 1e3}
"""Units of power, in MW, for the ledger's 'latest power'."""


class Figures:
    def shown(self, figure: Figure) -> str:
        """'about 1,000 MW', '$20,000,000,000', '200,000 chips (H100)'."""
        value = number(figure.value)
        if figure.unit == "USD":
            text = f"${value}"
        elif figure.unit.startswith("USD/"):
            text = f"${value} per {figure.unit[4:]}"
        else:
            text = f"{value} {figure.unit}"
        if figure.chip:
            text += f", {figure.chip}" if "(" in figure.chip else f" ({figure.chip})"
        return f"{figure.qualifier} {text}" if figure.qualifier else text

    def by_id(self, owner: Entity) -> dict[str, Figure]:
        """The owner's figures by the ids the compiled record gives them (see `Placed`), as
        derive's timelines name them."""
        figures = getattr(owner, "figures", [])
        return {Placed(owner, i, f).id: f for i, f in enumerate(figures)}

    def latest(self, campus: Campus, what: str) -> Figure | None:
        """The campus's power ('power') or chips ('chips') as far as the record has them.

        What is running counts before what is being built, and that before what is only
        announced or projected; within each, the latest figure.
        """
        if what == "power":
            found = [f for f in campus.figures if f.unit in POWER_UNITS]
        else:
            found = [f for f in campus.figures if f.unit == "chips" or f.metric == "chips"]
        ranked = [
            (STATUS_RANK.get(f.status.value, 0), day_end(f.as_of), i, f)
            for i, f in enumerate(found)
        ]
        return max(ranked)[3] if ranked else None

    def power_mw(self, figure: Figure) -> float:
        return figure.value * POWER_UNITS.get(figure.unit, 1.0)

    def metric(self, name: str) -> str:
        """'it-power' → 'IT power'."""
        words = [METRIC_WORDS.get(w, w) for w in name.replace("_", "-").split("-") if w]
        return sentence_case(" ".join(words))
