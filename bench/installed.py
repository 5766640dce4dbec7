"""sourcebook's modules compiled to bytecode before anything is timed, as `pip install`
compiles them, and as Python itself does on a package's first run.

Where PYTHONDONTWRITEBYTECODE is set (some containers and CI images set it) and the
package is installed editable, nothing writes them, and every process a bench starts would
compile each module it imports again: a fifth of a second that no user's installed
sourcebook pays."""

from __future__ import annotations

import compileall
from pathlib import Path


def as_installed() -> None:
    """Compile sourcebook's modules where they are not compiled already."""
    import sourcebook

    compileall.compile_dir(Path(sourcebook.__file__).parent, quiet=1)
