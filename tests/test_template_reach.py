"""What a record's own templates can reach: plain values, the record's values and the
view's documented parts, never an object that can touch the file system, a process or the
network.

The bundled record is built with a template of its own, so that its whole site renders in
the sandbox; then every object its templates can reach is walked as a template would walk
it: each attribute the sandbox lets it read, and each method it lets it call, called with
the record's own values (its entities, ids, fields, sections) and with hostile strings, to
a depth. Every object met must be plain or of a type the allow-list names, and none may be
a path, a file, a module, a process, a socket, a database or a template loader.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import io
import itertools
import mmap
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import threading
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path, PurePath
from typing import Any

import jinja2
import pytest
from conftest import BUNDLED
from jinja2.defaults import DEFAULT_NAMESPACE
from markupsafe import Markup

from sourcebook.compile import published
from sourcebook.derive import derive_checked
from sourcebook.model.base import Entity
from sourcebook.model.kinds import KINDS
from sourcebook.pipeline import check
from sourcebook.publish.site.build import SiteBuild
from sourcebook.publish.site.pages.reach import JINJA, RecordSandbox, is_plain, readable
from sourcebook.publish.site.pages.sections import paths
from sourcebook.publish.site.pages.site_pages import site_pages
from sourcebook.publish.site.view.site_view import SiteView

JINJA_GLOBALS = frozenset(DEFAULT_NAMESPACE)
"""Jinja's own globals (`range`, `dict`, `lipsum`, `cycler`, `joiner`, `namespace`): called,
never read (see `test_what_a_template_may_not_reach_is_refused`)."""
DEPTH = 14
"""How deep the values read from one object are read."""
ROUNDS = 4
"""How many times what calls give is read and its methods called in turn."""
CALLS = 80
"""The most calls made of one callable (its arguments' combinations)."""
RECEIVERS = 3
"""The most objects of one type whose methods are called (all are read)."""

DANGEROUS: tuple[type, ...] = (
    PurePath,
    io.IOBase,
    types.ModuleType,
    types.FrameType,
    types.CodeType,
    types.TracebackType,
    types.GeneratorType,
    socket.socket,
    sqlite3.Connection,
    sqlite3.Cursor,
    subprocess.Popen,
    threading.Thread,
    mmap.mmap,
    os.DirEntry,
    type,
    jinja2.Environment,
    jinja2.BaseLoader,
    jinja2.Template,
)
"""What can reach the file system, a process or the network, or make code that can."""
SYSTEM_MODULES = ("os", "posix", "io", "_io", "subprocess", "socket", "shutil", "sqlite3")

HOSTILE = ["/etc/passwd", "../../../etc/passwd", "__class__", "__init__", "origin", "", "x" * 300]
"""Strings a template could pass where a name is asked: a path, a way out of a folder, the
name of an attribute it may not read."""
SECTION_NAMES = sorted(paths())
FRAGMENTS = ["chapter", "item", "link", "source", "chart", "paper_figure"]
MEASURES = ["power", "chips", "power_gw", "capital_usd", "capital_total_usd", "revenue_usd"]
STRUCTURED = ["glossary", "glossary_page", "term", "campus", "party", "person", "source"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("reach")


@pytest.fixture(scope="module")
def built(folder: Path) -> Iterator[SiteBuild]:
    """The bundled record's site, built in the sandbox (the record has a template of its
    own) into `folder`/site; the build, whose view the pages read."""
    root = folder / "record"
    shutil.copytree(BUNDLED, root, ignore=shutil.ignore_patterns("_site", ".sourcebook-cache"))
    (root / "templates").mkdir()
    (root / "templates" / "extra.html").write_text("{{ book.title }}", encoding="utf-8")
    checked = check(root)
    assert checked.ok
    shown = published(checked, False)
    assert shown.record is not None
    with SiteBuild(shown.record, shown.graph, jobs=1, search=False) as site:
        site.cite(checked.proofs)
        site.write(folder / "site", derive_checked(shown))
        assert isinstance(site.view.env, RecordSandbox)
        yield site


@dataclass
class Walk:
    """Every object reachable from the roots, with the path a template takes to it."""

    env: RecordSandbox
    strings: dict[str, list[str]]
    seen: dict[int, str] = field(default_factory=dict)
    kept: list[Any] = field(default_factory=list)
    by_type: dict[str, list[Any]] = field(default_factory=dict)
    called: dict[tuple[type, str], int] = field(default_factory=dict)
    tried: set[tuple[int, ...]] = field(default_factory=set)
    answered: set[tuple[type, str]] = field(default_factory=set)
    """The methods that gave a value to at least one call."""
    pending: list[tuple[Any, str]] = field(default_factory=list)
    found: list[str] = field(default_factory=list)
    """What should not be reachable, each with its path."""

    def run(self, roots: dict[str, Any]) -> None:
        """Read everything the roots hold; then call every method met, with what was read as
        arguments, and read what the calls give; and so on, ROUNDS times."""
        level = [(value, name) for name, value in roots.items()]
        functions: dict[int, tuple[Any, str]] = {}
        for _ in range(ROUNDS):
            self._read_all(level)
            functions.update((id(f), (f, path)) for f, path in self.pending)
            self.pending = []
            level = [given for f, path in functions.values() for given in self._called(f, path)]

    def _read_all(self, level: list[tuple[Any, str]]) -> None:
        for _ in range(DEPTH):
            following: list[tuple[Any, str]] = []
            for obj, path in level:
                if id(obj) in self.seen:
                    continue
                self.seen[id(obj)] = path
                self.kept.append(obj)
                self._note(obj)
                following += self._children(obj, path)
            level = following

    def _note(self, obj: Any) -> None:
        for kind in type(obj).__mro__:
            self.by_type.setdefault(kind.__name__, []).append(obj)

    def _children(self, obj: Any, path: str) -> list[tuple[Any, str]]:
        bad = dangerous(obj)
        if bad:
            self.found.append(f"{path}: {bad}")
            return []
        names = readable().get(type(obj))
        if names is not None and hasattr(obj, "__iter__") and not isinstance(obj, tuple):
            return self._read(obj, names, path) + [(v, f"{path} (each)") for v in obj]
        if names is not None:
            return self._read(obj, names, path)
        if is_plain(obj) and isinstance(obj, dict):
            items = [(v, f"{path}[{k!r}]") for k, v in obj.items()]
            return items + [(k, f"{path}.keys()") for k in obj]
        if is_plain(obj) and isinstance(obj, (list, tuple, set, frozenset)):
            return [(v, f"{path}[{i}]") for i, v in enumerate(obj)]
        if is_plain(obj):
            return []
        if type(obj) in JINJA or callable(obj):
            if self.env.is_safe_callable(obj):
                self.pending.append((obj, path))
            return []
        self.found.append(f"{path}: a {type(obj).__qualname__} is not in the allow-list")
        return []

    def _read(self, obj: Any, names: frozenset[str], path: str) -> list[tuple[Any, str]]:
        """Each attribute the allow-list names, read as a template reads it."""
        children = []
        for name in sorted(names):
            value = self.env.getattr(obj, name)
            if isinstance(value, jinja2.Undefined):
                self.found.append(f"{path}.{name}: named in the allow-list, but undefined")
            elif callable(value) and not isinstance(value, (Entity, Markup)):
                self.pending.append((value, f"{path}.{name}"))
            else:
                children.append((value, f"{path}.{name}"))
        return children

    def _called(self, function: Any, path: str) -> list[tuple[Any, str]]:
        """What calling `function` (a method a template may call) gives, with arguments a
        template could pass."""
        assert self.env.is_safe_callable(function), path
        if isinstance(function, (jinja2.runtime.Macro, type)) or type(function) in JINJA:
            return []  # Jinja's own: macros are the templates', the rest plain
        key = (type(getattr(function, "__self__", None)), getattr(function, "__name__", path))
        out: list[tuple[Any, str]] = []
        made = 0
        for args in self._arguments(function):
            tried = (id(function), *map(id, args))
            if tried in self.tried:
                continue
            if made == CALLS or self.called.get(key, 0) >= RECEIVERS * CALLS:
                break
            made += 1
            self.tried.add(tried)
            self.called[key] = self.called.get(key, 0) + 1
            try:
                value = function(*args)
            except Exception:  # noqa: BLE001 (a wrong argument is no finding)
                continue
            self.answered.add(key)
            shown = ", ".join(_short(a) for a in args)
            out.append((value, f"{path}({shown})"))
        return out

    def _arguments(self, function: Callable[..., Any]) -> Iterator[tuple[Any, ...]]:
        try:
            parameters = list(inspect.signature(function).parameters.values())
        except (TypeError, ValueError):
            return
        choices = []
        for parameter in parameters:
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                continue
            choices.append(self._candidates(parameter))
        yield from _spread(choices)

    def _candidates(self, parameter: inspect.Parameter) -> list[Any]:
        """Values a template could pass: the record's own of the annotated type, strings
        chosen by the parameter's name, and hostile ones."""
        annotation = str(parameter.annotation)
        found: list[Any] = _sample(self.by_type.get(parameter.name.capitalize(), []))
        for name in re.findall(r"[A-Za-z_]\w*", annotation):
            if name in ("str", "Any", "_empty"):
                found += self.strings.get(parameter.name, []) + self.strings["any"]
            elif name == "int":
                found += [0, 1, 3]
            elif name == "float":
                found += [1.0]
            elif name == "bool":
                found += [False, True]
            elif name == "list" and "str" in annotation:
                found.append(self.strings["entity_id"][:5])
            elif name == "list":
                found.append(self.by_type.get("Entity", [])[:5])
            elif name == "tuple":
                found += [data.rows[0] for data in self.by_type.get("ChartData", []) if data.rows]
            else:
                found += _sample(self.by_type.get(name, []))
        if not found or "Any" in annotation:
            found += _sample(self.by_type.get("Entity", [])) + self.strings["any"]
        return list({id(v): v for v in found}.values())


def _sample(objects: list[Any]) -> list[Any]:
    """A few of each type: one entity of each kind, where they are entities."""
    by_kind: dict[type, Any] = {}
    for obj in objects:
        by_kind.setdefault(type(obj), obj)
    return list(by_kind.values())[:16]


def _spread(choices: list[list[Any]]) -> Iterator[tuple[Any, ...]]:
    """Combinations that use every choice of every parameter at least once, first."""
    if any(not c for c in choices):
        return
    widest = max((len(c) for c in choices), default=1)
    for i in range(widest):
        yield tuple(c[i % len(c)] for c in choices)
    yield from itertools.product(*choices)


def _short(value: Any) -> str:
    if isinstance(value, Entity):
        return f"<{value.kind} {value.id}>"
    text = repr(value)
    return text if len(text) < 40 else text[:37] + "…"


def dangerous(obj: Any) -> str:
    """What makes an object able to touch the file system, a process or the network."""
    if isinstance(obj, DANGEROUS):
        return f"a {type(obj).__qualname__} can reach the system"
    if callable(obj) and not isinstance(obj, (Entity, Markup)):
        module = getattr(obj, "__module__", "") or ""
        name = getattr(obj, "__name__", "")
        if module.split(".")[0] in SYSTEM_MODULES or name in ("open", "eval", "exec", "__import__"):
            return f"{module}.{name} can reach the system"
    return ""


def _strings(site: SiteBuild) -> dict[str, list[str]]:
    view = site.view
    entities = list(view.record)
    ids = sorted({e.id for e in entities})
    fields = sorted({f for e in entities for f in e.PROSE_FIELDS} | {"body", "title"})
    paths = [f.path for r in view.releases for f in r.files][:5]
    urls = [view.links.url(e) for e in entities[:5]] + ["https://example.com/a", "javascript:x"]
    return {
        "kind": [k.name for k in KINDS],
        "entity_id": ids[:40],
        "parameter_id": [p.id for s in view.computed.derived.scenarios for p in s.parameters],
        "figure": sorted(view.drawn._placed())[:5],
        "field": fields + HOSTILE,
        "name": FRAGMENTS + SECTION_NAMES + ["site.css"],
        "what": MEASURES,
        "status": ["operating", "announced", "verified", "not found"],
        "category": ["company", "press", "research", "other"],
        "path": paths,
        "url": urls,
        "current": urls,
        "any": HOSTILE + ids[:3] + STRUCTURED[:2] + SECTION_NAMES[:3],
    }


def test_every_object_a_template_can_reach_is_plain_or_allowed(built: SiteBuild) -> None:
    view = built.view
    env = view.env
    assert isinstance(env, RecordSandbox)
    roots = {f"{{{{ {n} }}}}": v for n, v in env.globals.items() if n not in JINJA_GLOBALS}
    pages = site_pages(view.record, view.urls, view.releases)
    for page in pages:
        context = {"page": page, "canonical": view.links.absolute(page.url), **page.context}
        roots.update({f"{page.template}: {n}": v for n, v in context.items()})
    walk = Walk(env, _strings(built))
    walk.run(roots)
    assert walk.found == []
    reached = {type(obj) for obj in walk.kept}
    assert len(walk.kept) > 5_000, "the walk reached the record"
    for kind in (Path, types.ModuleType, type):
        assert kind not in reached
    for name in ("SiteView", "Links", "PageProse", "Query", "Computed", "DrawnCharts", "Release"):
        assert name in {kind.__name__ for kind in reached}
    unanswered = sorted(f"{k[0].__name__}.{k[1]}" for k in walk.called if k not in walk.answered)
    assert unanswered == [], "each method was called with values it takes"
    methods = {
        (type(None) if isinstance(member, staticmethod) else kind, name)
        for kind, names in readable().items()
        if kind in reached
        for name in names
        if (member := inspect.getattr_static(kind, name, None)) is not None
        and inspect.isfunction(_function(member))
        and not isinstance(member, (property, functools.cached_property))
    }
    assert methods - set(walk.called) == set(), "every method a template may call was called"
    assert len(walk.answered) > 60


def test_every_name_in_the_allow_list_is_there_to_read() -> None:
    missing = [
        f"{kind.__qualname__}.{name}"
        for kind, names in readable().items()
        for name in names
        if not hasattr(kind, name) and name not in _instance_fields(kind)
    ]
    assert missing == []


def _instance_fields(kind: type) -> set[str]:
    """The fields of a data class or model, and what its `__init__` sets on `self`."""
    if dataclasses.is_dataclass(kind):
        return {f.name for f in dataclasses.fields(kind)}
    found = set(getattr(kind, "model_fields", {}))
    init = kind.__dict__.get("__init__")
    for line in inspect.getsource(init).splitlines() if init is not None else ():
        found |= set(re.findall(r"self\.(\w+)", line.split("=", 1)[0])) if "=" in line else set()
    return found


@pytest.mark.parametrize(
    "expression",
    [
        "view.record.root",
        "view.record.root.read_text()",
        "view.record.library",
        "view.record.settings",
        "view.env",
        "view.urls",
        "view.prose.env",
        "view.drawn.kept",
        "view.releases[0].folder",
        "prose.env.loader",
        "prose.renderer",
        "query.record",
        "links.urls",
        "entity.parse_file('/etc/passwd')",
        "entity.model_dump",
        "entity.origin",
        "entity.__class__",
        "structured.func",
        "structured.args",
        "page.context",
        "lipsum.__globals__",
        "site.model_validate",
        "book.__dict__",
        "view.computed._derived",
        "view.nav_list.__self__",
        "(view.releases | first).folder",
        "view.releases | map(attribute='folder') | list",
        "'{0.record.root}'.format(view)",
        "dict.fromkeys",
        "cycler.__init__",
        "namespace.__init__.__globals__",
        "range.__globals__",
        "joiner().__call__",
    ],
)
def test_what_a_template_may_not_reach_is_refused(built: SiteBuild, expression: str) -> None:
    env = built.view.env
    assert isinstance(env, RecordSandbox)
    term = built.view.record.of("term")[0]
    page = next(p for p in site_pages(built.view.record, built.view.urls) if "entity" in p.context)
    template = env.from_string("{{ " + expression + " }}")
    with pytest.raises((jinja2.sandbox.SecurityError, jinja2.UndefinedError)):
        template.render(entity=term, page=page)


RETURNS_ANY = {("ChartData", "records"): "a query's values: SQLite's numbers, text, blobs, NULL"}
"""Methods whose values are typed Any, and what they are."""


def test_every_method_a_template_may_call_returns_plain_or_allowed_values(built: SiteBuild) -> None:
    """The static half of the walk: each method's return type, as mypy holds the method to
    it, names only plain types and the allow-list's."""
    allowed = {kind for kind in readable()} | {Entity, Markup, type(None)}
    allowed |= {str, int, float, bool, bytes, list, tuple, dict, set, frozenset, date}
    functions = [
        (kind.__name__, name, _function(inspect.getattr_static(kind, name)))
        for kind, names in readable().items()
        for name in sorted(names)
        if _function(inspect.getattr_static(kind, name, None)) is not None
    ]
    env = built.view.env
    functions += [
        ("globals", name, getattr(value, "func", value))
        for name, value in env.globals.items()
        if callable(value) and name not in JINJA_GLOBALS
    ]
    assert len(functions) > 60
    wrong = []
    for owner, name, function in functions:
        hints = typing.get_type_hints(function, localns={"SiteView": SiteView})
        returned = _classes(hints["return"])
        if Any in returned and (owner, name) not in RETURNS_ANY:
            wrong.append(f"{owner}.{name} returns Any")
        wrong += [
            f"{owner}.{name} returns a {kind.__qualname__}"
            for kind in returned - allowed - {Any}
            if not (isinstance(kind, type) and issubclass(kind, (str, Entity)))
        ]
    assert wrong == []


def _function(member: Any) -> Callable[..., Any] | None:
    """The function behind a method, a static method, a property or a cached property."""
    if isinstance(member, (staticmethod, classmethod)):
        return member.__func__  # type: ignore[no-any-return]
    if isinstance(member, property):
        return member.fget
    if isinstance(member, functools.cached_property):
        return member.func  # type: ignore[no-any-return]
    return member if inspect.isfunction(member) else None


def _classes(hint: Any) -> set[Any]:
    """Every class a type names, its arguments' too (`list[tuple[str, Entity]]`)."""
    origin = typing.get_origin(hint)
    if origin is None:
        return {hint}
    found = set() if origin in (typing.Union, types.UnionType) else {origin}
    for argument in typing.get_args(hint):
        if argument is not Ellipsis:
            found |= _classes(argument)
    return found


def test_the_bundled_site_is_the_same_rendered_in_the_sandbox(
    built: SiteBuild, folder: Path, bundled_site: Path
) -> None:
    """The allow-list holds all the package's own templates read: with a template of the
    record's own (one no page uses), every page is as the plain environment renders it."""
    ours = folder / "site"
    names = {
        p.relative_to(bundled_site)
        for p in bundled_site.rglob("*")
        if p.is_file() and "pagefind" not in p.parts and p.name != ".sourcebook-site"
    }
    assert len(names) > 300
    differ = [
        n for n in sorted(names) if (ours / n).read_bytes() != (bundled_site / n).read_bytes()
    ]
    assert differ == []


def _bytes(path: Path) -> bytes:
    return path.read_bytes() if path.is_file() else b"(missing)"
