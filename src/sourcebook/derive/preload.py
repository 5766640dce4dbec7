"""The registry of units (`model.units.registry`: pint and numpy loaded, sourcebook's units
defined, 0.4 s at its first use), made as this module is imported: by the fork server that
starts the record's queries' children, with the jobs' modules (`sandbox.PRELOADED`), so
that each child has it from its start rather than making it as it takes its job, twice a
save of `serve`. A job needs it wherever it shows a figure in another unit than its own."""

from __future__ import annotations

from sourcebook.model.units import registry

registry()
