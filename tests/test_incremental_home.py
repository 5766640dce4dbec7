"""What one run keeps for the next has one home, `sourcebook.incremental`: the source is
read with `ast` and held to it.

- No module outside the engine names the state folder (`STATE_FOLDER`, `state_folder`,
  `.sourcebook-cache`) or a kept file of the engine's (`kept.marshal`, `site.marshal`).
  The parts that keep a format of their own ask the store for their sealed folder
  (`Store.of(root).folder(part)`); those are named below (`OWN_FORMATS`), each with the
  module that asks, so that a new one is a decision and not an accident.
- No module outside the engine defines a cache: no `functools.lru_cache` or
  `functools.cache`, and no module-level dict (or `defaultdict`) that a function fills.
  `runtime/` may keep its speed tricks: `runtime.memo.memoized` is the one way a pure
  function remembers its values within a process (nothing of it outlives the process).
  `functools.cached_property` is an object's own, not a cache of the module, and allowed.
- Only the engine's own modules import its `_` internals, and the engine imports no
  stage: it sits beneath them all, as `runtime` does.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import sourcebook
import sourcebook.incremental as incremental

PACKAGE = Path(sourcebook.__file__).resolve().parent
ENGINE = PACKAGE / "incremental"
RUNTIME = PACKAGE / "runtime"
STAGES = ("read", "link", "check", "compile", "derive", "publish")
ALLOWED = ("sourcebook.model", "sourcebook.files", "sourcebook.runtime", "sourcebook.incremental")
"""What the engine may import of sourcebook."""

STATE_NAMES = frozenset({"STATE_FOLDER", "state_folder"})
STATE_TEXTS = (".sourcebook-cache", "kept.marshal", "site.marshal")
OWN_FORMATS = {
    ("sourcebook/library/cache.py", "library"),  # the normalized texts' SQLite index
    ("sourcebook/library/store.py", "library"),  # the Library's lock, beside that index
    ("sourcebook/read/library.py", "library"),  # each item's metadata, by its stat
    ("sourcebook/watch/run.py", "FOLDER"),  # an unfinished watch's note and its lock
    ("sourcebook/publish/site/view/site_view.py", "charts"),  # each chart's drawing
}
"""The parts that keep a format of their own in the store's sealed folder: (module, the
part it asks for, as written)."""
CACHES = frozenset({"lru_cache", "cache"})
MUTATORS = frozenset({"setdefault", "update", "__setitem__"})


def modules() -> Iterator[tuple[str, Path, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        shown = path.relative_to(PACKAGE.parent).as_posix()
        yield shown, path, ast.parse(path.read_text(encoding="utf-8"), shown)


def outside(path: Path, *homes: Path) -> bool:
    return not any(path.is_relative_to(home) for home in homes)


def docstrings(tree: ast.Module) -> set[int]:
    """The ids of the docstring nodes: prose may name the state folder, code may not."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            found.add(id(node.value))  # an attribute's docstring, after its assignment
    return found


def test_no_module_outside_the_engine_reads_or_writes_the_state_folder() -> None:
    found: list[str] = []
    folders: set[tuple[str, str]] = set()
    for shown, path, tree in modules():
        if not outside(path, ENGINE):
            continue
        prose = docstrings(tree)
        for node in ast.walk(tree):
            name = (
                node.id
                if isinstance(node, ast.Name)
                else node.attr
                if isinstance(node, ast.Attribute)
                else None
            )
            if name in STATE_NAMES:
                found.append(f"{shown}:{node.lineno} names {name}")
            if isinstance(node, ast.alias) and node.name in STATE_NAMES:
                found.append(f"{shown}:{node.lineno} imports {node.name}")
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in prose
                and any(text in node.value for text in STATE_TEXTS)
            ):
                found.append(f"{shown}:{node.lineno} names the state folder: {node.value!r}")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "folder"
                and isinstance(node.func.value, ast.Call)
                and ast.unparse(node.func.value.func) == "Store.of"
            ):
                part = node.args[0]
                asked = part.value if isinstance(part, ast.Constant) else ast.unparse(part)
                folders.add((shown, str(asked)))
    assert found == []
    assert folders == OWN_FORMATS


