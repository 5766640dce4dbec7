"""The pipeline in one place: read → link → check → compile → derive → publish.

Each stage reads only what the stage before it produced; this module only calls them
in order, so that a newcomer can read the whole system here: `build` is the whole of
`sourcebook build`, `check` the whole of `sourcebook check`, `check_house` the whole of
`sourcebook check` on a house.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from sourcebook import derive as derived
from sourcebook.check import check_record
from sourcebook.check.as_of import as_it_stood, proved_as_it_stood
from sourcebook.check.house import check_same_as, check_volume_paths, volume_name
from sourcebook.check.result import Checked, CheckedHouse
from sourcebook.compile import (
    compile_checked,
    compile_in_memory,
    published,
    record_day,
)
from sourcebook.derive import derive_checked
from sourcebook.derive.claims import check_claims
from sourcebook.derive.queries import check_queries
from sourcebook.derive.sandbox import isolated
from sourcebook.diagnostics import Diagnostics
from sourcebook.incremental import Memos
from sourcebook.link import Graph, link_record, without_drafts
from sourcebook.link.series import Volume as SeriesVolume
from sourcebook.link.series import Works
from sourcebook.model.record import Record
from sourcebook.read import read_record
from sourcebook.read.house import read_house
from sourcebook.read.paths import SETTINGS_FILE

if TYPE_CHECKING:
    from sourcebook.publish.site.build import Built

__all__ = [
    "Build",
    "Checked",
    "CheckedHouse",
    "build",
    "check",
    "check_house",
    "compile_checked",
    "derive",
    "derive_checked",
    "published",
]


@dataclass(frozen=True)
class Build:
    """What `build` did: the record checked, and its site where check passed."""

    checked: Checked
    site: Built | None = None


def build(
    root: Path | str,
    out: Path | str,
    *,
    as_of: date | None = None,
    drafts: bool = False,
    search: bool = True,
    jobs: int | None = None,
    notify_url: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    kept: Memos | None = None,
) -> Build:
    """Check the record at `root` and, where it has no errors, write its site into `out`:
    without its drafts unless `drafts`, with its search index unless not `search`; `kept`
    as for `read_and_link`.
    Raises RecordError, AsOfError (as `check`), BuildError (for a site that cannot be made)."""
    from sourcebook.publish.site.build import SiteBuild  # the site's libraries: only to build

    diagnostics = Diagnostics()
    kept = kept if kept is not None else _memos(Path(root), site=True)
    record, graph = read_and_link(root, as_of, diagnostics, kept, done=False)
    if record is None:
        kept.commit()
        return Build(Checked(None, graph, diagnostics, as_of))
    then = as_it_stood(record, graph, as_of, kept.linked)
    shown = without_drafts(*then, drafts, kept.linked)
    with SiteBuild(*shown, jobs=jobs, notify_url=notify_url, search=search, kept=kept.site) as site:
        site.render_prose()  # overlaps with check: the prose needs only the linked record
        checked = check_linked(record, graph, diagnostics, as_of, kept, then)
        shown_checked = published(checked, linked=shown, kept=kept.compiled) if checked.ok else None
        kept.commit()
        if shown_checked is None:
            return Build(checked)
        site.cite(checked.proofs)
        derived_now = derive_checked(shown_checked, kept.queries)
        built = site.write(out, derived_now, progress=progress)
    if kept.site is not None and kept.on_disk and built.written != 0:
        kept.site.commit()  # a site written as it was: the kept map still tells it
    return Build(checked, built)


def check(root: Path | str, as_of: date | None = None, kept: Memos | None = None) -> Checked:
    """Read, link and check the record at `root`, its own queries run over it as it stood
    on `as_of` (default: its close); `kept` as for `read_and_link`. Raises RecordError if
    it is not a record, AsOfError for a day after it closes."""
    diagnostics = Diagnostics()
    kept = kept if kept is not None else _memos(Path(root))
    record, graph = read_and_link(root, as_of, diagnostics, kept, done=False)
    checked = check_linked(record, graph, diagnostics, as_of, kept) if record is not None else None
    kept.commit()
    return checked if checked is not None else Checked(None, graph, diagnostics, as_of)


def _memos(root: Path, site: bool = False) -> Memos:
    """What earlier runs kept in the record's state folder (with the last site `build`
    wrote where `site`); none where there is no record (read says why, nothing is made)."""
    return Memos.open(root, site) if (root / SETTINGS_FILE).is_file() else Memos.in_memory()


def read_and_link(
    root: Path | str,
    as_of: date | None,
    diagnostics: Diagnostics,
    kept: Memos | None = None,
    done: bool = True,
) -> tuple[Record | None, Graph]:
    """The record read and linked; `kept`: what earlier runs made of it (default: kept in
    the record's state folder), let go of here where `done` (else by the caller, once it
    has linked all it links)."""
    kept = kept if kept is not None else _memos(Path(root))
    record = read_record(root, diagnostics, kept.parsed, kept.files)
    if record is None:
        return None, Graph()
    record_day(record, as_of)  # refuses a day after the close before any work is done
    graph = link_record(record, kept.linked)
    if done:
        kept.commit()
    return record, graph


def check_linked(
    record: Record,
    graph: Graph,
    diagnostics: Diagnostics,
    as_of: date | None,
    kept: Memos | None = None,
    then: tuple[Record, Graph] | None = None,
) -> Checked:
    """Every rule over the linked record; then its own queries, over the record as it stood
    on `as_of` (`then`, where already cut) compiled in memory. What is checked is the
    record as it stood. `kept`: each entity's results of the entity rules, and the
    queries' last run (as for `isolated`), from earlier runs."""
    proofs = check_record(record, graph, diagnostics, kept=kept.checked if kept else None)
    stood, stood_graph = then or as_it_stood(record, graph, as_of, kept.linked if kept else None)
    stood_proofs = proved_as_it_stood(record, graph, stood, stood_graph, proofs)
    compiled = kept.compiled if kept else None
    with compile_in_memory(stood, stood_graph, as_of, stood_proofs, compiled) as db:
        image = db.image()
    check_queries(stood, image, diagnostics, kept.queries if kept else None)
    check_claims(stood, image, diagnostics)
    return Checked(stood, stood_graph, diagnostics, as_of, stood_proofs, image)


