"""A page of the site: its URL, its template and what the template needs; and the files
written beside the pages under names of their own."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

NOT_FOUND_URL = "/404.html"
ROBOTS_URL = "/robots.txt"
ROOT_URL = "/"
"""Where the volume has a base path, the host's root leads to it (not to a folder's listing)."""
FEED_TEMPLATE = "feed.atom"
SEARCH_TEMPLATE = "search.html"
CSV_TEMPLATE = "chart:csv"
PDF_TEMPLATE = "paper:pdf"
"""Pseudo-templates of files that are not pages: a chart's data, the paper typeset."""


class MachineContext:
    """The machine page's context: the page is drawn from derive's result, which exists
    only once the build has derived (`drawing.machine_page.machine_of`); its JSON twin is
    that drawing's document (`formats.twins`)."""


@dataclass(frozen=True, slots=True)
class Page:
    url: str
    template: str
    context: dict[str, Any] = field(default_factory=dict)
    listed: bool = True
    """Listed in the sitemap (the 404 page is not)."""
