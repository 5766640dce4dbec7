"""The figures of campuses and parties as pages word them, for templates as `figures`: a
figure's value in words, a metric's name. A campus's stage, power and chips are derive's
(`computed.py`), one meaning for every page.

What derive computed from them (timelines, conflicts, scorecard values) is `computed.py`;
the figures tables themselves are the `figure_rows` macro.
"""

from __future__ import annotations

from sourcebook.incremental import read_field
from sourcebook.model.base import Entity
from sourcebook.model.figures import placed
from sourcebook.model.kinds import Figure
from sourcebook.publish.site.view.wording import number, sentence_case

METRIC_WORDS = {"it": "IT", "gpu": "GPU", "gpus": "GPUs", "pue": "PUE", "usd": "USD"}


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
        read_field(owner, "figures")  # as the owner holds them
        return {p.id: p.figure for p in placed(owner)}

    def metric(self, name: str) -> str:
        """'it-power' → 'IT power'."""
        words = [METRIC_WORDS.get(w, w) for w in name.replace("_", "-").split("-") if w]
        return sentence_case(" ".join(words))
