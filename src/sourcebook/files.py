"""Files written whole: a reader never sees half of one, however many processes write."""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path

PARTIAL = ".partial"
"""The suffix of a file being written; one left behind was written by a killed process."""

_PARTIAL_NAME = re.compile(r"^\..+\.partial$")


def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` to a temporary file beside `path`, then rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=PARTIAL)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def is_partial(name: str) -> bool:
    """Whether a file name is one that `write_atomic` writes before its rename."""
    return bool(_PARTIAL_NAME.match(name))


def partial_files(folder: Path) -> list[Path]:
    """The partial files in `folder` and its subfolders (symbolic links not followed)."""
    found: list[Path] = []
    if not folder.is_dir():
        return found
    for parent, folders, names in os.walk(folder):
        found += [Path(parent) / name for name in names if is_partial(name)]
        folders[:] = [f for f in folders if not os.path.islink(os.path.join(parent, f))]
    return sorted(found)
