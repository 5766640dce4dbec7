"""The templates' fast paths: Jinja as it is, with the calls a site makes most made cheaper.

`environment_class` gives the Jinja environment a build uses: with the `templates`
speed-up on, compiled templates write values through `escape` below, call the view's
methods without Jinja's checks, and see their globals as one flat dict; with it off,
Jinja's own `Environment` (or `SandboxedEnvironment`).
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from types import CodeType, MethodType
from typing import Any

import markupsafe
from jinja2 import Environment, Template
from jinja2.runtime import Context
from jinja2.sandbox import SandboxedEnvironment
from markupsafe import Markup

from sourcebook.runtime.switches import plain


def escape_text(text: str) -> str:
    """What markupsafe.escape gives for a str, as a plain str: the one escaper of the HTML
    that Python writes (prose, links), and of `escape` below."""
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("'", "&#39;")
        .replace('"', "&#34;")
    )


def environment_class(sandboxed: bool) -> type[Environment]:
    """The Jinja environment to build with: sandboxed for a record's own templates."""
    if plain("templates"):
        return SandboxedEnvironment if sandboxed else Environment
    return _SandboxedEnvironment if sandboxed else _Environment


def escape(value: Any) -> Markup:
    """What `markupsafe.escape` gives, for the values templates write most, faster.

    A template escapes every value it writes, half a million of them at 10,000 entities;
    markupsafe's escape asks each, str or not, whether it is markup already, and again as
    it wraps the result: a tenth of the time a page takes. Anything but a str or Markup
    goes to markupsafe itself."""
    kind = type(value)
    if kind is str:
        return _as_markup(Markup, escape_text(value))
    if kind is Markup:
        return value
    return markupsafe.escape(value)


_as_markup = str.__new__
"""Markup made from a str known to be escaped, without Markup's check that it may be
markup already."""


class _Template(Template):
    @classmethod
    def from_code(
        cls,
        environment: Environment,
        code: CodeType,
        globals: MutableMapping[str, Any],
        uptodate: Callable[[], bool] | None = None,
    ) -> Template:
        """The template, its compiled code writing values through `escape` above."""
        template = super().from_code(environment, code, globals, uptodate)
        template.root_render_func.__globals__["escape"] = escape
        return template


class _Context(Context):
    def call(__self, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        """Jinja's `Context.call`, quicker for the calls templates make most: to methods
        (the view's) that take no context, called as they are. For every call, Jinja asks
        three times whether the callable wants the context passed in."""
        if type(__obj) is MethodType and not hasattr(__obj, "jinja_pass_arg"):
            if kwargs:
                kwargs.pop("_block_vars", None)
                kwargs.pop("_loop_vars", None)
            try:
                return __obj(*args, **kwargs)
            except StopIteration:  # as Jinja takes it
                return __self.environment.undefined(
                    "value was undefined because a callable raised a StopIteration exception"
                )
        return super().call(__obj, *args, **kwargs)


class _Environment(Environment):
    template_class = _Template
    context_class = _Context

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        """A template's globals as one flat dict, not Jinja's ChainMap over the
        environment's: every render copies them into its context, and a ChainMap copies
        several times slower. The build sets every global before it loads a template."""
        return {**self.globals, **(d or {})}


class _SandboxedEnvironment(SandboxedEnvironment, _Environment):
    """The sandbox, with the same templates, contexts and globals as the plain one."""
