"""Every data release read as the site reads it (`read.releases`): a manifest with a value
the site could not show, or a path no file system holds, fails check at its line, as it
would fail the build (R013)."""

from __future__ import annotations

from sourcebook.diagnostics import Diagnostics, Pos
from sourcebook.link.graph import Graph
from sourcebook.model.record import Record
from sourcebook.read.paths import Confined
from sourcebook.read.releases import ManifestError, read_release_files, release_folders


def check_releases(record: Record, graph: Graph, diagnostics: Diagnostics) -> None:
    confined = Confined(record.root)
    for folder in release_folders(record.root, confined):
        try:
            read_release_files(folder, confined)
        except ManifestError as exc:
            diagnostics.error(
                Pos(exc.file.as_posix(), exc.line, exc.col),
                "R013",
                exc.message,
                "a release's files are written by 'sourcebook release'; make the release again",
            )
