"""CSL-JSON, as Zotero and Better BibTeX export it and as Zotero imports it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from sourcebook.interchange.works import (
    URL_LINE,
    Creator,
    FormatError,
    Work,
    bare_doi,
    day_from_parts,
    page_range,
)

_KEY_IN_NOTE = re.compile(r"^\s*Citation Key:\s*(\S+)", re.M | re.I)


def read_csl(path: Path) -> list[Work]:
    """The items of a CSL-JSON file: a list of items (or one item)."""
    text = path.read_text(encoding="utf-8-sig")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(f"{path}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}") from None
    items = data if isinstance(data, list) else [data]
    lines = _item_lines(text, len(items))
    works = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise FormatError(f"{path}:{lines[index]}: item {index + 1} is not a JSON object")
        works.append(_work(item, lines[index], f"{path}:{lines[index]}"))
    return works


def _item_lines(text: str, count: int) -> list[int]:
    """The line each top-level item starts on (JSON keeps no positions; a scan does)."""
    lines: list[int] = []
    depth, line, in_string, escaped = 0, 1, False, False
    for char in text:
        if char == "\n":
            line += 1
        elif in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if char == "{" and depth == 2:
                lines.append(line)
        elif char in "]}":
            depth -= 1
    return lines if len(lines) == count else [1] * count


def _work(item: dict[str, Any], line: int, where: str) -> Work:
    key = _key(item)
    if not key:
        raise FormatError(f"{where}: an item with no citation key or id")
    return Work(
        key=key,
        type=str(item.get("type") or "document"),
        title=_text(item.get("title")),
        line=line,
        authors=[_creator(c) for c in item.get("author") or [] if isinstance(c, dict)],
        container=_text(item.get("container-title")),
        publisher=_text(item.get("publisher")),
        date=_date(item.get("issued")),
        url=_text(item.get("URL")),
        more_urls=URL_LINE.findall(str(item.get("note") or "")),
        doi=bare_doi(_text(item.get("DOI"))),
        pages=page_range(_text(item.get("page"))),
        volume=_text(item.get("volume")),
        place=_text(item.get("publisher-place")),
        accessed=_date(item.get("accessed")),
        language=_text(item.get("language")),
        zotero=_zotero(item),
    )


def _key(item: dict[str, Any]) -> str:
    """Better BibTeX's `citation-key` (Zotero 7's own too), else a key in the note as older
    Better BibTeX wrote it, else the item's id where it is not a Zotero address."""
    for name in ("citation-key", "citationKey"):
        if item.get(name):
            return str(item[name])
    found = _KEY_IN_NOTE.search(str(item.get("note") or ""))
    if found:
        return found[1]
    ident = str(item.get("id") or "")
    return ident.rstrip("/").rsplit("/", 1)[-1]


def _zotero(item: dict[str, Any]) -> str:
    ident = str(item.get("id") or "")
    return ident if "zotero.org" in ident else ""


def _text(value: Any) -> str:
    if isinstance(value, list):
        value = value[0] if value else ""
    return " ".join(str(value).split()) if value is not None else ""


def _creator(creator: dict[str, Any]) -> Creator:
    if creator.get("literal"):
        return Creator(literal=_text(creator["literal"]))
    particle = _text(creator.get("non-dropping-particle"))
    family = " ".join(p for p in (particle, _text(creator.get("family"))) if p)
    given = " ".join(
        p for p in (_text(creator.get("given")), _text(creator.get("dropping-particle"))) if p
    )
    if not family:
        return Creator(literal=given)
    return Creator(given=given, family=family, suffix=_text(creator.get("suffix")))


def _date(issued: Any) -> str:
    if not isinstance(issued, dict):
        return ""
    parts = issued.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list):
        return day_from_parts(parts[0])
    raw = str(issued.get("raw") or issued.get("literal") or "")
    found = re.match(r"^(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?", raw.strip())
    return day_from_parts([g for g in found.groups() if g]) if found else ""


def write_csl(works: list[Work]) -> str:
    """CSL-JSON that Zotero imports with the same keys: `id` and `citation-key` are each
    source's citation key (its id, where it has none of its own)."""
    return json.dumps([_item(w) for w in works], indent=2, ensure_ascii=False) + "\n"


def _item(work: Work) -> dict[str, Any]:
    item: dict[str, Any] = {"id": work.key, "citation-key": work.key, "type": work.type}
    item["title"] = work.title
    authors = [_author(c) for c in work.authors]
    if authors:
        item["author"] = authors
    fields = {
        "container-title": work.container,
        "publisher": work.publisher,
        "publisher-place": work.place,
        "volume": work.volume,
        "page": page_range(work.pages, "-"),
        "URL": work.url,
        "DOI": work.doi,
        "language": work.language,
        "note": "\n".join(work.more_urls),
    }
    item.update({name: value for name, value in fields.items() if value})
    for name, day in (("issued", work.date), ("accessed", work.accessed)):
        if day:
            item[name] = {"date-parts": [[int(p) for p in day.split("-")]]}
    return item


def _author(creator: Creator) -> dict[str, str]:
    if creator.literal:
        return {"literal": creator.literal}
    names = {"family": creator.family, "given": creator.given, "suffix": creator.suffix}
    return {part: name for part, name in names.items() if name}
