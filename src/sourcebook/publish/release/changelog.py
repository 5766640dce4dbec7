"""What changed since the previous release, read from the two releases' JSON files.

A figure is the same figure in both releases when it has the same `id`; a figure without
one (its id is `kind:owner:n`) when it has the same owner, metric, chip, status, as_of and
source, so that a figure moved in its list is not taken for a changed one. A quote is
corrected when, in one field of one entity, a quote of a source gave way to another
quote of the same source; a figure's quote, when the figure's quote changed.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sourcebook.publish.release.version import ReleaseError

Row = dict[str, Any]
Snapshot = dict[str, list[Row]]
SNAPSHOT_TABLES = ("entities", "figures", "quotes", "corrections", "sources")
SAME_FIGURE = ("owner_kind", "owner_id", "metric", "chip", "status", "as_of", "source")
"""What makes a figure without an id the same figure in two releases."""


@dataclass
class Changelog:
    version: str
    previous: str | None
    added: list[Row] = field(default_factory=list)
    """New entities, by kind and id; new corrections are in `corrections` instead."""
    removed: list[Row] = field(default_factory=list)
    figures_changed: list[Row] = field(default_factory=list)
    figures_added: list[Row] = field(default_factory=list)
    """New figures of campuses and parties that both releases have."""
    figures_removed: list[Row] = field(default_factory=list)
    quotes_corrected: list[Row] = field(default_factory=list)
    corrections: list[Row] = field(default_factory=list)

    @property
    def first(self) -> bool:
        return self.previous is None

    def counts(self) -> dict[str, int]:
        return {name: len(rows) for name, rows in asdict(self).items() if isinstance(rows, list)}

    def as_json(self) -> dict[str, Any]:
        return {"first": self.first, **asdict(self)}


def read_snapshot(release: Path) -> Snapshot:
    """The tables a changelog compares, from a release's json/ folder."""
    snapshot = {}
    for name in SNAPSHOT_TABLES:
        path = release / "json" / f"{name}.json"
        try:
            snapshot[name] = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ReleaseError(
                f"cannot read {path} of the previous release: {exc.strerror}"
            ) from None
        except ValueError as exc:
            raise ReleaseError(f"{path} of the previous release is not JSON: {exc}") from None
    return snapshot


def compare(version: str, previous: str | None, old: Snapshot | None, new: Snapshot) -> Changelog:
    changelog = Changelog(version, previous)
    if old is None:
        return changelog
    old_entities, new_entities = _entities(old), _entities(new)
    changelog.added = [
        new_entities[key]
        for key in sorted(new_entities.keys() - old_entities.keys())
        if key[0] != "correction"
    ]
    changelog.removed = [
        old_entities[key] for key in sorted(old_entities.keys() - new_entities.keys())
    ]
    kept = old_entities.keys() & new_entities.keys()
    _compare_figures(changelog, old, new, kept)
    changelog.quotes_corrected += _corrected_quotes(old, new, kept)
    changelog.quotes_corrected.sort(key=lambda q: (q["owner_kind"], q["owner_id"], q["field"]))
    logged = {row["id"] for row in old["corrections"]}
    changelog.corrections = sorted(
        (_correction(row) for row in new["corrections"] if row["id"] not in logged),
        key=lambda c: (c["date"], c["id"]),
    )
    return changelog


def _entities(snapshot: Snapshot) -> dict[tuple[str, str], Row]:
    return {
        (row["kind"], row["id"]): {"kind": row["kind"], "id": row["id"], "title": row["title"]}
        for row in snapshot["entities"]
    }


def _compare_figures(
    changelog: Changelog, old: Snapshot, new: Snapshot, kept: set[tuple[str, str]]
) -> None:
    before, after = _keyed_figures(old["figures"]), _keyed_figures(new["figures"])
    titles = {**_titles(old), **_titles(new)}
    for key in sorted(before.keys() & after.keys()):
        was, now = before[key], after[key]
        if (was["value"], was["unit"]) != (now["value"], now["unit"]):
            changelog.figures_changed.append(
                {
                    **_figure_head(now, titles),
                    "old": _reading(was, titles),
                    "new": _reading(now, titles),
                }
            )
        if was["quote"] and now["quote"] and was["quote"] != now["quote"]:
            changelog.quotes_corrected.append(
                {
                    "owner_kind": now["owner_kind"],
                    "owner_id": now["owner_id"],
                    "field": f"figures.{now['position'] - 1}.quote",
                    "source": now["source"],
                    "old": was["quote"],
                    "new": now["quote"],
                }
            )
    changelog.figures_added = [
        {**_figure_head(after[k], titles), **_reading(after[k], titles)}
        for k in sorted(after.keys() - before.keys())
        if (after[k]["owner_kind"], after[k]["owner_id"]) in kept
    ]
    changelog.figures_removed = [
        {**_figure_head(before[k], titles), **_reading(before[k], titles)}
        for k in sorted(before.keys() - after.keys())
        if (before[k]["owner_kind"], before[k]["owner_id"]) in kept
    ]


def _keyed_figures(figures: list[Row]) -> dict[tuple[Any, ...], Row]:
    """Each figure by what makes it the same figure in two releases (see the module's doc)."""
    seen: Counter[tuple[Any, ...]] = Counter()
    keyed = {}
    for row in sorted(figures, key=lambda r: (r["owner_kind"], r["owner_id"], r["position"])):
        key: tuple[Any, ...] = ("id", row["id"])
        if ":" in row["id"]:
            key = tuple(row[name] or "" for name in SAME_FIGURE)
        keyed[(*key, seen[key])] = row
        seen[key] += 1
    return keyed


