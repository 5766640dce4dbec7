"""How much a record's own templates may do, so that a page of them ends in time and memory
linear in the record.

`reach.py` decides what a template may read; this module decides how much it may do.
Where a record has templates of its own, every render (a page, with the templates it
includes, extends and calls) has:

- a budget of steps: each loop iteration, each call (a macro, a filter's method, a view's
  method) and each read of an attribute or an item is one step; a render may take
  `STEPS_BASE` plus `STEPS_PER_ENTITY` for each entity of the record, and all the renders
  of a build (in each of its processes) `BUILD_STEPS_BASE` plus `BUILD_STEPS_PER_ENTITY`
  for each entity, so that a build's pages together are linear in the record too. Loops
  nested over the record, or a macro that calls itself twice, run out of steps long
  before they run out of time (a step is a tenth of a microsecond to a few microseconds);
- values of bounded size: an operator (`*`, `**`, `+`, `%`, `~`) or a filter that would
  make a string, a list or a number larger than `LARGEST_VALUE` characters, items or
  bits is refused before it is made, as is a field width over `LARGEST_WIDTH` in a
  format;
- an output of bounded size: a page of more than `LARGEST_PAGE` characters is refused as
  it grows.

Each refusal is a `TemplateBudgetError`, which the build reports as one line at the
template's file and line. sourcebook's own templates, rendered where a record has none,
run without these counts; with a record's templates the bundled site renders the same,
byte for byte, well within them.
"""

from __future__ import annotations

import contextlib
import inspect
import math
import operator
import re
from collections.abc import Callable, Generator, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, cast

from jinja2 import nodes
from jinja2.environment import Template
from jinja2.filters import FILTERS as JINJA_FILTERS
from jinja2.runtime import markup_join, str_join
from jinja2.sandbox import SecurityError
from jinja2.utils import pass_environment, pass_eval_context
from jinja2.visitor import NodeTransformer

STEPS_BASE = 1_000_000
"""Steps any render may take: the largest page of the bundled record takes 2,500."""
STEPS_PER_ENTITY = 200
"""Steps a render may take beyond the base for each entity of the record: a page that
lists every entity with a few dozen of its fields each is well within."""
BUILD_STEPS_BASE = 5_000_000
"""Steps all the renders of a build may take together: the bundled record's take 37,000."""
BUILD_STEPS_PER_ENTITY = 2_000
"""Steps a build's renders may take beyond the base for each entity: the bundled record's
take about 130."""
LARGEST_VALUE = 16_000_000
"""Characters of a string, items of a list, or bits of a number a template may make."""
LARGEST_WIDTH = 100_000
"""The widest field a format may pad a value to."""
LARGEST_PAGE = 64_000_000
"""Characters a render may produce."""

COUNTED = "sourcebook_counted"
"""The filter each loop of a record's template iterates through: a step for each item."""
JOINED = "sourcebook_joined"
"""The filter `~` becomes in a record's template: the join, its size checked first."""


class TemplateBudgetError(SecurityError):
    """A record's template that would do more, or make more, than a render may."""


@dataclass
class Steps:
    """Steps left of those `allowed`: a render's, or a build's."""

    left: int
    allowed: int

    def take(self, steps: int, whose: str) -> None:
        self.left -= steps
        if self.left < 0:
            raise TemplateBudgetError(
                f"the templates took more than the {self.allowed:,} steps {whose} may take "
                "(a loop's turn, a call or a read is one): a loop nested over the record, or "
                "a macro that calls itself more than once, does work that grows faster "
                "than the record"
            )


@dataclass(frozen=True)
class Budget:
    """What a record's templates may do: each render `per_render` steps, and all of a
    build's renders in one process the steps left in `build`."""

    per_render: int
    build: Steps

    @classmethod
    def for_record(cls, entities: int) -> Budget:
        """The budget of a record of `entities` entities."""
        entities = max(0, entities)
        build = BUILD_STEPS_BASE + BUILD_STEPS_PER_ENTITY * entities
        return cls(STEPS_BASE + STEPS_PER_ENTITY * entities, Steps(build, build))


