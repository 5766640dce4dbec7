"""BibTeX and BibLaTeX, as Better BibTeX exports them and as Zotero imports them.

Read with bibtexparser (v2), its names split into parts; LaTeX in titles and names
(`{\\'E}tudes`, `\\&`) is decoded by pylatexenc, addresses and DOIs are kept as written.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

from sourcebook.interchange.works import URL_LINE, Creator, FormatError, Work, bare_doi, page_range
from sourcebook.model.bibtex import braced

BIB_TO_CSL = {
    "article": "article-journal",
    "inproceedings": "paper-conference",
    "conference": "paper-conference",
    "techreport": "report",
    "report": "report",
    "book": "book",
    "incollection": "chapter",
    "inbook": "chapter",
    "phdthesis": "thesis",
    "mastersthesis": "thesis",
    "thesis": "thesis",
    "online": "webpage",
    "electronic": "webpage",
    "www": "webpage",
    "dataset": "dataset",
    "unpublished": "manuscript",
    "misc": "document",
}
SUBTYPES = {"newspaper": "article-newspaper", "magazine": "article-magazine"}
CSL_TO_BIB = {
    "article-journal": "article",
    "article-newspaper": "article",
    "article-magazine": "article",
    "paper-conference": "inproceedings",
    "report": "techreport",
    "book": "book",
    "chapter": "incollection",
    "thesis": "phdthesis",
    "webpage": "online",
    "post-weblog": "online",
    "dataset": "dataset",
    "manuscript": "unpublished",
}
_CONTAINERS = ("journaltitle", "journal", "booktitle", "series")
_PUBLISHERS = ("publisher", "institution", "organization", "school")
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
BABEL = {
    "english": "en",
    "british": "en-GB",
    "american": "en-US",
    "canadian": "en-CA",
    "australian": "en-AU",
    "ngerman": "de",
    "german": "de",
    "french": "fr",
    "spanish": "es",
    "italian": "it",
    "dutch": "nl",
    "portuguese": "pt",
    "brazilian": "pt-BR",
    "danish": "da",
    "swedish": "sv",
    "norsk": "nb",
    "finnish": "fi",
    "polish": "pl",
    "czech": "cs",
    "russian": "ru",
    "greek": "el",
    "turkish": "tr",
    "japanese": "ja",
    "korean": "ko",
    "chinese": "zh",
    "estonian": "et",
}
"""BibLaTeX's `langid` (a babel language name, as Better BibTeX writes it) and the BCP 47
tag Zotero and CSL keep for it; a name not here is kept as it is written."""
LANGID = {tag: name for name, tag in reversed(BABEL.items())}


def read_bibtex(path: Path) -> list[Work]:
    import bibtexparser
    from bibtexparser import middlewares

    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)
    text = path.read_text(encoding="utf-8-sig")
    library = bibtexparser.parse_string(
        text, append_middleware=[middlewares.SeparateCoAuthors(), middlewares.SplitNameParts()]
    )
    if library.failed_blocks:
        block = library.failed_blocks[0]
        error = getattr(block, "error", None)
        reason = getattr(error, "abort_reason", None) or str(error) or "it cannot be read"
        raise FormatError(f"{path}:{(block.start_line or 0) + 1}: not BibTeX: {reason}")
    return [_work(entry) for entry in library.entries]


def _work(entry: Any) -> Work:
    fields = {key.lower(): value for key, value in entry.fields_dict.items()}

    def text(*names: str) -> str:
        for name in names:
            if name in fields and fields[name].value:
                return _decoded(str(fields[name].value))
        return ""

    def raw(name: str) -> str:
        return str(fields[name].value).strip() if name in fields else ""

    kind = entry.entry_type.lower()
    csl_type = SUBTYPES.get(raw("entrysubtype").lower(), BIB_TO_CSL.get(kind, "document"))
    if kind == "misc" and raw("url"):
        csl_type = "webpage"
    authors = fields["author"].value if "author" in fields else []
    return Work(
        key=entry.key,
        type=csl_type,
        title=text("title"),
        line=entry.start_line + 1,
        authors=[_creator(name) for name in authors],
        container=text(*_CONTAINERS),
        publisher=text(*_PUBLISHERS),
        date=_date(raw("date"), raw("year"), raw("month")),
        url=raw("url"),
        more_urls=URL_LINE.findall(raw("note")),
        doi=bare_doi(raw("doi")),
        pages=page_range(text("pages")),
        volume=text("volume"),
        place=text("location", "address"),
        accessed=_date(raw("urldate"), "", ""),
        language=_language(raw("langid") or raw("language")),
    )


def _language(name: str) -> str:
    return BABEL.get(name.strip().lower(), name.strip())


def _creator(name: Any) -> Creator:
    last = " ".join(name.last)
    if not name.first and not name.von and last.startswith("{") and last.endswith("}"):
        return Creator(literal=_decoded(last))
    family = _decoded(" ".join([*name.von, *name.last]))
    given = _decoded(" ".join(name.first))
    suffix = _decoded(" ".join(name.jr))
    if not given:
        return Creator(literal=family)
    return Creator(given=given, family=family, suffix=suffix)


def _decoded(value: str) -> str:
    if "\\" not in value and "{" not in value and "~" not in value:
        return " ".join(value.split())
    from pylatexenc.latex2text import LatexNodes2Text

    return " ".join(LatexNodes2Text().latex_to_text(value).split())


def _date(date: str, year: str, month: str) -> str:
    found = re.match(r"^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?", date)
    if found:
        return "-".join(g for g in found.groups() if g)
    if not re.fullmatch(r"\d{4}", year):
        return ""
    month = month.strip().lower()[:3]
    if month in MONTHS:
        return f"{year}-{MONTHS.index(month) + 1:02d}"
    return f"{year}-{int(month):02d}" if month.isdigit() and 1 <= int(month) <= 12 else year


def write_bibtex(works: list[Work]) -> str:
    """BibTeX that Zotero imports with the same keys; TeX's special characters escaped,
    text in UTF-8 as Better BibTeX writes it."""
    return "\n".join(_entry(work) for work in works)


def _entry(work: Work) -> str:
    kind = CSL_TO_BIB.get(work.type, "misc")
    fields: list[tuple[str, str]] = [("title", "{" + braced(work.title) + "}")]
    if work.authors:
        fields.append(("author", "{" + " and ".join(_bib_name(c) for c in work.authors) + "}"))
    container = "journaltitle" if kind == "article" else "booktitle"
    if work.container:
        fields.append((container if kind != "online" else "howpublished", braced(work.container)))
    subtype = {"article-newspaper": "newspaper", "article-magazine": "magazine"}.get(work.type)
    if subtype:
        fields.append(("entrysubtype", braced(subtype)))
    if work.publisher:
        name = "institution" if kind == "techreport" else "publisher"
        fields.append((name, braced(work.publisher)))
    if work.place:
        fields.append(("location", braced(work.place)))
    if work.date:
        fields += [("date", f"{{{work.date}}}"), ("year", f"{{{work.date[:4]}}}")]
    written = {"volume": work.volume, "pages": page_range(work.pages, "--")}
    fields += [(name, braced(value)) for name, value in written.items() if value]
    verbatim = {"doi": work.doi, "url": work.url, "urldate": work.accessed}
    fields += [(name, f"{{{value}}}") for name, value in verbatim.items() if value]
    if work.language:
        fields.append(("langid", braced(LANGID.get(work.language, work.language))))
    if work.more_urls:
        fields.append(("note", "{" + "\n".join(work.more_urls) + "}"))
    lines = [f"  {name} = {value}," for name, value in fields]
    return f"@{kind}{{{work.key},\n" + "\n".join(lines) + "\n}\n"


def _bib_name(creator: Creator) -> str:
    """`Family, Given` (`Family, Jr., Given`), or a literal name braced as one family name."""
    if creator.literal:
        return braced(creator.literal)
    parts = [creator.family, creator.suffix, creator.given]
    return ", ".join(_escaped(part) for part in parts if part)


def _escaped(text: str) -> str:
    return braced(text)[1:-1]
