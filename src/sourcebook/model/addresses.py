"""What a URL field may hold, as a browser would read it, and what a URL path may be.

A browser reading an `href` first strips leading and trailing C0 controls and spaces, and
removes every tab, line feed and carriage return wherever it stands (the WHATWG URL
standard): `java\tscript:` is `javascript:` to it. So a link is judged on what the browser
will read, and a value with any control character is refused outright, whatever its scheme:
nothing the record holds may reach a page as a link the browser reads otherwise.
"""

from __future__ import annotations

import re

from sourcebook.model.base import MAX_NAME_LENGTH

LINK_SCHEMES = frozenset({"http", "https", "mailto"})
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_STRIPPED = "".join(chr(c) for c in range(0x21))  # C0 controls and space
_REMOVED = str.maketrans("", "", "\t\n\r")
_PATH_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._~\-]*")
MAX_SEGMENTS = 10
"""The most segments of a base path: with MAX_NAME_LENGTH each, the site's files stay far
within what a file system takes as a path."""


def as_browser_reads(url: str) -> str:
    """The URL as a browser parses it: stripped, tabs and line breaks removed."""
    return url.strip(_STRIPPED).translate(_REMOVED)


def scheme(url: str) -> str | None:
    """The scheme a browser would find, lower-cased; None for a relative URL."""
    found = _SCHEME.match(as_browser_reads(url))
    return found[1].lower() if found else None


def has_controls(text: str) -> bool:
    return any(ord(c) < 0x20 or c == "\x7f" for c in text)


def safe_link(url: str) -> bool:
    """Whether `url` may be a link on a page: http(s), mailto, or relative to the site,
    with no control character anywhere and no spaces around it."""
    if has_controls(url) or url != url.strip():
        return False
    found = scheme(url)
    return found is None or found in LINK_SCHEMES


def address_problem(url: str) -> str | None:
    """Why `url` cannot be a web address of the record (a source's, a person's, a party's);
    None where it is an absolute http(s) or mailto address."""
    if has_controls(url) or url != url.strip():
        return "holds a control character, or spaces around it"
    found = scheme(url)
    if found is None:
        return "is not an absolute address (it names no scheme)"
    if found not in LINK_SCHEMES:
        return f"is a {found}: address; only http, https and mailto are linked"
    return None


def path_problem(path: str) -> str | None:
    """Why `path` cannot be where a site lives below its host, such as /vol1; None if it
    can. Each segment is letters, digits and . _ ~ - and starts with a letter or digit, so
    none is '..' or empty."""
    stripped = path.strip("/")
    if not stripped:
        return None
    if has_controls(path):
        return "holds a control character"
    segments = stripped.split("/")
    if len(segments) > MAX_SEGMENTS:
        return f"it has {len(segments):,} segments; a base path has at most {MAX_SEGMENTS}"
    bad = [s for s in segments if not _PATH_SEGMENT.fullmatch(s)]
    if bad:
        return (
            f"segment '{bad[0]}' is not letters, digits and . _ ~ - starting with a letter or digit"
        )
    long = [s for s in segments if len(s) > MAX_NAME_LENGTH]
    if long:
        return f"a segment is {len(long[0]):,} characters long; each has at most {MAX_NAME_LENGTH}"
    return None
