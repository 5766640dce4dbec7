"""The people and parties of a record found by name, and new ones written as files."""

from __future__ import annotations

from dataclasses import dataclass, field

from sourcebook.interchange.editor import render
from sourcebook.interchange.works import Creator, record_id
from sourcebook.model.base import MAX_NAME_LENGTH, Entity
from sourcebook.model.person_names import folded

NAME_ROOM = MAX_NAME_LENGTH - 10
"""The longest id made from a name, leaving room for the `-2` that tells two apart."""


@dataclass
class NewEntity:
    kind: str
    id: str
    text: str


@dataclass
class Roster:
    """The record's people and parties by every name they go by (case and accents aside),
    with those an import is about to add."""

    people: dict[str, str] = field(default_factory=dict)
    parties: dict[str, str] = field(default_factory=dict)
    taken: dict[str, set[str]] = field(default_factory=lambda: {"person": set(), "party": set()})
    new: list[NewEntity] = field(default_factory=list)

    @classmethod
    def of(cls, entities: list[Entity]) -> Roster:
        roster = cls()
        for entity in entities:
            if entity.KIND == "person":
                names = [*entity.names(), " ".join(_parts(entity))]
                roster._know("person", entity.id, names)
            elif entity.KIND == "party":
                roster._know("party", entity.id, entity.names())
        return roster

    def _know(self, kind: str, ident: str, names: list[str]) -> None:
        index = self.people if kind == "person" else self.parties
        for name in names:
            if name.strip():
                index.setdefault(folded(name), ident)
        self.taken[kind].add(ident)

    def person(self, creator: Creator) -> str:
        """The id of the person `creator` names, written anew where none has the name."""
        found = self.people.get(folded(creator.name))
        if found is not None:
            return found
        ident = self._free("person", creator.name)
        fields = {"title": creator.name, "given": creator.given, "family": creator.family}
        self._add("person", ident, fields, [creator.name])
        return ident

    def party(self, name: str, party_type: str) -> str:
        """The id of the party called `name`, written anew (of `party_type`) where none is."""
        found = self.parties.get(folded(name))
        if found is not None:
            return found
        ident = self._free("party", name)
        self._add("party", ident, {"title": name, "type": party_type}, [name])
        return ident

    def _add(self, kind: str, ident: str, fields: dict[str, str], names: list[str]) -> None:
        front = "".join(render(key, value) for key, value in fields.items() if value)
        self.new.append(NewEntity(kind, ident, f"---\n{front}---\n"))
        self._know(kind, ident, names)

    def _free(self, kind: str, name: str) -> str:
        base = record_id(name)[:NAME_ROOM].rstrip("-") or kind
        ident, count = base, 1
        while ident in self.taken[kind]:
            count += 1
            ident = f"{base}-{count}"
        return ident


def _parts(person: Entity) -> tuple[str, str]:
    return (getattr(person, "given", None) or "", getattr(person, "family", None) or "")