@dataclass
class _Render:
    steps: Steps
    build: Steps


_CURRENT: ContextVar[_Render | None] = ContextVar("sourcebook_template_steps", default=None)


@contextlib.contextmanager
def one_render(budget: Budget) -> Iterator[None]:
    """The budget of a render: opened by the outermost render, shared by those it makes
    (an included template, the navigation rendered for the page)."""
    if _CURRENT.get() is not None:
        yield
        return
    token = _CURRENT.set(_Render(Steps(budget.per_render, budget.per_render), budget.build))
    try:
        yield
    finally:
        _CURRENT.reset(token)


def charge(steps: int = 1) -> None:
    """Count `steps` against the render under way and its build; refuse once either is
    spent. Outside a render (a macro called from Python) nothing is counted: each of the
    build's calls into a template is a render of its own."""
    current = _CURRENT.get()
    if current is None:
        return
    current.steps.take(steps, "a page")
    current.build.take(steps, "a build's pages")


class BudgetedTemplate(Template):
    """A template of a record's sandbox: its render counted, its output bounded."""

    def render(self, *args: Any, **kwargs: Any) -> str:
        budget = getattr(self.environment, "budget", None) or Budget.for_record(0)
        with one_render(budget):
            made: list[str] = []
            size = 0
            pieces = cast(Generator[str, None, None], self.generate(*args, **kwargs))
            for piece in pieces:
                size += len(piece)
                if size > LARGEST_PAGE:  # raised where the template is, at the line it wrote
                    too_long = f"the page would be longer than {LARGEST_PAGE:,} characters"
                    pieces.throw(TemplateBudgetError(too_long))
                made.append(piece)
            return "".join(made)


class Counting(NodeTransformer):
    """A record's template as it is compiled: each loop counted, each `~` checked."""

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        node.iter = nodes.Filter(node.iter, COUNTED, [], [], None, None, lineno=node.lineno)
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        items = nodes.List(list(node.nodes), lineno=node.lineno)
        return nodes.Filter(items, JOINED, [], [], None, None, lineno=node.lineno)


def counted(items: Any) -> Iterator[Any]:
    """`items`, a step charged for each."""
    for item in items:
        charge()
        yield item


@pass_eval_context
def joined(eval_ctx: Any, items: list[Any]) -> str:
    """What `~` makes of `items`, refused where it would be larger than a value may be."""
    parts = [item if isinstance(item, str) else str(item) for item in items]
    refuse_size(sum(len(part) for part in parts), "the joined string")
    return markup_join(parts) if eval_ctx.autoescape else str_join(parts)


