"""RIS, as Zotero exports it: read with rispy.

RIS carries no citation key (Better BibTeX can add one as `ID`), so an item without one
is keyed by its first author's family name, its year and the first word of its title
that is not an article; an item whose author, year or title then changes in Zotero
comes back under another key. CSL-JSON and Better BibTeX keep their keys.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sourcebook.interchange.works import Creator, FormatError, Work, bare_doi

RIS_TO_CSL = {
    "JOUR": "article-journal",
    "JFULL": "article-journal",
    "NEWS": "article-newspaper",
    "MGZN": "article-magazine",
    "RPRT": "report",
    "BOOK": "book",
    "EBOOK": "book",
    "CHAP": "chapter",
    "ECHAP": "chapter",
    "CONF": "paper-conference",
    "CPAPER": "paper-conference",
    "THES": "thesis",
    "ELEC": "webpage",
    "WEB": "webpage",
    "BLOG": "post-weblog",
    "DATA": "dataset",
    "UNPB": "manuscript",
}
_ARTICLES = {"a", "an", "the"}


def read_ris(path: Path) -> list[Work]:
    import rispy

    text = path.read_text(encoding="utf-8-sig")
    starts = [n for n, line in enumerate(text.splitlines(), 1) if line.startswith("TY  -")]
    try:
        entries = rispy.loads(text)
    except (OSError, ValueError, KeyError) as exc:
        line = starts[0] if starts else 1
        raise FormatError(f"{path}:{line}: not RIS: {exc}") from None
    if len(starts) != len(entries):
        starts = [1] * len(entries)
    return [_work(entry, line) for entry, line in zip(entries, starts, strict=True)]


def _work(entry: dict[str, Any], line: int) -> Work:
    authors = [_creator(name) for name in entry.get("authors") or entry.get("first_authors") or []]
    title = str(entry.get("title") or entry.get("primary_title") or "")
    date = _date(str(entry.get("date") or ""), str(entry.get("year") or ""))
    first, last = str(entry.get("start_page") or ""), str(entry.get("end_page") or "")
    urls = entry.get("urls") or []
    return Work(
        key=str(entry.get("id") or "") or _key(authors, date, title),
        type=RIS_TO_CSL.get(str(entry.get("type_of_reference")), "document"),
        title=title,
        line=line,
        authors=authors,
        container=str(entry.get("secondary_title") or entry.get("journal_name") or ""),
        publisher=str(entry.get("publisher") or ""),
        date=date,
        url=str(urls[0]) if urls else "",
        doi=bare_doi(str(entry.get("doi") or "")),
        pages="–".join(p for p in (first, last) if p),
    )


def _creator(name: str) -> Creator:
    parts = [part.strip() for part in name.split(",")]
    if len(parts) == 1:
        return Creator(literal=parts[0])
    suffix = parts[2] if len(parts) > 2 else ""
    return Creator(given=parts[1], family=parts[0], suffix=suffix)


def _date(date: str, year: str) -> str:
    """YYYY[-MM[-DD]] from RIS's `YYYY/MM/DD/other`, else from its year."""
    parts = [p for p in date.split("/")[:3] if p.strip()]
    if parts and re.fullmatch(r"\d{4}", parts[0]):
        return "-".join([parts[0], *(f"{int(p):02d}" for p in parts[1:] if p.isdigit())])
    return year if re.fullmatch(r"\d{4}", year) else ""


def _key(authors: list[Creator], date: str, title: str) -> str:
    who = authors[0].family or authors[0].literal if authors else ""
    words = [w for w in re.findall(r"\w+", title.lower()) if w not in _ARTICLES]
    return f"{who}{date[:4]}{words[0] if words else ''}"


CSL_TO_RIS = {csl: ris for ris, csl in reversed(RIS_TO_CSL.items())}


def write_ris(works: list[Work]) -> str:
    """RIS that Zotero, EndNote and Mendeley import: one record per work, its key as `ID`."""
    return "".join(_record(work) for work in works)


def _record(work: Work) -> str:
    lines = [("TY", CSL_TO_RIS.get(work.type, "GEN")), ("ID", work.key), ("TI", work.title)]
    lines += [("AU", _ris_name(c)) for c in work.authors]
    lines += [
        (tag, value)
        for tag, value in (("T2", work.container), ("PB", work.publisher), ("SP", work.pages))
        if value
    ]
    if work.date:
        parts = work.date.split("-")
        lines += [("PY", parts[0]), ("DA", "/".join(parts + [""] * (3 - len(parts))))]
    lines += [(tag, value) for tag, value in (("DO", work.doi), ("UR", work.url)) if value]
    lines.append(("ER", ""))
    return "".join(f"{tag}  - {' '.join(value.split())}\r\n" for tag, value in lines)


def _ris_name(creator: Creator) -> str:
    if creator.literal:
        return creator.literal
    return ", ".join(part for part in (creator.family, creator.given, creator.suffix) if part)
