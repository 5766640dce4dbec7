"""Hypothesis highlights added to the sources whose addresses they were made on.

Each new highlight is kept in the source's `highlights:` list (its words, the words
either side that locate it in the copy, the annotation's id) and its words are appended
to the source's annotation in curly quotes, where check proves them like any quote.
A highlight already kept (by its id) is not added again.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from sourcebook.diagnostics import Diagnostics
from sourcebook.files import write_atomic
from sourcebook.interchange.editor import EditError, EntityFile
from sourcebook.interchange.hypothesis import Annotation, url_key
from sourcebook.interchange.zotero import ImportProblem
from sourcebook.link.prose import quote_spans


@dataclass
class Added:
    path: Path
    """Relative to the record."""
    quotes: list[str]
    text: str


@dataclass
class HighlightPlan:
    added: list[Added] = field(default_factory=list)
    already: int = 0
    unmatched: Counter[str] = field(default_factory=Counter)
    shared: dict[str, list[str]] = field(default_factory=dict)
    """Addresses that several sources hold: which, so that the author can say."""


def plan_highlights(root: Path, highlights: list[Annotation]) -> HighlightPlan:
    from sourcebook.library.attach import source_file
    from sourcebook.read import read_record

    record = read_record(root, Diagnostics())
    if record is None:
        raise ImportProblem(
            f"{root.as_posix()}: its sourcebook.toml cannot be read: "
            f"'sourcebook check {root.as_posix()}' says why"
        )
    holders: dict[str, list[str]] = defaultdict(list)
    for source in record.of("source"):
        for url in getattr(source, "urls", []):
            if source.id not in holders[url_key(url)]:
                holders[url_key(url)].append(source.id)
    plan = HighlightPlan()
    by_source: dict[str, list[Annotation]] = defaultdict(list)
    for highlight in highlights:
        ids = holders.get(url_key(highlight.uri), [])
        if len(ids) == 1:
            by_source[ids[0]].append(highlight)
        elif ids:
            plan.shared[highlight.uri] = ids
        else:
            plan.unmatched[highlight.uri] += 1
    for source_id, found in sorted(by_source.items()):
        path = source_file(root, source_id)
        if path is not None:
            _add(root, path, found, plan)
    return plan


def _add(root: Path, path: Path, highlights: list[Annotation], plan: HighlightPlan) -> None:
    relative = path.relative_to(root)
    try:
        entity = EntityFile(path.read_text(encoding="utf-8"), relative.as_posix())
    except (EditError, OSError, UnicodeDecodeError) as exc:
        raise ImportProblem(str(exc)) from None
    kept = list(entity.get("highlights") or [])
    known = {str(h.get("hypothesis")) for h in kept if isinstance(h, dict)}
    quotes: list[str] = []
    for highlight in highlights:
        if highlight.id and highlight.id in known:
            plan.already += 1
            continue
        known.add(highlight.id)
        kept.append(highlight.as_highlight())
        quote = quoted(highlight.exact)
        if quote not in str(entity.get("annotation") or ""):
            entity.append_prose("annotation", quote)
        quotes.append(quote)
    if quotes:
        entity.set("highlights", kept)
        plan.added.append(Added(relative, quotes, entity.text()))


def quoted(words: str) -> str:
    """Words in curly quotes; curly double marks inside that do not balance are made
    straight, which proves the same (normalization rule 4) and splits no quote."""
    quote = f"“{words}”"
    if quote_spans(quote).unbalanced:
        quote = "“" + words.replace("“", '"').replace("”", '"') + "”"
    return quote


def write_highlights(root: Path, plan: HighlightPlan) -> None:
    for added in plan.added:
        write_atomic(root / added.path, added.text.encode("utf-8"))
