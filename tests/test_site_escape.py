"""The escaping the site's templates write values through: markupsafe's, made faster."""

from __future__ import annotations

from pathlib import Path

import markupsafe
from hypothesis import given
from hypothesis import strategies as st
from markupsafe import Markup

from sourcebook.publish.site import render


@given(st.text())
def test_a_str_is_escaped_as_markupsafe_escapes_it(text: str) -> None:
    escaped = render.escape(text)
    assert type(escaped) is Markup
    assert escaped == markupsafe.escape(text)


def test_markup_and_other_values_are_escaped_as_markupsafe_escapes_them() -> None:
    class Html:
        def __html__(self) -> str:
            return "<b>kept</b>"

    class Named(str):
        pass

    for value in (Markup("<i>safe</i>"), 3, 2.5, None, Html(), Named("<x>"), ["<"]):
        escaped = render.escape(value)
        assert type(escaped) is Markup
        assert escaped == markupsafe.escape(value)


def test_every_template_writes_through_it(tmp_path: Path) -> None:
    env = render.environment(tmp_path, {"view": None})
    loaded = env.get_template("404.html")
    inline = env.from_string("{{ value }}|{{ safe }}")
    for template in (loaded, inline):
        assert template.root_render_func.__globals__["escape"] is render.escape
    shown = inline.render(value="<script>alert('x') & \"y\"</script>", safe=Markup("<b>ok</b>"))
    assert shown == ("&lt;script&gt;alert(&#39;x&#39;) &amp; &#34;y&#34;&lt;/script&gt;|<b>ok</b>")
