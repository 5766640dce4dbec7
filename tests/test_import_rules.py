"""The package's imports follow the pipeline: each stage imports only the model, itself and
the stages before it; nothing in a stage imports the orchestrator; no module is in a circle."""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "sourcebook"
ORDER = ["model", "read", "link", "check", "compile", "derive", "publish"]


def imports() -> dict[str, set[str]]:
    """Each module of the package → the package's modules it imports (at any depth)."""
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        module = ".".join(("sourcebook", *parts)).removesuffix(".__init__")
        names = found.setdefault(module, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
        found[module] = {n for n in names if n.startswith("sourcebook")}
    return found


def stage(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ORDER else None


def test_every_import_follows_the_pipeline() -> None:
    backwards = [
        f"{module} imports {name}"
        for module, names in imports().items()
        for name in names
        if (me := stage(module)) is not None
        and (
            name == "sourcebook.pipeline"
            or (them := stage(name)) is not None
            and ORDER.index(them) > ORDER.index(me)
            or me in ("model", "read")
            and name.startswith("sourcebook.library")
        )
    ]
    assert backwards == []


def test_the_library_imports_no_stage_after_read() -> None:
    late = [
        f"{module} imports {name}"
        for module, names in imports().items()
        if module.startswith("sourcebook.library")
        for name in names
        if stage(name) in ORDER[2:]
    ]
    assert late == []


def test_the_stages_import_one_another_in_no_circle() -> None:
    """Between the top-level parts of the package (stages, library, runtime, …)."""
    graph: dict[str, set[str]] = {}
    for module, names in imports().items():
        group = ".".join(module.split(".")[:2])
        graph.setdefault(group, set()).update(
            g for n in names if (g := ".".join(n.split(".")[:2])) != group
        )
    try:
        list(TopologicalSorter(graph).static_order())
    except CycleError as exc:
        raise AssertionError(f"a circle: {' -> '.join(exc.args[1])}") from None
