"""Files read as Zotero reads them on import: each item as the fields Zotero keeps.

Zotero is not run here; its import rules are, as its documentation and translators give
them: CSL-JSON by Zotero's CSL mappings (`container-title` is the publication,
`publisher-place` the place, `accessed` the Access Date, `note` the Extra, `citation-key`
the Citation Key), BibLaTeX by Better BibTeX's (`location` is the place, `urldate` the
Access Date, `langid` a babel name for the language, `pages` with `--` for a range,
`{{Name}}` an author of one name). Two files whose items read the same here are the same
library to Zotero.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import bibtexparser
from bibtexparser import middlewares
from pylatexenc.latex2text import LatexNodes2Text

FIELDS = (
    "itemType",
    "citationKey",
    "title",
    "creators",
    "publicationTitle",
    "publisher",
    "place",
    "volume",
    "pages",
    "date",
    "url",
    "DOI",
    "accessDate",
    "language",
    "extra",
)
"""The fields compared, in Zotero's names."""

CSL_TYPES = {
    "article-journal": "journalArticle",
    "article-newspaper": "newspaperArticle",
    "article-magazine": "magazineArticle",
    "paper-conference": "conferencePaper",
    "report": "report",
    "webpage": "webpage",
    "book": "book",
}
BIB_TYPES = {
    "article": "journalArticle",
    "inproceedings": "conferencePaper",
    "report": "report",
    "techreport": "report",
    "online": "webpage",
    "book": "book",
}
BABEL = {"english": "en", "british": "en-GB", "american": "en-US", "danish": "da"}


def items_from_csl(path: Path) -> dict[str, dict[str, Any]]:
    """Each item of a CSL-JSON file by its citation key, as Zotero's fields."""
    return {item["citation-key"]: _csl_item(item) for item in json.loads(path.read_text())}


def _csl_item(item: dict[str, Any]) -> dict[str, Any]:
    fields = {
        "itemType": CSL_TYPES[item["type"]],
        "citationKey": item.get("citation-key", ""),
        "title": item.get("title", ""),
        "creators": [_csl_creator(c) for c in item.get("author", [])],
        "publicationTitle": item.get("container-title", ""),
        "publisher": item.get("publisher", ""),
        "place": item.get("publisher-place", ""),
        "volume": str(item.get("volume", "")),
        "pages": item.get("page", ""),
        "date": _parts(item.get("issued")),
        "url": item.get("URL", ""),
        "DOI": item.get("DOI", ""),
        "accessDate": _parts(item.get("accessed")),
        "language": item.get("language", ""),
        "extra": item.get("note", ""),
    }
    return _kept(fields)


def _csl_creator(creator: dict[str, str]) -> tuple[str, ...]:
    if "literal" in creator:
        return (creator["literal"],)
    return (creator["family"], creator["given"])


def _parts(date: dict[str, Any] | None) -> str:
    if not date:
        return ""
    return "-".join(f"{int(p):02d}" for p in date["date-parts"][0])


def items_from_bibtex(path: Path) -> dict[str, dict[str, Any]]:
    """Each entry of a BibLaTeX file by its key, as Zotero's fields (Better BibTeX's import)."""
    library = bibtexparser.parse_string(
        path.read_text(encoding="utf-8"),
        append_middleware=[middlewares.SeparateCoAuthors(), middlewares.SplitNameParts()],
    )
    assert not library.failed_blocks
    return {entry.key: _bib_item(entry) for entry in library.entries}


def _bib_item(entry: Any) -> dict[str, Any]:
    raw = {k.lower(): str(v.value) for k, v in entry.fields_dict.items() if k.lower() != "author"}
    kind = BIB_TYPES[entry.entry_type.lower()]
    if raw.get("entrysubtype") == "newspaper":
        kind = "newspaperArticle"
    names = entry.fields_dict["author"].value if "author" in entry.fields_dict else []
    fields = {
        "itemType": kind,
        "citationKey": entry.key,
        "title": _text(raw.get("title", "")),
        "creators": [_bib_creator(name) for name in names],
        "publicationTitle": _text(raw.get("journaltitle") or raw.get("booktitle") or ""),
        "publisher": _text(raw.get("publisher") or raw.get("institution") or ""),
        "place": _text(raw.get("location", "")),
        "volume": raw.get("volume", ""),
        "pages": raw.get("pages", "").replace("--", "-"),
        "date": raw.get("date", ""),
        "url": raw.get("url", ""),
        "DOI": raw.get("doi", ""),
        "accessDate": raw.get("urldate", ""),
        "language": BABEL.get(raw.get("langid", ""), raw.get("langid", "")),
        "extra": raw.get("note", ""),
    }
    return _kept(fields)


def _bib_creator(name: Any) -> tuple[str, ...]:
    last = " ".join(name.last)
    if not name.first and last.startswith("{") and last.endswith("}"):
        return (_text(last),)
    return (_text(" ".join([*name.von, *name.last])), _text(" ".join(name.first)))


def _text(value: str) -> str:
    return " ".join(LatexNodes2Text().latex_to_text(value).split()) if value else ""


def _kept(fields: dict[str, Any]) -> dict[str, Any]:
    """The fields an item has: Zotero keeps no empty field."""
    return {name: value for name, value in fields.items() if value not in ("", [])}


def field_table(items: dict[str, dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(item, field, value) of every field of every item: what a round trip must keep."""
    return [
        (key, name, re.sub(r"\s+", " ", str(item[name])))
        for key, item in items.items()
        for name in FIELDS
        if name in item
    ]
