"""Print pyproject.toml's dependency floors as pins (`name==floor`), for the floors run.

Each `>=` lower bound of the project's dependencies and of its test extra becomes an
exact pin, so that CI installs the oldest versions the project says it supports and
runs the suite against them.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

FLOOR = re.compile(r"^([A-Za-z0-9._-]+(?:\[[^\]]*\])?)\s*>=\s*([^,;\s]+)")


def floors(pyproject: Path) -> list[str]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    wanted = [*project["dependencies"], *project["optional-dependencies"]["test"]]
    pins = []
    for requirement in wanted:
        found = FLOOR.match(requirement)
        if found is None:
            sys.exit(f"{requirement!r} has no '>=' floor: give it one")
        pins.append(f"{found[1]}=={found[2]}")
    return pins


if __name__ == "__main__":
    root = Path(__file__).resolve().parent.parent
    print("\n".join(floors(root / "pyproject.toml")))