def check_house(target: Path | str, as_of: date | None = None) -> CheckedHouse:
    """Read the house at `target` (its house file, or the folder holding it), check every
    volume as `check` does, then what only the house can get wrong. Raises RecordError where
    it is no house, AsOfError for a day after a volume closes."""
    diagnostics = Diagnostics()
    house = read_house(Path(target), diagnostics)
    if house is None:
        return CheckedHouse(None, [], diagnostics)
    checked = [(ref, check(ref.root, as_of)) for ref in house.volumes]
    for _, one in checked:
        diagnostics.extend(one.diagnostics)
    readable = [(ref, one.record) for ref, one in checked if one.record is not None]
    placed = {id(ref) for ref, _ in check_volume_paths(readable, diagnostics)}
    volumes = [(ref, one) for ref, one in checked if id(ref) in placed]
    records = {volume_name(one.record): one.record for _, one in volumes if one.record}
    works = Works([SeriesVolume(name, record) for name, record in records.items()])
    check_same_as(works, records, diagnostics)
    return CheckedHouse(house, volumes, diagnostics, works)


def derive(path: Path | str, as_of: date | None = None) -> derived.Derived:
    """Everything computed from a compiled record: scorecard, verdicts, scenarios,
    conflicts; as it stood on `as_of` where given (default: the day it was compiled as of)."""
    image = Path(path).read_bytes()
    return isolated(image, partial(_derive_as_of, as_of))


def _derive_as_of(as_of: date | None, db: derived.CompiledRecord) -> derived.Derived:
    if as_of is None:
        return derived.derive_all(db)
    with db.as_of(as_of) as then:
        return derived.derive_all(then)
