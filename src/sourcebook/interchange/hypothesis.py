"""Hypothesis annotations, as its API returns them (`{"rows": […]}`, or the list alone) and
as its client's Export button writes them (`{"export_date": …, "annotations": […]}`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from sourcebook.interchange.works import FormatError


@dataclass(frozen=True)
class Annotation:
    """One highlight: the words it marks on a page, and the words either side of them."""

    id: str
    uri: str
    exact: str
    prefix: str = ""
    suffix: str = ""
    note: str = ""
    tags: tuple[str, ...] = ()
    created: str = ""

    def as_highlight(self) -> dict[str, Any]:
        """The source's `highlights:` entry, empty parts left out."""
        entry: dict[str, Any] = {
            "exact": self.exact,
            "prefix": self.prefix,
            "suffix": self.suffix,
            "hypothesis": self.id,
            "created": self.created,
            "note": self.note,
            "tags": list(self.tags),
        }
        return {name: value for name, value in entry.items() if value}


@dataclass
class Export:
    highlights: list[Annotation] = field(default_factory=list)
    page_notes: int = 0
    """Annotations of a whole page, with no words selected: nothing to quote."""


def read_hypothesis(path: Path) -> Export:
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as exc:
        raise FormatError(f"{path}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}") from None
    except UnicodeDecodeError as exc:
        raise FormatError(f"{path}: not UTF-8 text ({exc.reason})") from None
    rows = _rows(data)
    if not isinstance(rows, list):
        raise FormatError(
            f"{path}: not a Hypothesis export: no list of annotations ('rows' or 'annotations')"
        )
    export = Export()
    for row in rows:
        found = _annotation(row) if isinstance(row, dict) else None
        if found is None:
            export.page_notes += 1
        else:
            export.highlights.append(found)
    return export


def _rows(data: Any) -> Any:
    if not isinstance(data, dict):
        return data
    return data["annotations"] if "annotations" in data else data.get("rows")


def _annotation(row: dict[str, Any]) -> Annotation | None:
    for target in row.get("target") or []:
        for selector in target.get("selector") or [] if isinstance(target, dict) else []:
            if selector.get("type") == "TextQuoteSelector" and selector.get("exact"):
                return Annotation(
                    id=str(row.get("id") or ""),
                    uri=str(row.get("uri") or target.get("source") or ""),
                    exact=" ".join(str(selector["exact"]).split()),
                    # Where the words stand on the page: kept as written, edge spaces and all.
                    prefix=str(selector.get("prefix") or ""),
                    suffix=str(selector.get("suffix") or ""),
                    note=str(row.get("text") or "").strip(),
                    tags=tuple(str(t) for t in row.get("tags") or []),
                    created=str(row.get("created") or ""),
                )
    return None


def url_key(url: str) -> str:
    """An address as compared: scheme, fragment, `utm_` parameters, a trailing slash and
    the host's case do not count."""
    parts = urlsplit(url.strip())
    query = [
        (k, v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
        if not k.lower().startswith("utm_")
    ]
    host = parts.netloc.lower()
    path = parts.path.rstrip("/")
    return host + path + ("?" + urlencode(query) if query else "")