def _module_dicts(tree: ast.Module) -> dict[str, int]:
    """The names a module binds to an empty dict (or defaultdict) at its top level."""
    found = {}
    for node in tree.body:
        targets: list[ast.expr] = []
        value = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        empty = (isinstance(value, ast.Dict) and not value.keys) or (
            isinstance(value, ast.Call)
            and ast.unparse(value.func).split(".")[-1] in ("dict", "defaultdict")
            and not value.args[1:]
        )
        for target in targets:
            if empty and isinstance(target, ast.Name):
                found[target.id] = node.lineno
    return found


def _filled_in_functions(tree: ast.Module, names: dict[str, int]) -> set[str]:
    """Which of `names` a function fills: stores an item in, or calls a filling method of."""
    filled = set()
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(function):
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name)
                and node.value.id in names
            ):
                filled.add(node.value.id)
            if (
                isinstance(node, ast.Attribute)
                and node.attr in MUTATORS
                and isinstance(node.value, ast.Name)
                and node.value.id in names
            ):
                filled.add(node.value.id)
    return filled


def test_no_module_outside_the_engine_and_runtime_defines_a_cache() -> None:
    found: list[str] = []
    for shown, path, tree in modules():
        if not outside(path, ENGINE, RUNTIME):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "functools":
                found += [
                    f"{shown}:{node.lineno} functools.{a.name}"
                    for a in node.names
                    if a.name in CACHES
                ]
            if (
                isinstance(node, ast.Attribute)
                and node.attr in CACHES
                and ast.unparse(node.value) == "functools"
            ):
                found.append(f"{shown}:{node.lineno} functools.{node.attr}")
        dicts = _module_dicts(tree)
        for name in sorted(_filled_in_functions(tree, dicts)):
            found.append(f"{shown}:{dicts[name]} a module-level dict filled as a memo: {name}")
    assert found == []


def test_only_the_engine_imports_its_internals_and_it_imports_no_stage() -> None:
    found: list[str] = []
    for shown, path, tree in modules():
        inside = not outside(path, ENGINE)
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                parts = name.split(".")
                internal = parts[:2] == ["sourcebook", "incremental"] and any(
                    p.startswith("_") for p in parts[2:3]
                )
                if internal and not inside:
                    found.append(f"{shown}:{node.lineno} imports the engine's {name}")
                stage = len(parts) > 1 and parts[1] in STAGES
                if (
                    inside
                    and parts[0] == "sourcebook"
                    and name != "sourcebook"
                    and (stage or not name.startswith(ALLOWED))
                ):
                    found.append(f"{shown}:{node.lineno} the engine imports {name}")
    assert found == []


def test_the_interface_is_documented() -> None:
    """Each name the engine exports says what it is, and the vocabulary is its docstring's."""
    assert incremental.__doc__ is not None
    for word in ("store", "memo", "key", "lookup", "record", "carry", "commit", "sealed"):
        assert f"**{word}**" in incremental.__doc__ or f"**{word}" in incremental.__doc__, word
    for name in incremental.__all__:
        value = getattr(incremental, name)
        if callable(value) and not isinstance(value, frozenset):
            assert value.__doc__, name


def test_the_scan_finds_a_memo_dict() -> None:
    """The scan above is no vacuous pass: a memo kept in a module's dict is found."""
    tree = ast.parse(
        "_SEEN: dict[str, int] = {}\nOTHER = {}\nTABLE = {'a': 1}\n"
        "def f(x):\n    _SEEN[x] = len(x)\n    return TABLE[x]\n"
    )
    assert _filled_in_functions(tree, _module_dicts(tree)) == {"_SEEN"}
