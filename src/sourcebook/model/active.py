"""Files a browser would run: pages, drawings and scripts, by their names.

A static host serves a file with the type its name gives it; a browser runs the scripts of
an HTML, XHTML, SVG or XML document it is sent, and a script or WebAssembly module a page
loads. A record that publishes such a file publishes code that runs with the site's origin.
"""

from __future__ import annotations

ACTIVE_SUFFIXES = (
    ".html", ".htm", ".shtml", ".xhtml", ".xht", ".mht", ".mhtml",
    ".svg", ".svgz",
    ".xml", ".xsl", ".xslt", ".rss", ".atom", ".rdf",
    ".js", ".mjs", ".cjs", ".wasm", ".swf",
)  # fmt: skip
"""What hosts serve as a document or a script: HTML, SVG and XML (which can carry XHTML's
scripts), JavaScript and WebAssembly, and Flash."""


def runs_in_browser(name: str) -> bool:
    """Whether a file of this name is one a browser would run, served as its name says."""
    return name.casefold().rstrip(". ").endswith(ACTIVE_SUFFIXES)
