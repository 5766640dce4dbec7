"""Import a Zotero library's items as sources, and import it again without loss.

Zotero owns some fields of a source (`OWNED`); the author owns the rest. What the last
import wrote of each owned field is kept in the record's `imports/zotero.json`, so that
a re-import can tell three values apart: what Zotero said then, what the file says now
and what Zotero says now. Zotero's change is written where the author left the field
as imported; the author's edit is kept where Zotero did not change it; and where both
changed it, the field is a conflict: reported and left as the author has it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sourcebook.diagnostics import Diagnostics
from sourcebook.files import write_atomic
from sourcebook.interchange.creators import Roster
from sourcebook.interchange.editor import EditError, EntityFile, render
from sourcebook.interchange.works import ITALIC_TYPES, Work, category_of, record_id
from sourcebook.model.base import MAX_NAME_LENGTH
from sourcebook.model.person_names import folded

STATE_FILE = Path("imports") / "zotero.json"
STATE_VERSION = 1
NEWS_TYPES = ("article-newspaper", "article-magazine", "article")
"""Items whose publication is their publisher: the newspaper is the party that publishes."""
OWNED = (
    "title",
    "csl_type",
    "citation_key",
    "authors",
    "organizations",
    "publisher",
    "publication",
    "date",
    "doi",
    "volume",
    "pages",
    "publisher_place",
    "accessed",
    "language",
)
"""Fields of a source that Zotero owns, besides its own address among the `urls`."""


class ImportProblem(Exception):
    """An import that cannot go ahead; one line for a person."""


@dataclass
class FieldChange:
    name: str
    old: Any
    new: Any


@dataclass
class Conflict:
    name: str
    yours: Any
    zoteros: Any
    imported: Any


@dataclass
class FileChange:
    """What an import does to one file."""

    path: Path
    """Relative to the record."""
    action: str
    """create, update or unchanged."""
    text: str = ""
    changes: list[FieldChange] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    work: Work | None = None
    """For a source: the item imported into it."""
    owned: dict[str, Any] = field(default_factory=dict)
    """For a source: the fields Zotero owns, as it gives them now."""


@dataclass
class Plan:
    files: list[FileChange] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)

    def count(self, action: str, folder: str | None = None) -> int:
        return sum(
            1
            for f in self.files
            if f.action == action and (folder is None or f.path.parts[0] == folder)
        )


def plan_import(root: Path, works: list[Work], shown: str) -> Plan:
    """What importing `works` (read from the file shown as `shown`) would change."""
    from sourcebook.read import read_record

    record = read_record(root, Diagnostics())
    if record is None:
        raise ImportProblem(
            f"{root.as_posix()}: its sourcebook.toml cannot be read: "
            f"'sourcebook check {root.as_posix()}' says why"
        )
    roster = Roster.of([*record.of("person"), *record.of("party")])
    state = read_state(root)
    plan = Plan(state=state)
    seen: dict[str, Work] = {}
    keys = record.citation_keys()
    for work in works:
        ident = _claim_id(work, seen, state, shown, plan, keys.get(work.key))
        if ident is None:
            continue
        owned = _owned(work, roster)
        owned["citation_key"] = work.key if work.key != ident else None
        path = _source_path(root, ident)
        if path is None:
            change = _created(ident, work, owned)
        else:
            change = _updated(root, path, ident, owned, state)
        change.work, change.owned = work, owned
        plan.files.append(change)
    plan.files += [
        FileChange(Path(_FOLDERS[new.kind]) / f"{new.id}.md", "create", new.text)
        for new in roster.new
    ]
    return plan


_FOLDERS = {"person": "people", "party": "parties", "source": "sources"}


def _claim_id(
    work: Work,
    seen: dict[str, Work],
    state: dict[str, Any],
    shown: str,
    plan: Plan,
    holder: str | None,
) -> str | None:
    """The id of the source the item goes to: the source that gives its key (renamed by the
    author, perhaps), else the key made an id."""
    ident = holder or record_id(work.key)
    earlier = seen.get(ident)
    imported = state["sources"].get(ident, {}).get("key")
    if not ident:
        plan.problems.append(f"{shown}:{work.line}: citation key '{work.key}' makes no id")
    elif len(ident) > MAX_NAME_LENGTH:
        plan.problems.append(
            f"{shown}:{work.line}: citation key '{work.key[:40]}…' makes an id of "
            f"{len(ident):,} characters; an id has at most {MAX_NAME_LENGTH}: give it a shorter key"
        )
    elif earlier is not None:
        plan.problems.append(
            f"{shown}:{work.line}: citation key '{work.key}' makes the id '{ident}', as "
            f"'{earlier.key}' on line {earlier.line} does: give one of them another key"
        )
    elif imported is not None and imported != work.key:
        plan.problems.append(
            f"{shown}:{work.line}: citation key '{work.key}' makes the id '{ident}', which "
            f"an earlier import gave to '{imported}': give one of them another key"
        )
    else:
        seen[ident] = work
        return ident
    return None


def _owned(work: Work, roster: Roster) -> dict[str, Any]:
    people = [roster.person(c) for c in work.authors if c.is_person]
    bodies = [roster.party(c.name, "company") for c in work.authors if not c.is_person and c.name]
    publisher = roster.party(work.publisher, "publisher") if work.publisher else None
    same = publisher is not None and folded(work.container) == folded(work.publisher)
    if publisher is None and work.container and work.type in NEWS_TYPES:
        publisher = roster.party(work.container, "publisher")
        same = True
    return {
        "title": work.title,
        "csl_type": work.type,
        "authors": people,
        "organizations": list(dict.fromkeys(bodies)),
        "publisher": publisher,
        "publication": None if same else work.container or None,
        "date": work.date or None,
        "doi": work.doi or None,
        "volume": work.volume or None,
        "pages": work.pages or None,
        "publisher_place": work.place or None,
        "accessed": work.accessed or None,
        "language": work.language or None,
        "url": work.url or None,
    }


def _created(ident: str, work: Work, owned: dict[str, Any]) -> FileChange:
    fields: dict[str, Any] = {"title": owned["title"], "category": category_of(work.type).value}
    fields.update({name: owned[name] for name in OWNED if name != "title"})
    urls = [owned["url"]] if owned["url"] else []
    fields["urls"] = urls + [u for u in dict.fromkeys(work.more_urls) if u not in urls]
    if work.type in ITALIC_TYPES:
        fields["italic_title"] = True
    front = "".join(render(k, v) for k, v in fields.items() if v not in (None, "", []))
    return FileChange(Path("sources") / f"{ident}.md", "create", f"---\n{front}---\n")


def _updated(
    root: Path,
    path: Path,
    ident: str,
    owned: dict[str, Any],
    state: dict[str, Any],
) -> FileChange:
    relative = path.relative_to(root)
    try:
        entity = EntityFile(path.read_text(encoding="utf-8"), relative.as_posix())
    except (EditError, OSError, UnicodeDecodeError) as exc:
        raise ImportProblem(str(exc)) from None
    base = state["sources"].get(ident, {}).get("fields", {})
    change = FileChange(relative, "unchanged")
    for name in OWNED:
        _merge(entity, name, owned[name], base.get(name, NEVER), change)
    _merge_url(entity, owned["url"], base.get("url"), change)
    if change.changes:
        change.action = "update"
        change.text = entity.text()
    return change


NEVER = object()
"""The last import's value of a field no import has written."""


