"""The site's templates escape every value they write, in Jinja's own way."""

from __future__ import annotations

from pathlib import Path

from markupsafe import Markup

from sourcebook.publish.site.pages import render


def test_every_template_escapes_what_it_writes(tmp_path: Path) -> None:
    env = render.environment(tmp_path, {"view": None})
    inline = env.from_string("{{ value }}|{{ safe }}")
    shown = inline.render(value="<script>alert('x') & \"y\"</script>", safe=Markup("<b>ok</b>"))
    assert shown == "&lt;script&gt;alert(&#39;x&#39;) &amp; &#34;y&#34;&lt;/script&gt;|<b>ok</b>"
    assert env.get_template("404.html").environment.autoescape is not False


def test_a_record_with_templates_of_its_own_renders_in_the_sandbox(tmp_path: Path) -> None:
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "extra.html").write_text("{{ 1 }}")
    assert render.environment(tmp_path, {}).sandboxed
    assert not render.environment(tmp_path / "none", {}).sandboxed
