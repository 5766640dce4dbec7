"""`pipeline.build` is the whole system, and the only place the stages are sequenced: read
with `ast`, it calls each stage's entry in the pipeline's order, and no function anywhere
else in the package calls the entries of two stages."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "sourcebook"
PIPELINE = PACKAGE / "pipeline.py"

ENTRIES = {
    "read_and_link": "read",
    "read_record": "read",
    "link_record": "link",
    "check_record": "check",
    "compiled_image": "compile",
    "compile_in_memory": "compile",
    "published": "compile",
    "check_queries": "derive",
    "derive_checked": "derive",
    "derive_all": "derive",
    "write_site": "publish",
    "write_house": "publish",
    "write_release": "publish",
}
"""Each stage's entries: the functions that run a stage over what the one before made."""

SPANS = {"read_and_link": ("read", "link")}
"""The pipeline's own steps that run more than one stage, in their order."""

ORDER = ["read", "link", "check", "compile", "derive", "publish"]


def called(node: ast.AST) -> Iterator[tuple[str, int]]:
    """The stage entries a function calls, by name, with their lines, in source order."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call):
            func = inner.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in ENTRIES:
                yield name, inner.lineno


def functions(path: Path) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def test_build_calls_the_stages_in_the_pipelines_order() -> None:
    (build,) = [f for f in functions(PIPELINE) if f.name == "build"]
    calls = sorted(called(build), key=lambda call: call[1])
    stages = [s for name, _ in calls for s in SPANS.get(name, (ENTRIES[name],))]
    assert [s for s in ORDER if s in stages] == ORDER, stages
    firsts = [stages.index(s) for s in ORDER]
    assert firsts == sorted(firsts), f"the stages are called out of order: {stages}"
    assert (build.end_lineno or 0) - build.lineno < 60, "build is more than a screen"


def test_no_function_outside_the_pipeline_sequences_two_stages() -> None:
    sequencing = []
    for path in PACKAGE.rglob("*.py"):
        if path == PIPELINE:
            continue
        where = path.relative_to(PACKAGE).as_posix()
        for function in functions(path):
            stages = {ENTRIES[name] for name, _ in called(function)}
            if len(stages) > 1:
                sequencing.append(f"{where}:{function.lineno} {function.name}: {sorted(stages)}")
    assert not sequencing, "stages sequenced outside pipeline.py:\n" + "\n".join(sequencing)


def test_the_scan_finds_two_stages_called_in_one_function() -> None:
    source = "def f(r):\n    g = link_record(r)\n    return site.write_site(published(r), g)\n"
    (function,) = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef)]
    assert {ENTRIES[name] for name, _ in called(function)} == {"link", "compile", "publish"}
