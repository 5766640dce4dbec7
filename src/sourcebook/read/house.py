"""Read `house.toml`: the house, its series and the record folder of each volume.

The house file is as untrusted as a record: a volume's folder must stay inside the house's
folder once links are followed, so that a house can make check read nothing outside it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from sourcebook.diagnostics import Diagnostics, Pos
from sourcebook.model.house import HOUSE_FILE, HouseInfo, HouseSettings
from sourcebook.read.paths import Confined
from sourcebook.read.settings import SETTINGS_FILE, RecordError, load_toml, validated


@dataclass(frozen=True)
class VolumeRef:
    """A volume the house file names: its record folder, as shown, and the line naming it."""

    root: Path
    shown: str
    pos: Pos


@dataclass(frozen=True)
class House:
    root: Path
    """The folder of the house file; every volume is inside it."""
    file: str
    """The house file as diagnostics show it."""
    info: HouseInfo
    volumes: list[VolumeRef]


def house_file(target: Path) -> Path | None:
    """The house file `target` names (itself, or the one in the folder), or None."""
    if target.is_file() and target.suffix == ".toml" and target.name != SETTINGS_FILE:
        return target
    candidate = target / HOUSE_FILE
    return candidate if candidate.is_file() else None


def read_house(target: Path, diagnostics: Diagnostics) -> House | None:
    """The house at `target`, its volumes those that name a record inside it; None where the
    file cannot be read. Raises RecordError where `target` is no house at all."""
    path = house_file(target)
    if path is None:
        raise RecordError(f"{target.as_posix()}: no {HOUSE_FILE} here, so this is not a house")
    shown = path.as_posix()
    loaded = load_toml(path, shown, diagnostics)
    settings = validated(HouseSettings, *loaded, shown, diagnostics) if loaded else None
    if loaded is None or settings is None:
        return None
    root = path.parent
    lines = _volume_lines(loaded[0])
    volumes: list[VolumeRef] = []
    seen: dict[str, Pos] = {}
    for index, entry in enumerate(settings.volume):
        pos = Pos(shown, lines[index] if index < len(lines) else 1, 1)
        folder = _volume_folder(root, entry.path, pos, diagnostics)
        if folder is None:
            continue
        real = os.path.realpath(folder)
        if real in seen:
            diagnostics.error(
                pos,
                "H001",
                f"volume '{entry.path}' is listed twice (also at line {seen[real].line})",
                "name each volume once",
            )
            continue
        seen[real] = pos
        volumes.append(VolumeRef(folder, _shown(root, entry.path), pos))
    return House(root, shown, settings.house, volumes)


def _volume_folder(root: Path, written: str, pos: Pos, diagnostics: Diagnostics) -> Path | None:
    """The record folder `written` names, or None with the problem reported."""
    parts = PurePosixPath(written.replace("\\", "/")).parts
    leaves = written.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", written) or ".." in parts
    folder = root / written
    if leaves or not Confined(root).holds(folder):
        diagnostics.error(
            pos,
            "H002",
            f"volume '{written}' is outside the house's folder",
            "a volume's folder is a relative path inside the folder of the house file, "
            "with no '..' and no link that leads out",
        )
        return None
    if not (folder / SETTINGS_FILE).is_file():
        diagnostics.error(
            pos,
            "H003",
            f"volume '{written}' is no record: it has no {SETTINGS_FILE}",
            "name the folder that holds the volume's sourcebook.toml",
        )
        return None
    return folder


def _shown(root: Path, written: str) -> str:
    shown_root = root.as_posix().rstrip("/")
    relative = PurePosixPath(written).as_posix().strip("/")
    return relative if shown_root in ("", ".") else f"{shown_root}/{relative}"


# A table's line, its name read apart: a name pattern between \s* on either side would
# try every split of a run of spaces.
_TABLE = re.compile(r"^\s*\[\[?([^\]]+)\]\]?\s*(#.*)?$")
_TABLE_NAME = re.compile(r"[A-Za-z0-9_.\"' -]*")
_PATH_KEY = re.compile(r"^\s*path\s*=")


def _volume_lines(text: str) -> list[int]:
    """The line of each `[[volume]]`'s path, in order (its table's line where it has none)."""
    lines: list[int] = []
    in_volume = False
    for number, line in enumerate(text.splitlines(), 1):
        table = _TABLE.match(line)
        if table and _TABLE_NAME.fullmatch(name := table[1].strip()):
            in_volume = line.strip().startswith("[[") and name == "volume"
            if in_volume:
                lines.append(number)
        elif in_volume and _PATH_KEY.match(line):
            lines[-1] = number
    return lines
