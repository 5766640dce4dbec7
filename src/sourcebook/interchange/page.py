"""Fill a source's empty fields from what its web page says of itself.

`library add URL --source ID` reads the page's metadata (`library.metadata`: title,
authors, site, days) and offers it for the source. Only a field the source leaves empty
is written, each in its own lines of the file (`editor`); what the author wrote is never
overwritten, and what the page says otherwise is shown beside it. Authors become people
and the site a publishing party, matched to the record's by name and alias as a Zotero
import matches them, or written as new files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sourcebook.diagnostics import Diagnostics
from sourcebook.files import write_atomic
from sourcebook.interchange.creators import NewEntity, Roster
from sourcebook.interchange.editor import EditError, EntityFile
from sourcebook.interchange.works import Creator
from sourcebook.library.intake import Intake
from sourcebook.library.metadata import PageMetadata

_FOLDERS = {"person": "people", "party": "parties"}


@dataclass
class Offer:
    """What the page offers a source: the fields filled, and those the author has."""

    path: Path
    filled: list[tuple[str, Any]] = field(default_factory=list)
    kept: list[tuple[str, Any, Any]] = field(default_factory=list)
    """(field, the source's value, the page's)."""
    new: list[NewEntity] = field(default_factory=list)
    text: str = ""
    """The source file as it would be once filled."""


def offer(root: Path, path: Path, page: PageMetadata, url: str | None) -> Offer:
    """What the page would fill in the source file at `path` (nothing is written)."""
    relative = path.relative_to(root)
    try:
        entity = EntityFile(path.read_text(encoding="utf-8"), relative.as_posix())
    except (OSError, UnicodeDecodeError) as exc:
        raise EditError(f"{relative.as_posix()}: {exc}") from None
    result = Offer(relative)
    said: dict[str, Any] = {
        "title": page.title,
        "date": page.published,
        "updated": page.updated,
        "urls": [url] if url else None,
    }
    # The page's people and site as the record's ids, so that a source that names them
    # already is seen to agree with the page.
    roster = _roster(root) if page.authors or page.site else None
    if roster is not None and page.authors:
        said["authors"] = _people(roster, page.authors)
    if roster is not None and page.site:
        said["publisher"] = roster.party(page.site, "publisher")
    for name in ("title", "authors", "publisher", "date", "updated", "urls"):
        value = said.get(name)
        if not value:
            continue
        have = entity.get(name)
        if have in (None, "", []):
            result.filled.append((name, value))
            entity.set(name, value)
        elif name != "urls" and _shown(have) != _shown(value):
            result.kept.append((name, have, _page_value(name, page) or value))
    used = {
        v for name, value in result.filled if name in ("authors", "publisher") for v in _ids(value)
    }
    result.new = [new for new in (roster.new if roster else []) if new.id in used]
    result.text = entity.text()
    return result


def offer_for(root: Path, intake: Intake, fill: bool) -> Offer | None:
    """What the page an original was fetched from offers its source; written where `fill`
    and the source's fields were empty. Raises EditError for a source that cannot be edited."""
    if intake.page is None or intake.source is None:
        return None
    made = offer(root, intake.source, intake.page, intake.item.url)
    if fill and made.filled:
        write_offer(root, made)
    return made


def write_offer(root: Path, made: Offer) -> None:
    """Write the filled source and the new people and parties it names."""
    for new in made.new:
        target = root / _FOLDERS[new.kind] / f"{new.id}.md"
        if not target.exists():
            write_atomic(target, new.text.encode("utf-8"))
    write_atomic(root / made.path, made.text.encode("utf-8"))


def _roster(root: Path) -> Roster:
    from sourcebook.read import read_record

    record = read_record(root, Diagnostics())
    entities = [*record.of("person"), *record.of("party")] if record is not None else []
    return Roster.of(entities)


def _people(roster: Roster, names: tuple[str, ...]) -> list[str]:
    from sourcebook.model.person_names import split_name, suffix_of

    ids = []
    for name in names:
        given, family = split_name(name)
        ids.append(roster.person(Creator(given=given, family=family, suffix=suffix_of(name))))
    return ids


def _page_value(name: str, page: PageMetadata) -> Any:
    return {"authors": list(page.authors), "publisher": page.site}.get(name)


def _ids(value: Any) -> list[str]:
    return value if isinstance(value, list) else [value]


def _shown(value: Any) -> str:
    """A value as compared with the page's: case, accents and spacing aside."""
    from sourcebook.model.person_names import folded

    return folded(" ".join(str(value).split()))
