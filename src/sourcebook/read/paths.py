"""A record's files, read only from inside it.

A record comes from anyone (CI checks every proposed change), so every path it holds is
resolved before it is read: a symbolic link may lead anywhere inside the record, never out
of it. A link that leaves is reported at its own path (R010) and not followed, wherever it
stands: among the entities, in the Library, the static files, the templates or the
releases.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from sourcebook.diagnostics import Diagnostics, Pos

SETTINGS_FILE = "sourcebook.toml"
"""The file that makes a folder a record."""


def record_problem(root: Path, shown: str) -> str | None:
    """Why `root` (shown as `shown`) is no record, in the words every command uses; None
    where it is one."""
    if not root.exists():
        return f"{shown}: no such folder"
    if not root.is_dir():
        return f"{shown}: not a folder"
    if not (root / SETTINGS_FILE).is_file():
        return (
            f"{shown}: no {SETTINGS_FILE} here, so this is not a record "
            "(run 'sourcebook init DIR' to start one)"
        )
    return None


PUBLISHED_FOLDERS = ("library", "static", "templates", "releases")
"""Folders besides the kinds' whose files a build reads or publishes."""


class Confined:
    """The folder of a record, and whether a path stays inside it once links are followed."""

    def __init__(self, root: Path | str):
        self.root = os.path.realpath(root)
        self._prefix = self.root.rstrip(os.sep) + os.sep
        self._folders: dict[str, str] = {}
        """Each folder asked about, resolved: its files are resolved through it."""
        self.links = 0
        """The symbolic links `files` met, followed or not: what is read through one changes
        where the link leads, not under the folder walked."""

    def holds(self, path: Path | str) -> bool:
        real = self._real(os.fspath(path))
        return real == self.root or real.startswith(self._prefix)

    def _real(self, path: str) -> str:
        """`os.path.realpath(path)`, resolving each folder once: a name that is no link
        resolves to its folder's real path and itself. A path with `.` or `..` in it is
        resolved whole, as realpath reads them before the system does."""
        folder, name = os.path.split(path)
        if not folder or os.path.normpath(path) != path or os.path.islink(path):
            return os.path.realpath(path)
        real = self._folders.get(folder)
        if real is None:
            real = self._folders[folder] = os.path.realpath(folder)
        return os.path.join(real, name)

    def files(
        self,
        folder: Path | str,
        shown_folder: str,
        diagnostics: Diagnostics | None = None,
        hidden: bool = False,
    ) -> Iterator[tuple[str, str]]:
        """(path, path as shown) of each file below `folder`, in a stable order. Links are
        followed while they stay inside, each folder once; one that leaves the record,
        dangles or loops is reported (where `diagnostics` is given) and passed over. Names
        starting with '.' or '_' are passed over unless `hidden`."""
        top = str(folder)
        if os.path.islink(top):
            self.links += 1
        if not os.path.isdir(top) or not self.holds(top):
            return
        visited: set[str] = set()
        for dirpath, folders, entries in _walk(top):
            shown_dir = shown_folder + dirpath[len(top) :].replace(os.sep, "/")
            real = os.path.realpath(dirpath)
            if real in visited:
                _report(
                    diagnostics,
                    shown_dir,
                    "symbolic link loop: this folder leads back to one already read",
                )
                folders.clear()
                continue
            visited.add(real)
            kept = []
            for entry in folders:
                name = entry.name
                if not hidden and name.startswith((".", "_")):
                    continue
                if not _utf8_name(name, f"{shown_dir}/{name}", diagnostics):
                    continue
                if self._followed(entry, f"{shown_dir}/{name}", diagnostics):
                    kept.append(entry)
            folders[:] = kept
            for entry in entries:
                name = entry.name
                if not hidden and name.startswith("."):
                    continue
                if not _utf8_name(name, f"{shown_dir}/{name}", diagnostics):
                    continue
                if not self._followed(entry, f"{shown_dir}/{name}", diagnostics):
                    continue
                if not _is_file(entry):  # a pipe or a device would never end
                    _report(diagnostics, f"{shown_dir}/{name}", "not a regular file")
                    continue
                yield entry.path, f"{shown_dir}/{name}"

    def _followed(
        self, entry: os.DirEntry[str], shown: str, diagnostics: Diagnostics | None
    ) -> bool:
        if not _is_link(entry):
            return True
        self.links += 1
        path = entry.path
        if not self.holds(path):
            link_out(diagnostics, shown)
            return False
        if not os.path.exists(path):
            _report(diagnostics, shown, "dangling symbolic link")
            return False
        return True


def _walk(top: str) -> Iterator[tuple[str, list[os.DirEntry[str]], list[os.DirEntry[str]]]]:
    """As `os.walk(top, followlinks=True)`, each folder's folders and other files sorted by
    name, as the entries the system listed: their types come with the listing, so a file
    that is no link costs no call of its own. The caller may prune the folders it is given;
    however deep the folders go, no recursion (a stack of folders still to walk)."""
    stack = [top]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as listing:
                found = sorted(listing, key=lambda entry: entry.name)
        except OSError:  # as os.walk: a folder that cannot be listed is passed over
            continue
        folders = [entry for entry in found if _is_dir(entry)]
        chosen = {id(entry) for entry in folders}
        yield folder, folders, [entry for entry in found if id(entry) not in chosen]
        stack.extend(entry.path for entry in reversed(folders))


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # a link to a folder too, followed as os.walk follows it
    except OSError:
        return False


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def _is_link(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False


def link_out(diagnostics: Diagnostics | None, shown: str) -> None:
    """R010: a link at `shown` that leads out of the record, and is not followed."""
    if diagnostics is not None:
        diagnostics.error(
            Pos(shown),
            "R010",
            "symbolic link leads outside the record; it is not followed",
            "copy the file into the record, or remove the link",
        )


def _utf8_name(name: str, shown: str, diagnostics: Diagnostics | None) -> bool:
    """Whether `name` is UTF-8 (os.fsdecode keeps other bytes as lone surrogates, which no
    id, URL or database can hold); where not, it is reported and passed over."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        if diagnostics is not None:
            diagnostics.error(
                Pos(shown),
                "R012",
                "the name is not UTF-8 text; the file is not read",
                "rename it in UTF-8, as an id of lowercase letters, digits and hyphens",
            )
        return False
    return True


def _report(diagnostics: Diagnostics | None, shown: str, message: str) -> None:
    if diagnostics is not None:
        diagnostics.error(Pos(shown), "R009", message, "remove the link")


def check_published_links(confined: Confined, shown_root: str, diagnostics: Diagnostics) -> None:
    """Report every link that leaves the record in the folders a build reads or publishes."""
    for folder in PUBLISHED_FOLDERS:
        check_links(confined, folder, shown_root, diagnostics)


def check_links(confined: Confined, folder: str, shown_root: str, diagnostics: Diagnostics) -> None:
    """Report every link that leaves the record below `folder`, every file of it walked."""
    shown = folder if shown_root in ("", ".") else f"{shown_root}/{folder}"
    for _ in confined.files(Path(confined.root) / folder, shown, diagnostics, hidden=True):
        pass