def refuse_size(size: int, what: str) -> None:
    """Refuse a value of `size` characters, items or bits over the bound; count the making
    of one within it as a step for each 4,096 of them."""
    if size > LARGEST_VALUE:
        raise TemplateBudgetError(
            f"{what} would hold {size:,} characters, items or bits, more than the "
            f"{LARGEST_VALUE:,} a template may make"
        )
    charge(1 + size // 4096)


def _size(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value.bit_length()
    if isinstance(value, str | bytes | list | tuple):
        return len(value)
    return None


_BINOPS: dict[str, Callable[[Any, Any], Any]] = {
    "*": operator.mul,
    "**": operator.pow,
    "+": operator.add,
    "%": operator.mod,
}
INTERCEPTED = frozenset(_BINOPS)


def binop(op: str, left: Any, right: Any) -> Any:
    """`left op right`, refused where the result would be larger than a value may be."""
    if op == "*":
        _refuse_product(left, right)
    elif op == "**":
        _refuse_power(left, right)
    elif op == "+":
        sizes = (_size(left), _size(right))
        if sizes[0] is not None and sizes[1] is not None and not isinstance(left, int):
            refuse_size(sizes[0] + sizes[1], "the sum")
    elif op == "%" and isinstance(left, str):
        refuse_widths(left, right)
    return _BINOPS[op](left, right)


def _refuse_product(left: Any, right: Any) -> None:
    for times, value in ((left, right), (right, left)):
        if isinstance(times, int) and not isinstance(times, bool):
            size = _size(value)
            if size is not None and not isinstance(value, int):
                refuse_size(size * max(0, times), "the repeated value")
                return
    sizes = (_size(left), _size(right))
    if isinstance(left, int) and isinstance(right, int) and None not in sizes:
        refuse_size(sum(size or 0 for size in sizes), "the product")


def _refuse_power(base: Any, exponent: Any) -> None:
    if isinstance(base, int | float) and isinstance(exponent, int) and exponent > 0:
        magnitude = abs(base)
        if isinstance(base, int) and magnitude > 1:
            refuse_size(int(exponent * math.log2(magnitude)) + 1, "the power")
        elif isinstance(base, float) and exponent > LARGEST_WIDTH:
            charge(1 + exponent.bit_length())


_PRINTF_WIDTH = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")
_FORMAT_FIELD = re.compile(r"\{[^{}]*\}")


def refuse_widths(template: str, arguments: Any = ()) -> None:
    """Refuse a `%` format of `template` that pads or extends a field past the widest
    allowed (a width given as `*` is read from `arguments`)."""
    values = list(arguments) if isinstance(arguments, tuple) else [arguments]
    for found in _PRINTF_WIDTH.finditer(template):
        for width in found.groups():
            if width == "*":
                _refuse_width(next((v for v in values if isinstance(v, int)), 0))
            elif width:
                _refuse_width(int(width))


def refuse_spec_widths(spec: str) -> None:
    """Refuse a `str.format` field's spec (its nested fields already filled in) that pads
    a value past the widest allowed."""
    for digits in re.findall(r"\d+", spec):
        _refuse_width(int(digits))


def _refuse_width(width: int) -> None:
    if width > LARGEST_WIDTH:
        raise TemplateBudgetError(
            f"a field {width:,} characters wide is more than the {LARGEST_WIDTH:,} a format "
            "may pad to"
        )


def _width_checked(name: str, width_name: str) -> Callable[..., Any]:
    """Jinja's filter `name`, its argument `width_name` (a width or a count of what it
    makes) refused over the widest allowed."""
    jinja = JINJA_FILTERS[name]
    signature = inspect.signature(jinja)

    def checked(*args: Any, **kwargs: Any) -> Any:
        width = signature.bind_partial(*args, **kwargs).arguments.get(width_name, 0)
        if isinstance(width, int):
            _refuse_width(width)
        return jinja(*args, **kwargs)

    checked.__name__ = checked.__qualname__ = f"checked_{name}"
    pass_arg = getattr(jinja, "jinja_pass_arg", None)
    if pass_arg is not None:
        checked.jinja_pass_arg = pass_arg  # type: ignore[attr-defined]
    return checked


def _format(value: Any, *args: Any, **kwargs: Any) -> str:
    refuse_widths(str(value), args)
    return str(JINJA_FILTERS["format"](value, *args, **kwargs))


@pass_environment
def _sum(environment: Any, iterable: Iterable[Any], attribute: Any = None, start: Any = 0) -> Any:
    if not isinstance(start, int | float) or isinstance(start, bool):
        raise TemplateBudgetError("sum adds numbers only in a record's template")
    return JINJA_FILTERS["sum"](environment, iterable, attribute=attribute, start=start)


def _replace(eval_ctx: Any, value: Any, old: Any, new: Any, count: int | None = None) -> Any:
    text, old_text, new_text = str(value), str(old), str(new)
    times = text.count(old_text) if count is None else min(count, text.count(old_text))
    refuse_size(len(text) + times * max(0, len(new_text) - len(old_text)), "the replaced string")
    return JINJA_FILTERS["replace"](eval_ctx, value, old, new, count)


FILTERS: dict[str, Callable[..., Any]] = {
    COUNTED: counted,
    JOINED: joined,
    "center": _width_checked("center", "width"),
    "indent": _width_checked("indent", "width"),
    "batch": _width_checked("batch", "linecount"),
    "slice": _width_checked("slice", "slices"),
    "format": _format,
    "sum": _sum,
    "replace": pass_eval_context(_replace),
}
"""The filters a record's sandbox has in place of Jinja's: counted, or sized first."""
