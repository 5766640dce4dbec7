"""The service's own small pages: Jinja2 with autoescaping, sent under a strict policy."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.responses import HTMLResponse

from sourcebook.notify.config import Config
from sourcebook.runtime.memo import memoized

TEMPLATES = Path(__file__).resolve().parent / "templates"


@dataclass(frozen=True)
class Form:
    action: str
    token: str
    button: str


@memoized(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=False,
    )
    env.globals["when"] = when
    return env


def when(name: str, value: Any) -> str:
    """A value of the data page: times (columns ending in _at, and `at`) as UTC dates."""
    if value is None:
        return "—"
    if (name == "at" or name.endswith("_at")) and isinstance(value, int):
        return datetime.fromtimestamp(value, UTC).strftime("%d %B %Y, %H:%M UTC")
    return str(value)


def security_headers(config: Config) -> dict[str, str]:
    """The headers of every answer: nothing runs, nothing is framed, nothing leaks."""
    policy = (
        f"default-src 'none'; style-src {config.site_origin}; img-src data:; "
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    )
    return {
        "Content-Security-Policy": policy,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
        "Cache-Control": "no-store",
        "X-Frame-Options": "DENY",
    }


def page(
    config: Config,
    title: str,
    lines: list[str],
    status: int = 200,
    form: Form | None = None,
    headers: dict[str, str] | None = None,
) -> HTMLResponse:
    html = (
        environment()
        .get_template("base.html")
        .render(config=config, title=title, lines=lines, form=form)
    )
    return HTMLResponse(html, status_code=status, headers=headers)


def data_page(config: Config, data: Any, form: Form) -> HTMLResponse:
    html = (
        environment()
        .get_template("data.html")
        .render(
            config=config,
            title="What is kept about you",
            data=data,
            form=form,
            statement=config.statement,
            lines=[],
        )
    )
    return HTMLResponse(html)
