"""What the machine's page shows: the drawing, every role as a table row, and each
owner's share, all from what derive computed (`Derived.machine`); and its JSON twin."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sourcebook.derive.campuses import Carried
from sourcebook.derive.machine import NO_OWNER, Edge, Holding, Machine
from sourcebook.incremental import READS
from sourcebook.model.base import Entity
from sourcebook.model.refs import Key
from sourcebook.publish.site.drawing.machine import (
    LAYERS,
    ROLE_ORDER,
    Drawing,
    draw,
    party_layers,
    primary_role,
    role_words,
)
from sourcebook.publish.site.view.wording import number

if TYPE_CHECKING:
    from sourcebook.publish.site.view.site_view import SiteView

NO_OWNER_LABEL = "No owner named in the record"


@dataclass(frozen=True, slots=True)
class RoleRow:
    edge: Edge
    party: Entity
    campus: Entity
    source: Entity | None
    role: str
    """The role the row's colour and sort go by."""
    roles: str


@dataclass(frozen=True, slots=True)
class Counted:
    """A number of the summary and the figures it sums, each linked."""

    text: str
    figures: tuple[tuple[str, str, str, float], ...]
    """(campus title, URL of the figure's row on the campus page, the campus's id, the
    value it counts in the base unit: watts, chips), each campus as the ledger shows it."""
    measure: str = ""
    """`power` or `chips`."""


@dataclass(frozen=True, slots=True)
class OwnerRow:
    owner: Entity | None
    campuses: list[Entity]
    power: Counted
    chips: Counted


class MachineView:
    def __init__(self, view: SiteView):
        self.view = view
        self.machine: Machine = view.computed.derived.machine
        record = view.record
        self._entities = {(n.kind, n.id): record.get(n.kind, n.id) for n in self.machine.nodes}
        self.drawing: Drawing = draw(
            self.machine,
            self._url,
            title=f"The machine: {self.machine.campuses} campuses and the "
            f"{self.machine.parties} parties that own, run, use, build, supply, power and "
            "pay for them",
            description="Each campus is a box and each party a dot; a line joins a party to "
            "each campus it has a role at, coloured by its role, and names what a supplier "
            "supplies. The same is listed in the table of roles below.",
        )
        self.roles = ROLE_ORDER

    def _url(self, kind: str, ident: str) -> str:
        entity = self._entities.get((kind, ident))
        return self.view.links.url(entity) if entity is not None else ""

    def rows(self) -> list[RoleRow]:
        """Every role, by party, then campus."""
        rows = []
        for edge in self.machine.edges:
            party = self._entities.get(("party", edge.party))
            campus = self._entities.get(("campus", edge.campus))
            if party is None or campus is None:
                continue
            source = self.view.record.get("source", edge.source) if edge.source else None
            role = primary_role(edge.roles)
            rows.append(RoleRow(edge, party, campus, source, role, role_words(edge)))
        rows.sort(key=lambda r: (r.party.title.casefold(), r.campus.title.casefold()))
        return rows

    def by_campus(self) -> list[tuple[Entity, list[tuple[str, list[RoleRow]]]]]:
        """The drawing's layers read campus by campus, for a narrow screen: each campus
        with the parties of each layer at it (money, builders, chips and power)."""
        rows = self.rows()
        layer_of = party_layers(self.machine.edges)
        at: dict[str, list[RoleRow]] = {}
        for row in rows:
            at.setdefault(row.campus.id, []).append(row)
        out = []
        for node in self.machine.nodes:
            campus = self._entities.get(("campus", node.id)) if node.kind == "campus" else None
            if campus is None:
                continue
            mine = [r for r in at.get(campus.id, ()) if r.campus is campus]
            layers = [
                (LAYERS[rank], [r for r in mine if layer_of.get(r.edge.party) == rank])
                for rank in (0, 1, 4)
            ]
            out.append((campus, [(name, found) for name, found in layers if found]))
        out.sort(key=lambda item: item[0].title.casefold())
        return out

    @staticmethod
    def row_key(row: RoleRow) -> tuple[Edge, Key, Key, Key | None]:
        """What a row of the table of roles shows, but what it reads through the view (the
        key of its kept block: `pages/kept_blocks.py`)."""
        source = row.source.key if row.source is not None else None
        return (row.edge, row.party.key, row.campus.key, source)

    @staticmethod
    def campus_key(
        campus: Entity, layers: list[tuple[str, list[RoleRow]]]
    ) -> tuple[Key, tuple[tuple[str, tuple[tuple[Key, str], ...]], ...]]:
        """What a campus of the list campus by campus shows, but what it reads through the
        view (the key of its kept block)."""
        shown = tuple((name, tuple((r.party.key, r.roles) for r in rows)) for name, rows in layers)
        return (campus.key, shown)

    def owners(self) -> list[OwnerRow]:
        return [self._owner_row(h) for h in self.machine.owners]

    def total(self) -> OwnerRow:
        return self._owner_row(self.machine.total)

    def _owner_row(self, held: Holding) -> OwnerRow:
        owner = self.view.record.get("party", held.owner) if held.owner != NO_OWNER else None
        campuses = [e for e in (self.view.record.get("campus", c) for c in held.campuses) if e]
        power_text = f"{number(held.power_w / 1e6)} MW"
        power = self._counted(campuses, self.machine.power, power_text, "power")
        chips = self._counted(campuses, self.machine.chips, f"{number(held.chips)} chips", "chips")
        return OwnerRow(owner, campuses, power, chips)

    def _counted(
        self, campuses: list[Entity], latest: dict[str, Carried], text: str, measure: str
    ) -> Counted:
        links = tuple(
            (
                campus.title,
                f"{self.view.links.url(campus)}#figure-{latest[campus.id].figure}",
                campus.id,
                latest[campus.id].value,
            )
            for campus in campuses
            if campus.id in latest
        )
        return Counted(text if links else "—", links, measure)

    def document(self) -> dict[str, Any]:
        machine = self.machine
        return {
            "campuses": machine.campuses,
            "parties": machine.parties,
            "nodes": [
                {"kind": n.kind, "id": n.id, "title": n.title, "url": self._url(n.kind, n.id)}
                for n in machine.nodes
            ],
            "edges": [_edge_document(e) for e in machine.edges],
            "owners": [_holding_document(h) for h in machine.owners],
            "total": _holding_document(machine.total),
            "drawn": {
                "nodes": self.drawing.nodes,
                "edges": self.drawing.edges,
                "capped": self.drawing.capped,
            },
        }


def _edge_document(edge: Edge) -> dict[str, Any]:
    return {
        "campus": edge.campus,
        "party": edge.party,
        "roles": list(edge.roles),
        "supplies": edge.supplies,
        "note": edge.note,
        "source": edge.source,
        "quote": edge.quote,
        "quote_status": edge.quote_status,
    }


def _holding_document(held: Holding) -> dict[str, Any]:
    return {
        "owner": held.owner or None,
        "campuses": list(held.campuses),
        "power_mw": held.power_w / 1e6,
        "power_figures": list(held.power_figures),
        "chips": held.chips,
        "chip_figures": list(held.chip_figures),
    }


def machine_of(view: SiteView) -> MachineView:
    """The machine's page, drawn once per build: its HTML and its JSON twin share it."""
    return READS.lookup(view.once, "machine", MachineView, view)  # type: ignore[no-any-return]
