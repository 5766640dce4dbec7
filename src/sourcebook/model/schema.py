"""JSON Schema for each kind's front matter, for editors that validate as one types."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sourcebook.model.kinds import KINDS, Kind

SCHEMA_URL = "https://json-schema.org/draft/2020-12/schema"
_NOT_FRONT_MATTER = ("id", "body")


def kind_schema(kind: Kind) -> dict[str, Any]:
    schema = kind.model.model_json_schema(mode="validation")
    for name in _NOT_FRONT_MATTER:
        schema.get("properties", {}).pop(name, None)
        if name in schema.get("required", []):
            schema["required"].remove(name)
    schema["$schema"] = SCHEMA_URL
    schema["title"] = f"sourcebook {kind.name}"
    schema["description"] = f"Front matter of a file in {kind.folder}/: {kind.description}"
    return schema


def write_schemas(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for kind in KINDS:
        path = out / f"{kind.name}.schema.json"
        path.write_text(
            json.dumps(kind_schema(kind), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        written.append(path)
    return written
