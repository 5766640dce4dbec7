"""BibTeX's text: what a data release's citation and an exported source both write."""

from __future__ import annotations

import re

TEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    **{c: f"\\{c}" for c in "&%$#_{}"},
}
TEX_SPECIAL = re.compile("|".join(re.escape(c) for c in TEX_ESCAPES))


def braced(text: str) -> str:
    """A BibTeX value in braces, TeX's special characters escaped."""
    return "{" + TEX_SPECIAL.sub(lambda m: TEX_ESCAPES[m.group()], text) + "}"
