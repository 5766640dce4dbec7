"""What reference managers read from a page: citation meta tags and COinS.

Zotero's connector saves one item from a page's `citation_*` meta tags (the Highwire
Press tags Google Scholar reads), so each source has a small page of its own that
carries them (/vol1/sources/press/ID). A category page lists many sources; there each
carries a COinS span (`class="Z3988"`), which Zotero offers as several items at once.
"""

from __future__ import annotations

from urllib.parse import urlencode

from sourcebook.model.kinds import Category, Party, Source
from sourcebook.model.person_names import name_parts
from sourcebook.model.record import Record

ARTICLE_TYPES = ("article-journal", "article-newspaper", "article-magazine", "article")


def citation_meta(record: Record, source: Source, page_url: str) -> list[tuple[str, str]]:
    """(name, content) of each meta tag, in the order Zotero's translator expects them."""
    tags = [("citation_title", source.title)]
    tags += [
        ("citation_author", f"{family}, {given}".strip(", "))
        for given, family in _authors(record, source)
    ]
    if source.date:
        tags.append(("citation_publication_date", source.date.replace("-", "/")))
        tags.append(("citation_date", source.date.replace("-", "/")))
    publisher = _publisher(record, source)
    container = source.publication or (publisher if _article(source) else "")
    if container:
        tags.append(
            ("citation_journal_title" if _article(source) else "citation_inbook_title", container)
        )
    if publisher:
        tags.append(("citation_publisher", publisher))
    if source.doi:
        tags.append(("citation_doi", source.doi))
    first, _, last = (source.pages or "").replace("–", "-").partition("-")
    tags += [(n, v) for n, v in (("citation_firstpage", first), ("citation_lastpage", last)) if v]
    for url in source.urls:
        if url.lower().split("?")[0].endswith(".pdf"):
            tags.append(("citation_pdf_url", url))
            break
    if source.urls:
        tags.append(("citation_public_url", source.urls[0]))
    tags.append(("citation_abstract_html_url", page_url))
    return [(name, value) for name, value in tags if value]


def coins(record: Record, source: Source) -> str:
    """The ContextObject (OpenURL 1.0, KEV) of a COinS span's title."""
    pairs = [("ctx_ver", "Z39.88-2004"), ("rfr_id", "info:sid/sourcebook")]
    publisher = _publisher(record, source)
    if _article(source):
        pairs += [("rft_val_fmt", "info:ofi/fmt:kev:mtx:journal"), ("rft.genre", "article")]
        pairs += [("rft.atitle", source.title)]
        container = source.publication or publisher
        pairs += [("rft.jtitle", container)] if container else []
    else:
        pairs += [("rft_val_fmt", "info:ofi/fmt:kev:mtx:book"), ("rft.genre", _genre(source))]
        pairs += [("rft.btitle", source.title)]
        pairs += [("rft.pub", publisher)] if publisher else []
    for given, family in _authors(record, source):
        pairs += [("rft.au", f"{family}, {given}".strip(", "))]
    pairs += [("rft.date", source.date)] if source.date else []
    pairs += [("rft.pages", source.pages)] if source.pages else []
    pairs += [("rft_id", f"info:doi/{source.doi}")] if source.doi else []
    pairs += [("rft_id", source.urls[0])] if source.urls else []
    return urlencode(pairs)


def _authors(record: Record, source: Source) -> list[tuple[str, str]]:
    people = (record.get("person", a) for a in source.authors)
    return [name_parts(p) for p in people if p is not None]


def _publisher(record: Record, source: Source) -> str:
    party = record.get("party", source.publisher) if source.publisher else None
    return party.title if isinstance(party, Party) else ""


def _article(source: Source) -> bool:
    if source.csl_type:
        return source.csl_type in ARTICLE_TYPES
    return source.category is Category.PRESS


def _genre(source: Source) -> str:
    return "report" if source.csl_type == "report" or source.italic_title else "document"