def _titles(snapshot: Snapshot) -> dict[tuple[str, str], str]:
    return {(row["kind"], row["id"]): row["title"] for row in snapshot["entities"]}


def _figure_head(row: Row, titles: dict[tuple[str, str], str]) -> Row:
    owner = (row["owner_kind"], row["owner_id"])
    return {
        "figure": row["id"],
        "owner_kind": row["owner_kind"],
        "owner_id": row["owner_id"],
        "owner_title": titles.get(owner, row["owner_id"]),
        "metric": row["metric"],
        "chip": row["chip"],
        "status": row["status"],
        "as_of": row["as_of"],
    }


def _reading(row: Row, titles: dict[tuple[str, str], str]) -> Row:
    source = row["source"]
    return {
        "value": row["value"],
        "unit": row["unit"],
        "grade": row["grade"],
        "source": source,
        "source_title": titles.get(("source", source)) if source else None,
    }


def _corrected_quotes(old: Snapshot, new: Snapshot, kept: set[tuple[str, str]]) -> list[Row]:
    before, after = _quote_groups(old["quotes"]), _quote_groups(new["quotes"])
    corrected = []
    for group in sorted(before.keys() & after.keys()):
        if group[:2] not in kept:
            continue
        gone = _without(before[group], after[group])
        came = _without(after[group], before[group])
        for was, now in zip(gone, came, strict=False):
            owner_kind, owner_id, field_, source = group
            corrected.append(
                {
                    "owner_kind": owner_kind,
                    "owner_id": owner_id,
                    "field": field_,
                    "source": source,
                    "old": was,
                    "new": now,
                }
            )
    return corrected


def _quote_groups(quotes: list[Row]) -> dict[tuple[str, str, str, str], list[str]]:
    """The texts of the quotes of each entity, field and source, in the order written."""
    groups: defaultdict[tuple[str, str, str, str], list[tuple[int, int, str]]] = defaultdict(list)
    for q in quotes:
        if not q["field"].startswith("figures."):  # compared figure by figure instead
            key = (q["owner_kind"], q["owner_id"], q["field"], q["source"])
            groups[key].append((q["line"] or 0, q["col"] or 0, q["text"]))
    return {key: [text for *_at, text in sorted(found)] for key, found in groups.items()}


def _without(texts: list[str], others: list[str]) -> list[str]:
    """`texts` less one of each text in `others`, in order."""
    left = Counter(others)
    kept = []
    for text in texts:
        if left[text]:
            left[text] -= 1
        else:
            kept.append(text)
    return kept


def _correction(row: Row) -> Row:
    names = ("id", "title", "date", "scope", "chapter", "source", "wrong", "right")
    return {name: row[name] for name in names}


def markdown(changelog: Changelog, book_title: str) -> str:
    """CHANGELOG.md: the changelog for people."""
    lines = [f"# {book_title}: data release {changelog.version}", ""]
    if changelog.first:
        lines += ["This is the record's first release: there is no earlier one to compare.", ""]
        return "\n".join(lines)
    lines += [f"Changes since release {changelog.previous}.", ""]
    sections = [
        ("Added", [_entity_line(e) for e in changelog.added]),
        ("Removed", [_entity_line(e) for e in changelog.removed]),
        ("Figures changed", [_changed_line(f) for f in changelog.figures_changed]),
        ("Figures added", [_figure_line(f) for f in changelog.figures_added]),
        ("Figures removed", [_figure_line(f) for f in changelog.figures_removed]),
        ("Quotes corrected", [_quote_line(q) for q in changelog.quotes_corrected]),
        ("Corrections logged", [_correction_line(c) for c in changelog.corrections]),
    ]
    shown = [(heading, items) for heading, items in sections if items]
    if not shown:
        lines += ["No entity, figure, quote or correction changed.", ""]
    for heading, items in shown:
        lines += [f"## {heading}", "", *items, ""]
    return "\n".join(lines)


def _entity_line(entity: Row) -> str:
    return f"- {entity['kind']} `{entity['id']}`: {entity['title']}"


def _what(figure: Row) -> str:
    chip = f" ({figure['chip']})" if figure["chip"] else ""
    return (
        f"{figure['owner_title']} ({figure['owner_kind']} `{figure['owner_id']}`), "
        f"{figure['metric']}{chip}, {figure['status']}, as of {figure['as_of']}"
    )


def _amount(reading: Row) -> str:
    return f"{reading['value']:,.15g} {reading['unit']}"


def _source(reading: Row) -> str:
    if not reading["source"]:
        return "no source"
    title = f" ({reading['source_title']})" if reading["source_title"] else ""
    return f"source `{reading['source']}`{title}"


def _changed_line(figure: Row) -> str:
    old, new = figure["old"], figure["new"]
    sources = _source(new) if old["source"] == new["source"] else f"{_source(old)} → {_source(new)}"
    return f"- {_what(figure)}: {_amount(old)} → {_amount(new)}; {sources}"


def _figure_line(figure: Row) -> str:
    return f"- {_what(figure)}: {_amount(figure)}, {figure['grade']}; {_source(figure)}"


def _quote_line(quote: Row) -> str:
    return (
        f"- {quote['owner_kind']} `{quote['owner_id']}`, {quote['field']}, quoting "
        f"`{quote['source']}`: “{quote['old']}” → “{quote['new']}”"
    )


def _correction_line(correction: Row) -> str:
    return f"- {correction['date']}, `{correction['id']}`: {correction['title']}"