def _merge(entity: EntityFile, name: str, theirs: Any, base: Any, change: FileChange) -> None:
    """Zotero's value where the author left the field as imported (or empty); a conflict
    where both changed it."""
    yours, theirs = _value(entity.get(name)), _value(theirs)
    imported = _value(base) if base is not NEVER else NEVER
    if yours == theirs or imported == theirs:
        return
    if yours is None or yours == imported:
        change.changes.append(FieldChange(name, yours, theirs))
        entity.set(name, theirs)
    else:
        shown = None if imported is NEVER else imported
        change.conflicts.append(Conflict(name, yours, theirs, shown))


def _merge_url(entity: EntityFile, theirs: Any, base: Any, change: FileChange) -> None:
    """Zotero owns its own address among the source's urls; the author's others stay."""
    urls = [str(u) for u in entity.get("urls") or []]
    if theirs is None or theirs == base or theirs in urls:
        return
    if base in urls or not urls:
        updated = [theirs if u == base else u for u in urls] if base in urls else [theirs]
        change.changes.append(FieldChange("urls", urls, updated))
        entity.set("urls", updated)
    else:
        change.conflicts.append(Conflict("urls", urls, theirs, base))


def _value(value: Any) -> Any:
    """A value as compared: days as text, empty as None."""
    if value in ("", []):
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


def _source_path(root: Path, ident: str) -> Path | None:
    from sourcebook.library.attach import source_file

    return source_file(root, ident)


def next_state(plan: Plan) -> dict[str, Any]:
    """What the record remembers of this import: each source's owned fields as Zotero gave
    them, except a conflict's, which keeps the value of the import before."""
    state: dict[str, Any] = json.loads(json.dumps(plan.state))
    for change in plan.files:
        if change.work is None:
            continue
        before = state["sources"].get(change.path.stem, {}).get("fields", {})
        fields = dict(change.owned)
        for conflict in change.conflicts:
            name = "url" if conflict.name == "urls" else conflict.name
            fields[name] = before.get(name)
        entry: dict[str, Any] = {"key": change.work.key, "fields": fields}
        if change.work.zotero:
            entry["zotero"] = change.work.zotero
        state["sources"][change.path.stem] = entry
    return state


def read_state(root: Path) -> dict[str, Any]:
    path = root / STATE_FILE
    if not path.is_file():
        return {"version": STATE_VERSION, "sources": {}}
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ImportProblem(f"{STATE_FILE.as_posix()}: cannot be read: {exc}") from None
    state.setdefault("sources", {})
    return state


def write_plan(root: Path, plan: Plan) -> None:
    """Write the files the plan creates or updates, and what the record remembers of it."""
    state = next_state(plan)
    for change in plan.files:
        if change.action in ("create", "update"):
            write_atomic(root / change.path, change.text.encode("utf-8"))
    if state == plan.state:  # nothing imported, or nothing new: the record stays as it was
        return
    text = json.dumps(state, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    write_atomic(root / STATE_FILE, text.encode("utf-8"))
