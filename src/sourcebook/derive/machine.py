"""The machine: every campus and party the record ties together, and who owns what.

The book's subtitle is "Five Races, One Machine". Read from the compiled record: each
campus and each party with a role at one is a node; each party's entry in a campus's
list is an edge with its roles, what it supplies, its source and the words that say so.
The summary counts, for each owner, its campuses and the power and chips the evidence
shows running there: each campus's evidenced operating power and chips running, as the
record's views define them (`compile/meanings.py`) and the scorecard counts them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from sourcebook.compile.database import CompiledRecord
from sourcebook.derive.campuses import CampusState, Carried, campus_states

NO_OWNER = ""
"""The owner of campuses whose owner the record does not name."""

_EDGES = """
SELECT cp.campus, cp.party, cp.position, cp.role, cp.supplies, cp.note, cp.source,
       cp.quote, cp.quote_status
FROM campus_parties cp
JOIN campuses c ON c.id = cp.campus JOIN parties p ON p.id = cp.party
ORDER BY cp.campus, cp.position, cp.rowid
"""
_CAMPUSES = """
SELECT c.id, c.title, s.stage AS status FROM campuses c JOIN campus_stage s ON s.campus = c.id
ORDER BY c.id
"""
_PARTIES = """
SELECT id, title, type FROM parties WHERE id IN (SELECT party FROM campus_parties)
ORDER BY id
"""


@dataclass(frozen=True, slots=True)
class Node:
    kind: str
    """`campus` or `party`."""
    id: str
    title: str
    detail: str
    """A campus's stage (`campus_stage`); a party's type."""
    degree: int
    """How many edges meet here."""


@dataclass(frozen=True, slots=True)
class Edge:
    """One party's entry in one campus's list: what it does there, and who says so."""

    campus: str
    party: str
    roles: tuple[str, ...]
    supplies: str | None
    note: str | None
    source: str | None
    quote: str | None
    quote_status: str | None


@dataclass(frozen=True, slots=True)
class Holding:
    """What one owner holds (NO_OWNER: campuses without a named owner)."""

    owner: str
    campuses: tuple[str, ...]
    power_w: float
    power_figures: tuple[str, ...]
    chips: float
    chip_figures: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Machine:
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    power: dict[str, Carried]
    """Campus → its latest evidenced operating power."""
    chips: dict[str, Carried]
    """Campus → its latest evidenced operating chip count."""
    owners: tuple[Holding, ...]
    """By evidenced power, then campuses, then id; NO_OWNER last."""
    total: Holding
    """Every campus once, whoever owns it."""

    @property
    def campuses(self) -> int:
        return sum(1 for n in self.nodes if n.kind == "campus")

    @property
    def parties(self) -> int:
        return sum(1 for n in self.nodes if n.kind == "party")


EMPTY = Machine((), (), {}, {}, (), Holding(NO_OWNER, (), 0.0, (), 0.0, ()))


def machine(db: CompiledRecord, states: dict[str, CampusState] | None = None) -> Machine:
    """Every campus and party as one machine; `states`: each campus's state on the
    database's day, where it is in hand (`campus_states`)."""
    edges = _edges(db)
    degree: dict[tuple[str, str], int] = defaultdict(int)
    for edge in edges:
        degree["campus", edge.campus] += 1
        degree["party", edge.party] += 1
    nodes = [
        Node("campus", r["id"], r["title"], r["status"] or "", degree["campus", r["id"]])
        for r in db.rows(_CAMPUSES)
    ] + [
        Node("party", r["id"], r["title"], r["type"] or "", degree["party", r["id"]])
        for r in db.rows(_PARTIES)
    ]
    states = states if states is not None else campus_states(db)
    power = {c: s.power for c, s in states.items() if s.power is not None}
    chips = {c: s.chips for c, s in states.items() if s.chips is not None}
    campuses = [n.id for n in nodes if n.kind == "campus"]
    owned: dict[str, list[str]] = defaultdict(list)
    for edge in edges:
        if "owner" in edge.roles and edge.campus not in owned[edge.party]:
            owned[edge.party].append(edge.campus)
    with_owner = {c for found in owned.values() for c in found}
    orphans = [c for c in campuses if c not in with_owner]
    holdings = [_holding(o, cs, power, chips) for o, cs in owned.items()]
    holdings.sort(key=lambda h: (-h.power_w, -len(h.campuses), h.owner))
    if orphans:
        holdings.append(_holding(NO_OWNER, orphans, power, chips))
    total = _holding(NO_OWNER, campuses, power, chips)
    return Machine(tuple(nodes), tuple(edges), power, chips, tuple(holdings), total)


def _edges(db: CompiledRecord) -> list[Edge]:
    """One edge per party entry: its roles (a row each in the table) brought together."""
    grouped: dict[tuple[str, int], list] = {}
    for row in db.rows(_EDGES):
        grouped.setdefault((row["campus"], row["position"]), []).append(row)
    edges = []
    for rows in grouped.values():
        first = rows[0]
        edges.append(
            Edge(
                first["campus"],
                first["party"],
                tuple(dict.fromkeys(r["role"] for r in rows)),
                first["supplies"],
                first["note"] or None,
                first["source"],
                first["quote"],
                first["quote_status"],
            )
        )
    return edges


def _holding(
    owner: str,
    campuses: list[str],
    power: dict[str, Carried],
    chips: dict[str, Carried],
) -> Holding:
    powered = [power[c] for c in campuses if c in power]
    counted = [chips[c] for c in campuses if c in chips]
    return Holding(
        owner,
        tuple(campuses),
        sum((e.value for e in powered), 0.0),
        tuple(e.figure for e in powered),
        sum((e.value for e in counted), 0.0),
        tuple(e.figure for e in counted),
    )
