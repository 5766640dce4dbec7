"""What the descriptive files of a release say of it: the book, the version, the day."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from sourcebook.model.settings import Settings


@dataclass(frozen=True)
class About:
    settings: Settings
    version: str
    day: date
    """The day the data stands at: the record's close, never the day it was released."""

    @property
    def title(self) -> str:
        return f"{self.settings.book.title}: data release {self.version}"

    @property
    def name(self) -> str:
        """The book's title as a lowercase name: the-ai-compute-race."""
        return re.sub(r"[^a-z0-9]+", "-", self.settings.book.title.lower()).strip("-") or "record"

    @property
    def url(self) -> str:
        """The companion site's address; empty where the settings do not give it."""
        site = self.settings.site
        return f"{site.base_url.rstrip('/')}{site.base_path}" if site.base_url else ""

    @property
    def description(self) -> str:
        book = self.settings.book
        what = f"{book.title}: {book.subtitle}" if book.subtitle else book.title
        return (
            f"The source-checked record of {what}, as it stood on {self.day.isoformat()}: "
            "every entity, figure, quote, link and source, with evidence grades."
        )

    @property
    def licence_url(self) -> str:
        return f"https://spdx.org/licenses/{self.settings.book.licence}.html"
