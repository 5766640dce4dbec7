"""What a web page says about itself: its title, authors, site, and days of publication.

trafilatura reads the page's metadata (meta tags, Open Graph, JSON-LD, bylines) and
htmldate its days, from the page's bytes as decoded by `charset`. A pure piece, for
`library add URL --source ID` to fill a source from the page it fetched.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sourcebook.library.charset import decode_page


@dataclass(frozen=True)
class PageMetadata:
    title: str | None = None
    authors: tuple[str, ...] = ()
    site: str | None = None
    """The site's or publication's own name (og:site_name), where it gives one."""
    published: str | None = None
    """YYYY-MM-DD, where the page says when it was first published."""
    updated: str | None = None
    """YYYY-MM-DD, where the page says it was changed since."""
    description: str | None = None
    language: str | None = None


def page_metadata(
    data: bytes,
    url: str | None = None,
    content_type: str | None = None,
    prepare: Callable[[str], str] | None = None,
) -> PageMetadata:
    """The metadata of the page whose bytes are `data`, fetched from `url`; `prepare`,
    if given, makes the decoded page safe to parse first (bounds its nesting)."""
    from trafilatura import extract_metadata

    html = decode_page(data, content_type).text
    if prepare is not None:
        html = prepare(html)
    found = extract_metadata(html, default_url=url)
    if found is None:
        return PageMetadata(published=_day(html, url, original=True))
    published = found.date or _day(html, url, original=True)
    updated = _day(html, url, original=False)
    return PageMetadata(
        title=found.title or None,
        authors=_authors(found.author),
        site=found.sitename or None,
        published=published,
        updated=updated if updated and updated != published else None,
        description=found.description or None,
        language=found.language or None,
    )


def _day(html: str, url: str | None, original: bool) -> str | None:
    from htmldate import find_date

    found = find_date(html, url=url, original_date=original, outputformat="%Y-%m-%d")
    return str(found) if found else None


def _authors(joined: str | None) -> tuple[str, ...]:
    """trafilatura gives several authors as one string, joined with semicolons."""
    return tuple(a.strip() for a in (joined or "").split(";") if a.strip())
