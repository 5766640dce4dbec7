"""Every reference must name an entity that exists, of the kind the field expects."""

from __future__ import annotations

from sourcebook.diagnostics import Diagnostics, did_you_mean
from sourcebook.link.graph import Graph, Ref
from sourcebook.model.kinds import KINDS, Term
from sourcebook.model.record import Record

KIND_NAMES = [k.name for k in KINDS]


def check_references(record: Record, graph: Graph, diagnostics: Diagnostics) -> None:
    for ref in graph.unresolved():
        _report_unresolved(ref, record, diagnostics)
    for ref in graph.refs:
        if ref.via == "wiki" and ref.resolved:
            kinds = [k for k in KIND_NAMES if record.get(k, ref.text) is not None]
            shown = ref.pos
            if len(kinds) > 1 and ":" not in ref.text:
                diagnostics.error(
                    shown,
                    "L005",
                    f"[[{ref.text}]] is ambiguous: a {' and a '.join(kinds)}",
                    f"write [[{kinds[0]}:{ref.text}]] or [[{kinds[1]}:{ref.text}]]",
                )
    _check_citation_keys(record, diagnostics)
    for term in record.of("term"):
        if isinstance(term, Term) and term.id in term.related:
            index = term.related.index(term.id)
            diagnostics.warning(
                term.pos("related", index),
                "L006",
                f"term '{term.id}' lists itself as related",
                "remove it",
            )


def _check_citation_keys(record: Record, diagnostics: Diagnostics) -> None:
    """A citation key names one source: not another's id, nor another's key."""
    holders: dict[str, str] = {}
    for source in record.of("source"):
        key = getattr(source, "citation_key", None)
        if not key or key == source.id:
            continue
        other = key if record.get("source", key) is not None else holders.get(key)
        if other is not None:
            diagnostics.error(
                source.pos("citation_key"),
                "L008",
                f"citation key '{key}' is also source '{other}''s: [@{key}] cites '{other}'",
                "give one of them another key in Zotero, and import again",
            )
        holders.setdefault(key, source.id)


def _report_unresolved(ref: Ref, record: Record, diagnostics: Diagnostics) -> None:
    kind, target = ref.target
    if ref.via == "cite":
        diagnostics.error(
            ref.pos,
            "L003",
            f"citation of a source that does not exist: @{target}",
            did_you_mean(target, record.entities["source"]),
        )
        return
    if ref.field == "same_as":
        diagnostics.error(
            ref.pos,
            "L002",
            f"same_as '{ref.text}' names no entity",
            "write kind:id, such as party:tva",
        )
        return
    if kind == "?":
        every = {i for table in record.entities.values() for i in table}
        diagnostics.error(
            ref.pos, "L001", f"[[{target}]] names no entity", did_you_mean(target, every)
        )
        return
    if kind not in KIND_NAMES:
        diagnostics.error(
            ref.pos,
            "L002",
            f"unknown kind '{kind}' in [[{kind}:{target}]]",
            did_you_mean(kind, KIND_NAMES),
        )
        return
    hint = did_you_mean(target, record.entities[kind])
    if hint is None:
        elsewhere = [k for k in KIND_NAMES if record.get(k, target) is not None]
        if elsewhere:
            hint = f"'{target}' is a {elsewhere[0]}, not a {kind}"
    diagnostics.error(ref.pos, "L001", f"unknown {kind} id '{target}' in '{ref.field}'", hint)
