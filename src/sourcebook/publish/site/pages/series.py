"""A volume's place in its series: where the house keeps "Where its sources were wrong"."""

from __future__ import annotations

from dataclasses import dataclass, field

from sourcebook.model.addresses import safe_link


@dataclass(frozen=True)
class InSeries:
    url: str
    """The house's page of the series' corrections of sources, this book's part first;
    '' where there is none."""
    corrected: dict[str, str] = field(default_factory=dict)
    """Each source of the volume corrected somewhere in the series → its place on that page."""
    home: str = ""
    """The house's front page, every volume of the series; '' for a volume built alone."""

    @classmethod
    def alone(cls, series_corrections_url: str) -> InSeries:
        """A volume built alone: the series' page is `[site] series_corrections_url`."""
        url = series_corrections_url if safe_link(series_corrections_url) else ""
        return cls(url)
