"""The content security policy, and the headers a host sends with the site's files.

The policy is the site's, never a template's. It is put into each page after its template
has rendered, as a `<meta http-equiv>` ahead of anything the template wrote but the
doctype, the `html` and `head` tags and the character set; and into `_headers`, the file
Netlify and Cloudflare Pages serve the site by, which `sourcebook serve` obeys as they do.
A browser enforces every policy a page is given, so neither a template's own meta tag nor
a host's header can loosen it.

`_headers` also serves the files of the data releases as downloads that run nothing, and
tells browsers never to take a file for another type than its name gives it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape as html_escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sourcebook.publish.site.view.site_view import SiteView


HEADERS_FILE = "_headers"
"""The file of headers, at the root of the site (Netlify's and Cloudflare's name)."""
WASM = "'wasm-unsafe-eval'"
"""What Pagefind's search needs to compile its WebAssembly: the search page alone says it."""
DATA_POLICY = "default-src 'none'; sandbox"
"""A release's file, opened in a browser: nothing loads, nothing runs."""
ERROR_POLICY = (
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)
"""`serve`'s page of a record's errors: its own style and its reloading script alone."""
NOSNIFF = ("X-Content-Type-Options", "nosniff")
_ORIGIN = re.compile(
    r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?|https?://\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?"
)
"""An origin a form may post to, as nothing else: a policy's words cannot be slipped in."""

_LEAD = re.compile(
    r"""\A(?:\s+|<!--.*?-->|<!doctype[^<>]*>|<html(?:\s+(?:lang|dir)="[^"<>]*")*\s*>|<head>
    |<meta\ charset="[^"<>]*">|<meta\ name="viewport"\ content="[^"<>]*">)*""",
    re.IGNORECASE | re.DOTALL | re.VERBOSE,
)
"""What may stand before the policy: nothing that runs, loads or names a base."""


def page_policy(*, wasm: bool = False, forms: Iterable[str] = ()) -> str:
    """The policy of a page: the site's own scripts (and WebAssembly, where `wasm`), style
    sheets and images; a form may go to the site itself and to the origins in `forms`, and
    the site's script may send the sign-up form to them from the page."""
    scripts = " ".join(["'self'", *([WASM] if wasm else [])])
    origins = sorted({f for f in forms if _ORIGIN.fullmatch(f)})
    targets = " ".join(["'self'", *origins])
    connect = f"; connect-src {targets}" if origins else ""
    return (
        f"default-src 'self'; script-src {scripts}; style-src 'self'; "
        "img-src 'self' https: data:; object-src 'none'; base-uri 'none'; "
        f"form-action {targets}{connect}"
    )


def with_policy(html: str, policy: str) -> str:
    """The page with its policy at the head of the document: after the doctype, the `html`
    and `head` tags and the character set where it starts with those, else first."""
    lead = _LEAD.match(html)
    end = len(lead.group().rstrip()) if lead else 0
    shown = html_escape(policy, quote=False).replace('"', "&#34;")  # its quotes are words
    tag = f'<meta http-equiv="Content-Security-Policy" content="{shown}">'
    if end == 0:
        return f"{tag}\n{html}"
    return f"{html[:end]}\n{tag}{html[end:]}"


@dataclass(frozen=True)
class Rule:
    """Headers for the paths a pattern matches: a path, or a prefix ending in `*`."""

    pattern: str
    headers: tuple[tuple[str, str], ...]

    def matches(self, path: str) -> bool:
        if self.pattern.endswith("*"):
            return path.startswith(self.pattern[:-1])
        return path == self.pattern


def site_rules(forms: Iterable[str], releases: Sequence[str]) -> list[Rule]:
    """The rules of a site: every file with the policy every page may have (each page's own
    is stricter), read as its name says; each release folder (`/vol1/data/releases/V/`) as
    downloads that run nothing."""
    every = Rule("/*", (("Content-Security-Policy", page_policy(wasm=True, forms=forms)), NOSNIFF))
    data = (("Content-Security-Policy", DATA_POLICY), ("Content-Disposition", "attachment"))
    return [every, *(Rule(f"{folder.rstrip('/')}/*", data) for folder in releases)]


def headers_file(views: Iterable[SiteView]) -> bytes:
    """`_headers` of a site that holds these volumes (one, or a house's)."""
    views = list(views)
    forms = [view.notify.origin for view in views if view.notify is not None]
    releases = [view.links.release_file(r, "") for view in views for r in view.releases]
    return headers_text(site_rules(forms, releases)).encode("utf-8")


def headers_text(rules: Sequence[Rule]) -> str:
    """`_headers` as Netlify and Cloudflare Pages read it."""
    lines = []
    for rule in rules:
        lines.append(rule.pattern)
        lines += [f"  {name}: {value}" for name, value in rule.headers]
    return "\n".join(lines) + "\n"


def read_rules(text: str) -> list[Rule]:
    """The rules of a `_headers` file (as `headers_text` writes it)."""
    rules: list[Rule] = []
    pattern = ""
    headers: list[tuple[str, str]] = []
    for line in text.splitlines():
        if line.startswith("/"):
            if pattern:
                rules.append(Rule(pattern, tuple(headers)))
            pattern, headers = line.strip(), []
        elif ":" in line and pattern:
            name, value = line.split(":", 1)
            headers.append((name.strip(), value.strip()))
    if pattern:
        rules.append(Rule(pattern, tuple(headers)))
    return rules


def headers_for(rules: Sequence[Rule], path: str) -> list[tuple[str, str]]:
    """The headers of a path: those of every rule that matches it, in order; a header that
    several give is sent once, their values joined by commas (as the hosts do: a browser
    enforces each policy of a joined Content-Security-Policy)."""
    found: dict[str, list[str]] = {}
    for rule in rules:
        if rule.matches(path):
            for name, value in rule.headers:
                found.setdefault(name, []).append(value)
    return [(name, ", ".join(values)) for name, values in found.items()]
