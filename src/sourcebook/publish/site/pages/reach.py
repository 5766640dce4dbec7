"""What a record's own templates may reach, and the sandbox that holds them to it.

A record's templates are code from whoever wrote the record. They render in
`RecordSandbox`, an immutable Jinja sandbox that reads by an allow-list:

- plain values (strings, Markup, numbers, days, lists, tuples, mappings, sets), with the
  methods Jinja's immutable sandbox allows on them;
- the record's values (each kind of entity, its figures and parties, the settings), what
  derive computed (scorecard rows, verdicts, timelines, futures, the machine), and what
  the pages are made of (releases, the navigation, the paper's figures): their fields, and
  the few properties and methods named in `READABLE`, never a field kept from the JSON
  twins (`json_text.PRIVATE`: a folder on the machine that built the site);
- the view's parts (`links`, `prose`, `figures`, `query`, `view` and its `computed`,
  `drawn`, `citations`): the methods docs/site.md lists, each of which returns plain
  values or values above;
- Jinja's own (macros, `loop`, `namespace`, `self`, `super()`), and the functions the build
  gives every template.

Anything else, a Python object of any other type or an attribute not named, is refused
with a SecurityError before it is read: a property is never run to find out.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import types
from collections import OrderedDict, defaultdict
from datetime import date, datetime, time, timedelta
from enum import Enum
from typing import Any

from jinja2 import nodes
from jinja2.environment import TemplateModule
from jinja2.runtime import BlockReference, LoopContext, Macro, TemplateReference, Undefined
from jinja2.sandbox import (
    ImmutableSandboxedEnvironment,
    SandboxedEscapeFormatter,
    SandboxedFormatter,
    SecurityError,
)
from jinja2.utils import Cycler, Joiner, Namespace
from markupsafe import Markup

from sourcebook.compile.database import QueryError
from sourcebook.derive import Derived
from sourcebook.derive.campuses import CampusState, Carried, Step
from sourcebook.derive.charts import ChartData, Overview
from sourcebook.derive.machine import Edge, Holding, Machine, Node
from sourcebook.derive.scenarios import Parameter as ScenarioParameter
from sourcebook.derive.scenarios import ScenarioResult
from sourcebook.derive.scorecard import Answer, FigureRef, Point, Row
from sourcebook.derive.timeline import Timeline, TimelinePoint
from sourcebook.derive.verdicts import Verdict
from sourcebook.incremental import TracedRecord, note_attribute
from sourcebook.link.backlinks import Backlinks
from sourcebook.model.conflicts import Conflict, Stated
from sourcebook.model.highlight import Highlight
from sourcebook.model.kinds import KINDS, CampusParty, Evidence, Figure, Future, Parameter
from sourcebook.model.projection import FutureResult, Year
from sourcebook.model.record import Record
from sourcebook.model.settings import Book, Limits, Notify, Settings, Site
from sourcebook.model.watch import Summary
from sourcebook.model.watch import Tally as WatchTally
from sourcebook.notify.policy import Column, Statement, Table
from sourcebook.notify.site import SignupForm
from sourcebook.publish.site.drawing import paper
from sourcebook.publish.site.drawing.drawn import Cell, DrawnCharts
from sourcebook.publish.site.drawing.machine import Drawing
from sourcebook.publish.site.drawing.machine_page import (
    Counted,
    MachineView,
    OwnerRow,
    RoleRow,
)
from sourcebook.publish.site.formats.cite_formats import CiteFormat
from sourcebook.publish.site.formats.feeds import Entry, Feed
from sourcebook.publish.site.pages.copies import CopyContext
from sourcebook.publish.site.pages.kept_blocks import KeptBlocks
from sourcebook.publish.site.pages.links import Links
from sourcebook.publish.site.pages.page import MachineContext, Page
from sourcebook.publish.site.pages.releases import Release, ReleaseFile
from sourcebook.publish.site.pages.sections import ConsentPolicy
from sourcebook.publish.site.pages.series import InSeries
from sourcebook.publish.site.pages.template_budget import FILTERS as BUDGET_FILTERS
from sourcebook.publish.site.pages.template_budget import (
    INTERCEPTED,
    Budget,
    BudgetedTemplate,
    Counting,
    binop,
    charge,
    refuse_spec_widths,
)
from sourcebook.publish.site.pages.wayfinding import Crumb, MenuGroup, NavItem
from sourcebook.publish.site.view.citations import Citations
from sourcebook.publish.site.view.computed import Computed
from sourcebook.publish.site.view.figures import Figures
from sourcebook.publish.site.view.page_prose import PageProse
from sourcebook.publish.site.view.query import Query
from sourcebook.publish.site.view.site_view import SiteView
from sourcebook.publish.site.view.watched import Address, CopyPage, HeldCopy
from sourcebook.runtime.memo import memoized

PLAIN = frozenset(
    {
        type(None), bool, int, float, str, Markup, bytes, date, datetime, time, timedelta,
        list, tuple, dict, defaultdict, OrderedDict, set, frozenset, range,
    }
)  # fmt: skip
"""Values a template reads as Jinja's immutable sandbox allows, by their exact type: a
subclass (a named tuple, a dict with methods of its own) is read by the allow-list."""
JINJA = frozenset(
    {
        BlockReference,
        Cycler,
        Joiner,
        LoopContext,
        Macro,
        Namespace,
        TemplateModule,
        TemplateReference,
    }
)
"""Jinja's own objects: a template's macros, `loop`, `namespace()`, `self` and `super()`."""


def fields(kind: type, *extra: str) -> frozenset[str]:
    """The fields of a data class, a model or a named tuple, less those kept from the JSON
    twins (`json_text.PRIVATE`), with `extra` (properties and methods that return plain
    values)."""
    if dataclasses.is_dataclass(kind):
        names = {f.name for f in dataclasses.fields(kind) if f.metadata.get("api", True)}
    elif hasattr(kind, "model_fields"):
        names = set(kind.model_fields)
    else:
        names = set(getattr(kind, "_fields", ()))
    return frozenset(names | set(extra))


@memoized()
def readable() -> dict[type, frozenset[str]]:
    """What a template may read of each type it can reach, by its exact type."""
    entity = ("kind", "key")
    data: list[type] = [
        # the record's values
        CampusParty, Figure, Evidence, Parameter, Future, Highlight,
        Site, Notify, Limits,
        # what derive computed
        Overview, Node, Edge, Holding, FigureRef, Point, Year,
        Stated, ScenarioParameter, Backlinks,
        # what the pages are made of
        InSeries, NavItem, Cell, Entry, Feed, Drawing, Counted, OwnerRow, RoleRow,
        paper.Figure, paper.RenderedPaper, SignupForm, Column, Table, MenuGroup, Crumb,
        CiteFormat, CampusState, Carried, Step,
        # what the last watch found, and the Library's copies
        Address, HeldCopy, CopyPage, CopyContext, Summary,
    ]  # fmt: skip
    found = {kind: fields(kind) for kind in data}
    found |= {kind.model: fields(kind.model, *entity) for kind in KINDS}
    found |= {
        Settings: fields(Settings),
        Book: fields(Book, "stands_at"),
        Derived: fields(Derived),
        Machine: fields(Machine, "campuses", "parties"),
        ChartData: fields(ChartData, "records"),
        QueryError: frozenset({"message", "offset"}),
        Answer: fields(Answer, "shown"),
        Row: fields(Row, "figure", "grade", "source", "anchor"),
        Verdict: fields(Verdict),
        Timeline: fields(Timeline, "statuses", "series"),
        TimelinePoint: fields(TimelinePoint),
        Conflict: fields(Conflict, "spread"),
        ScenarioResult: fields(ScenarioResult, "parameter"),
        FutureResult: fields(FutureResult, "revenue_total_usd"),
        Release: fields(Release, "has"),
        ReleaseFile: fields(ReleaseFile, "runs"),
        Statement: fields(Statement, "sha256"),
        WatchTally: fields(WatchTally, "total"),
        Page: frozenset({"url", "template", "listed"}),
        KeptBlocks: frozenset({"_kept"}),  # a `kept` block's own call
        # the view and its parts
        SiteView: frozenset(
            {
                "record",
                "releases",
                "nav",
                "nav_list",
                "nav_menu",
                "menu",
                "trail",
                "series",
                "citations",
                "computed",
                "drawn",
            }
        ),
        TracedRecord: frozenset({"of"}),
        Record: frozenset({"of"}),
        Citations: frozenset({"short", "head"}),
        Computed: frozenset(
            {
                "derived",
                "as_of",
                "row",
                "verdict",
                "timelines",
                "conflicts",
                "point",
                "scenario",
                "campus",
                "evidenced",
                "owner",
                "power",
                "chips",
                "shown",
                "outcome",
                "closed",
                "quote_words",
                "timeline_chart",
                "scenario_chart",
                "year_value",
                "measure",
            }
        ),  # fmt: skip
        DrawnCharts: frozenset(
            {"charts", "data", "svg", "headings", "cells", "figure_url", "figure_name"}
        ),
        Links: frozenset(
            {
                "url",
                "section",
                "static",
                "absolute",
                "source_page",
                "source_category",
                "chart_csv",
                "release_file",
                "safe_url",
                "host",
            }
        ),  # fmt: skip
        PageProse: frozenset({"html", "plain", "fragment", "fragments", "cite", "disclosure"}),
        Figures: frozenset({"shown", "by_id", "metric"}),
        Query: frozenset(
            {
                "entity",
                "entities",
                "same_as",
                "backlinks",
                "used_by",
                "users",
                "used",
                "chapter_terms",
                "roles",
                "in_release",
                "citation_meta",
                "coins",
                "label",
                "chapter_label",
                "chapter_name",
                "category_label",
                "addresses",
                "copies",
                "held",
                "watch_report",
            }
        ),  # fmt: skip
        MachineView: frozenset(
            {
                "machine",
                "drawing",
                "roles",
                "rows",
                "owners",
                "total",
                "by_campus",
                "row_key",
                "campus_key",
            }
        ),
        # a page's context that only its JSON twin reads
        MachineContext: frozenset(),
        ConsentPolicy: frozenset(),
    }
    return found


@memoized()
def static_methods() -> frozenset[int]:
    """The static methods a template may call, as reading them gives them (a function, by
    its id: each lives as long as its class)."""
    found = set()
    for kind, names in readable().items():
        for name in names:
            member = inspect.getattr_static(kind, name, None)
            if isinstance(member, staticmethod):
                found.add(id(member.__func__))
    return frozenset(found)


def is_plain(value: Any) -> bool:
    """A plain value: one of PLAIN, or a member of an enumeration (the record's kinds of
    status, role, grade: strings)."""
    return type(value) in PLAIN or isinstance(value, Enum)


class RecordSandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox, reading only what `readable` allows: a template reaches
    plain values, the record's and derive's values, and the view's documented parts; each
    render held to the budget of `template_budget` (its steps counted as it reads, calls
    and loops, its values and its output sized)."""

    template_class = BudgetedTemplate
    intercepted_binops = INTERCEPTED

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._functions: frozenset[int] | None = None
        self._given_functions: list[Any] = []  # held, so that their ids stay theirs
        self.filters.update(BUDGET_FILTERS)
        self.budget = Budget.for_record(0)
        """What its renders may do (`template_budget.Budget`, for the record's size)."""

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        tree = super()._parse(source, name, filename)
        counted = Counting().visit(tree)
        assert isinstance(counted, nodes.Template)
        return counted

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        return binop(operator, left, right)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        charge()
        return super().call(__context, __obj, *args, **kwargs)

    def wrap_str_format(self, value: Any) -> Any:
        """`str.format` of a template, its fields' widths sized (see `SizedFormatter`)."""
        if not isinstance(value, types.MethodType | types.BuiltinMethodType) or (
            value.__name__ not in ("format", "format_map")
        ):
            return None
        text = value.__self__
        if not isinstance(text, str):
            return None
        formatter: SandboxedFormatter
        if isinstance(text, Markup):
            formatter = SizedEscapeFormatter(self, escape=text.escape)
        else:
            formatter = SizedFormatter(self)
        by_map = value.__name__ == "format_map"

        def formatted(*args: Any, **kwargs: Any) -> str:
            if by_map:
                if kwargs or len(args) != 1:
                    raise TypeError("format_map() takes exactly one mapping")
                return type(text)(formatter.vformat(text, (), args[0]))
            return type(text)(formatter.vformat(text, args, kwargs))

        return functools.update_wrapper(formatted, value)

    def may_read(self, obj: Any, attr: str) -> bool:
        """Whether a template may read `attr` of `obj`, decided before it is read."""
        if attr.startswith("_"):
            return False
        names = readable().get(type(obj))
        if names is not None:
            return attr in names
        return _open(obj)

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        names = readable().get(type(obj))
        if names is not None:
            return attr in names
        return self.may_read(obj, attr) and super().is_safe_attribute(obj, attr, value)

    def getattr(self, obj: Any, attribute: str) -> Any:
        charge()
        note_attribute(obj, attribute)  # what the page read (see `incremental.Reads`)
        names = readable().get(type(obj))
        if names is not None:
            if attribute in names:
                try:
                    return getattr(obj, attribute)
                except AttributeError:
                    return self.undefined(obj=obj, name=attribute)
            self._refuse(obj, attribute)
            return self.undefined(obj=obj, name=attribute)
        if not _open(obj):  # an object of no type the list names: nothing of it is read
            self._refuse(obj, attribute)
            return self.undefined(obj=obj, name=attribute)
        if attribute.startswith("_"):
            self._refuse(obj, attribute)
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        charge()
        if _open(obj):
            return super().getitem(obj, argument)
        if isinstance(obj, tuple) and isinstance(argument, int) and type(obj) in readable():
            return obj[argument]  # a named tuple's field by its place
        if isinstance(argument, str):
            return self.getattr(obj, argument)
        raise SecurityError(f"a template may not index {_named(obj)}")

    def _refuse(self, obj: Any, attribute: str) -> None:
        """Refuse an attribute that exists: one that does not is undefined, as anywhere
        (`x.y is defined`)."""
        if inspect.getattr_static(obj, attribute, _MISSING) is not _MISSING:
            raise SecurityError(f"a template may not read {attribute!r} of {_named(obj)}")

    def is_safe_callable(self, obj: Any) -> bool:
        if not super().is_safe_callable(obj):
            return False
        if isinstance(obj, types.MethodType):
            owner = obj.__self__
            names = readable().get(type(owner))
            if names is not None:
                return obj.__name__ in names
            return type(owner) in JINJA
        if isinstance(obj, types.BuiltinMethodType):
            return is_plain(obj.__self__)
        wrapped = getattr(obj, "__wrapped__", None)  # str.format, sandboxed by Jinja
        if isinstance(wrapped, types.BuiltinMethodType) and isinstance(wrapped.__self__, str):
            return True
        if type(obj) in JINJA or id(obj) in static_methods():
            return True
        return id(obj) in self._given()

    def _given(self) -> frozenset[int]:
        """The functions every template is given (its globals: Jinja's and the build's)."""
        if self._functions is None:
            self._given_functions = [v for v in self.globals.values() if callable(v)]
            self._functions = frozenset(id(v) for v in self._given_functions)
        return self._functions


class SizedFormatter(SandboxedFormatter):
    """Jinja's sandboxed `str.format`, refusing a field padded past the widest allowed."""

    def format_field(self, value: Any, format_spec: str) -> Any:
        refuse_spec_widths(format_spec)
        return super().format_field(value, format_spec)


class SizedEscapeFormatter(SandboxedEscapeFormatter):
    """`SizedFormatter` for a Markup's `format`, escaping what it fills in."""

    def format_field(self, value: Any, format_spec: str) -> Any:
        refuse_spec_widths(format_spec)
        return super().format_field(value, format_spec)


_MISSING = object()


def _open(obj: Any) -> bool:
    """Whether Jinja's immutable sandbox decides what a template reads of `obj`: a plain
    value, or one of Jinja's own objects."""
    return is_plain(obj) or type(obj) in JINJA or isinstance(obj, Undefined)


def _named(obj: Any) -> str:
    kind = type(obj)
    return f"a {kind.__name__} object" if kind.__module__ != "builtins" else f"a {kind.__name__}"
