"""A record's site kept built as the record changes, for `sourcebook serve`.

`LiveSite` keeps the latest build of a record and, where check finds errors, the
errors instead: every page then shows them, with file and line, rather than a stale
site (`publish.site.serve.SiteServer` serves it).
"""

from __future__ import annotations

import html
import shutil
import tempfile
import threading
import traceback
from collections.abc import Callable
from pathlib import Path

from sourcebook.diagnostics import Diagnostic
from sourcebook.publish.site.serve import WAIT_SECONDS
from sourcebook.publish.site.urls import normalize_base_path


class LiveSite:
    """The latest build of a record, or why there is none; rebuilt on demand."""

    def __init__(self, root: Path, out: Path | None = None, notify_url: str | None = None):
        self.root = Path(root)
        self.notify_url = notify_url
        """Where the pages' sign-up form posts, instead of `[notify] url`."""
        self._temporary = out is None
        self.out = out if out is not None else Path(tempfile.mkdtemp(prefix="sourcebook-serve-"))
        self.site = self.out / "site"
        self.base_path = ""
        self.version = 0
        self.errors: list[Diagnostic] = []
        self.failure = ""
        self._changed = threading.Condition()
        self._building = threading.Lock()

    @property
    def broken(self) -> bool:
        return bool(self.errors or self.failure)

    def rebuild(self) -> None:
        """Check and build; on errors keep them, and the pages will show them."""
        from sourcebook.pipeline import build

        with self._building:
            errors: list[Diagnostic] = []
            failure = ""
            try:
                checked = build(self.root, self.site, jobs=1, notify_url=self.notify_url).checked
                if checked.record is not None:
                    self.base_path = normalize_base_path(checked.record.settings.site.base_path)
                errors = checked.diagnostics.errors
            except Exception:  # a broken template or record file must not stop the server
                failure = traceback.format_exc(limit=8)
            with self._changed:
                self.errors, self.failure = errors, failure
                self.version += 1
                self._changed.notify_all()

    def wait(self, version: int, timeout: float = WAIT_SECONDS) -> int:
        """Block until the version differs from `version` (or time runs out)."""
        with self._changed:
            self._changed.wait_for(lambda: self.version != version, timeout=timeout)
            return self.version

    def watch(self, stop: threading.Event, then: Callable[[LiveSite], None] | None = None) -> None:
        """Rebuild on every change to the record's files, until `stop` is set."""
        import watchfiles

        ignored = {"_site", ".sourcebook-cache", ".git", "__pycache__"}

        def wanted(change: watchfiles.Change, path: str) -> bool:
            parts = Path(path).relative_to(self.root.resolve()).parts
            return not any(p in ignored or p.startswith(".") for p in parts)

        for _changes in watchfiles.watch(
            self.root.resolve(), watch_filter=wanted, stop_event=stop, debounce=200
        ):
            self.rebuild()
            if then is not None:
                then(self)

    def close(self) -> None:
        if self._temporary:
            shutil.rmtree(self.out, ignore_errors=True)

    def error_page(self) -> bytes:
        items = "".join(_diagnostic_html(d) for d in self.errors)
        if self.failure:
            items += f"<li><pre>{html.escape(self.failure)}</pre></li>"
        count = len(self.errors) or 1
        return ERROR_PAGE.format(
            count=count, plural="s" * (count != 1), items=items, version=self.version
        ).encode("utf-8")


def _diagnostic_html(diagnostic: Diagnostic) -> str:
    hint = f'<br><span class="hint">hint: {html.escape(diagnostic.hint or "")}</span>'
    return (
        f"<li><code>{html.escape(str(diagnostic.pos))}</code>: error "
        f"<code>{html.escape(diagnostic.code)}</code> {html.escape(diagnostic.message)}"
        f"{hint if diagnostic.hint else ''}</li>"
    )


ERROR_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>The record has errors</title>
<style>body{{font:1rem/1.5 Georgia,serif;max-width:48rem;margin:2rem auto;padding:0 1rem;
color:#1f1d1a;background:#fbf9f4}}h1{{color:#7a2e1d}}li{{margin-bottom:.75rem}}
code,pre{{font-size:.9rem}}.hint{{color:#5e5850}}</style></head>
<body><main><h1>The record has {count} error{plural}</h1>
<p>The site is not built while check finds errors. Fix them and this page reloads.</p>
<ol class="diagnostics">{items}</ol></main>
<script src="/__sourcebook/reload.js" data-version="{version}"></script></body></html>
"""
