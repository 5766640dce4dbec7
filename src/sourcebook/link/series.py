"""The same work in several volumes of a series, found by its DOI, an address or `same_as`.

Each volume is a record of its own, with its own ids: `sa-essay` in one volume and
`aschenbrenner-2024` in another may be one essay. Works are joined where two sources share
a DOI or an address (as a reader would compare them: scheme, `www.`, a trailing slash and
the fragment aside), or where one names the other in `same_as` (VOLUME/ID).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from sourcebook.model.kinds import Source
from sourcebook.model.record import Record

SourceKey = tuple[str, str]
"""(volume, source id): a source of one volume."""


@dataclass(frozen=True)
class Volume:
    name: str
    """The volume's base path without its slashes: `vol1`."""
    record: Record


def doi_key(doi: str) -> str:
    return "doi:" + doi.strip().casefold().removeprefix("https://doi.org/")


def url_key(url: str) -> str | None:
    """An address as a reader compares two: None where it is not a web address."""
    parts = urlsplit(url.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    host = parts.hostname.lower().removeprefix("www.")
    path = parts.path.rstrip("/")
    return f"url:{host}{path}" + (f"?{parts.query}" if parts.query else "")


def work_keys(source: Source) -> set[str]:
    keys = {k for k in map(url_key, source.urls) if k}
    if source.doi:
        keys.add(doi_key(source.doi))
    return keys


def same_as_target(written: str) -> SourceKey | None:
    """(volume, id) from `vol1/sa-essay`; None where it is not written so."""
    volume, slash, source_id = written.strip().rpartition("/")
    return (volume, source_id) if slash and volume and source_id else None


class Works:
    """Which sources of the series are one work: `work(key)` names each work by its first
    source, in series order."""

    def __init__(self, volumes: Sequence[Volume]):
        self._parent: dict[SourceKey, SourceKey] = {}
        self.sources: dict[SourceKey, Source] = {}
        self._order: dict[SourceKey, int] = {}
        by_key: dict[str, SourceKey] = {}
        for volume in volumes:
            for source in volume.record.of("source"):
                assert isinstance(source, Source)
                here = (volume.name, source.id)
                self.sources[here] = source
                self._parent[here] = here
                self._order[here] = len(self._order)
                for key in sorted(work_keys(source)):
                    self._join(by_key.setdefault(key, here), here)
        for here, source in self.sources.items():
            for written in source.same_as:
                target = same_as_target(written)
                if target in self.sources:
                    self._join(target, here)  # type: ignore[arg-type]

    def unknown_same_as(self) -> Iterable[tuple[SourceKey, int, str]]:
        """Each `same_as` that names no source of the series: (source, index, as written)."""
        for here, source in self.sources.items():
            for index, written in enumerate(source.same_as):
                if same_as_target(written) not in self.sources:
                    yield here, index, written

    def work(self, key: SourceKey) -> SourceKey:
        while self._parent[key] != key:
            self._parent[key] = self._parent[self._parent[key]]
            key = self._parent[key]
        return key

    def members(self) -> dict[SourceKey, list[SourceKey]]:
        """Each work and its sources, in series order."""
        out: dict[SourceKey, list[SourceKey]] = {}
        for key in self.sources:
            out.setdefault(self.work(key), []).append(key)
        return out

    def _join(self, first: SourceKey, second: SourceKey) -> None:
        a, b = self.work(first), self.work(second)
        if a == b:
            return
        order = self._order
        keep, other = (a, b) if order[a] <= order[b] else (b, a)
        self._parent[other] = keep
