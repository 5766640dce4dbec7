"""What the last search index was made of, for the next to keep (see `buckets.py`): the
names of its buckets, each a digest of what it holds, and where they are.

This holds no state of its own: `serve` keeps the last in memory from save to save
(`LiveSearch.last`); `build` keeps it with the last site written, in the site's memo
(`incremental.SiteMemo`, `kept_site.SiteMade.index`), so that only a bucket this user's
own build made is kept: a folder of the same name that arrived with a site (copied,
committed) is made again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Kept:
    names: frozenset[str] = frozenset()
    """The buckets the last index made or kept."""
    folder: Path | None = None
    """Where that index is, for a bucket to be linked from where it is not in the folder
    being written."""
    pages: Mapping[str, str] = field(default_factory=dict)
    """Each page that index read, by its URL: the digest of what it read (`buckets.Item`),
    given again for a page the build did not write (`SearchJob.written`)."""
