"""What only a house can get wrong: where its volumes live, and how they name each other."""

from __future__ import annotations

from collections.abc import Sequence

from sourcebook.diagnostics import Diagnostics, Pos
from sourcebook.link.series import Works
from sourcebook.model.house import HOUSE_SECTIONS
from sourcebook.model.record import Record
from sourcebook.read.house import VolumeRef


def volume_name(record: Record) -> str:
    """A volume's name in the house: its base path without slashes (`vol1`)."""
    return record.settings.site.base_path.strip().strip("/")


def check_volume_paths(
    volumes: Sequence[tuple[VolumeRef, Record]], diagnostics: Diagnostics
) -> list[tuple[VolumeRef, Record]]:
    """The volumes that have a base path of their own; each clash reported at the house
    file's line of the volume that comes second."""
    placed: dict[str, VolumeRef] = {}
    kept = []
    for ref, record in volumes:
        name = volume_name(record)
        settings = f"{ref.shown}/sourcebook.toml"
        if not name or name.split("/", 1)[0] in HOUSE_SECTIONS:
            where = f"'/{name}'" if name else "the site's root"
            diagnostics.error(
                ref.pos,
                "H005",
                f"volume '{ref.shown}' is published at {where}, which the house's own pages take",
                f'give it a base path of its own in {settings}, such as base_path = "/vol2"',
            )
            continue
        if name in placed:
            diagnostics.error(
                ref.pos,
                "H004",
                f"volume '{ref.shown}' is published at '/{name}', as is '{placed[name].shown}' "
                f"(line {placed[name].pos.line})",
                f"give each volume its own [site] base_path, in {settings}",
            )
            continue
        placed[name] = ref
        kept.append((ref, record))
    return kept


def check_same_as(works: Works, records: dict[str, Record], diagnostics: Diagnostics) -> None:
    """Each `same_as` must name a source of a volume of the house."""
    for (volume, source_id), index, written in works.unknown_same_as():
        source = records[volume].get("source", source_id)
        assert source is not None
        pos: Pos = source.pos("same_as", index)
        diagnostics.error(
            pos,
            "H006",
            f"same_as '{written}' names no source of the series",
            f"write VOLUME/ID, where VOLUME is one of: {', '.join(sorted(records))}",
        )
