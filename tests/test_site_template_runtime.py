"""What the site's templates run on: Jinja's escaping and calls, made faster, and alike."""

from __future__ import annotations

from pathlib import Path

import markupsafe
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jinja2 import Environment, UndefinedError, pass_context
from jinja2.runtime import Context
from markupsafe import Markup

from sourcebook.publish.site import render
from sourcebook.runtime import templates as fast


@given(st.text())
def test_a_str_is_escaped_as_markupsafe_escapes_it(text: str) -> None:
    escaped = fast.escape(text)
    assert type(escaped) is Markup
    assert escaped == markupsafe.escape(text)


def test_markup_and_other_values_are_escaped_as_markupsafe_escapes_them() -> None:
    class Html:
        def __html__(self) -> str:
            return "<b>kept</b>"

    class Named(str):
        pass

    for value in (Markup("<i>safe</i>"), 3, 2.5, None, Html(), Named("<x>"), ["<"]):
        escaped = fast.escape(value)
        assert type(escaped) is Markup
        assert escaped == markupsafe.escape(value)


def test_every_template_writes_through_it(tmp_path: Path) -> None:
    env = render.environment(tmp_path, {"view": None})
    loaded = env.get_template("404.html")
    inline = env.from_string("{{ value }}|{{ safe }}")
    for template in (loaded, inline):
        assert template.root_render_func.__globals__["escape"] is fast.escape
    shown = inline.render(value="<script>alert('x') & \"y\"</script>", safe=Markup("<b>ok</b>"))
    assert shown == "&lt;script&gt;alert(&#39;x&#39;) &amp; &#34;y&#34;&lt;/script&gt;|<b>ok</b>"


class _Helper:
    def __init__(self) -> None:
        self.seen: list[tuple] = []

    def plain(self, *args: object, **kwargs: object) -> str:
        self.seen.append((args, kwargs))
        return "<plain>"

    @pass_context
    def with_context(self, context: Context, name: str) -> str:
        return f"{name}={context.get(name)}"

    def stops(self) -> str:
        raise StopIteration


def test_calls_reach_methods_and_context_taking_callables_as_in_jinja(tmp_path: Path) -> None:
    source = (
        "{% set a = 1 %}{{ helper.plain(1, k=2) }}|{{ helper.with_context('a') }}|"
        "{% for x in [3] %}{{ helper.plain(x) }}{{ helper.with_context('a') }}{% endfor %}|"
        "{% macro m(y) %}[{{ helper.plain(y) }}{{ free('b') }}]{% endmacro %}{{ m(4) }}|"
        "{% block inner %}{{ helper.with_context('b') }}{{ free('a') }}{% endblock %}"
    )
    shown, seen = [], []
    for env in (render.environment(tmp_path, {}), Environment(autoescape=True)):
        helper = _Helper()
        free = pass_context(lambda context, name: context.get(name))
        shown.append(env.from_string(source).render(helper=helper, free=free, b=5))
        seen.append(helper.seen)
    assert shown[0] == shown[1]
    assert "|a=1|" in shown[0] and "[&lt;plain&gt;5]" in shown[0]
    assert seen[0] == seen[1] == [((1,), {"k": 2}), ((3,), {}), ((4,), {})]


def test_a_method_that_raises_stop_iteration_gives_undefined_as_in_jinja(tmp_path: Path) -> None:
    env = render.environment(tmp_path, {"helper": _Helper()})
    template = env.from_string("{{ helper.stops() }}")
    with pytest.raises(UndefinedError, match="StopIteration"):
        template.render()
