"""The pipeline in one place: read → link → check → compile → derive → publish.

Each stage reads only what the stage before it produced; this module is the only one that
calls them in order, so that a newcomer can read the whole system here: `build` is the
whole of `sourcebook build` (and, without a site, of `sourcebook check`: `check`);
`check_house` and `build_house` are a house's, a loop over its volumes; `release` is
`sourcebook release` after check.
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
from sourcebook.compile import compile_checked, compiled_image, published, record_day
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
    from sourcebook.publish.release import Released
    from sourcebook.publish.site.build import Built

__all__ = [
    "Build",
    "Checked",
    "CheckedHouse",
    "build",
    "build_house",
    "build_site",
    "check",
    "check_house",
    "compile_checked",
    "derive",
    "derive_checked",
    "published",
    "release",
]


@dataclass(frozen=True)
class Build:
    """What `build` did: the record checked, and its site where one was asked for and
    check passed."""

    checked: Checked
    site: Built | None = None


def build(
    root: Path | str,
    out: Path | str | None = None,
    *,
    as_of: date | None = None,
    drafts: bool = False,
    search: bool = True,
    jobs: int | None = None,
    notify_url: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    kept: Memos | None = None,
) -> Build:
    """The whole system: the record at `root` read, linked, checked, compiled as it stood on
    `as_of` (default: its close) and its own queries run over it; then, where `out` is given
    and nothing is wrong, what it publishes compiled, derived and written as its site into
    `out` (without its drafts unless `drafts`, with its search index unless not `search`).
    `kept`: what earlier runs made (default: the record's state folder), committed once the
    run is over. Raises RecordError where `root` is no record, AsOfError for a day after it
    closes, BuildError for a site that cannot be made."""
    diagnostics = Diagnostics()
    kept = kept if kept is not None else _memos(Path(root), site=out is not None)
    record, graph = read_and_link(root, as_of, diagnostics, kept, done=False)  # read, link
    if record is None:
        kept.commit()
        return Build(Checked(None, graph, diagnostics, as_of))
    proofs = check_record(record, graph, diagnostics, kept=kept.checked)  # check
    stood, stood_graph = as_it_stood(record, graph, as_of, kept.linked)
    stood_proofs = proved_as_it_stood(record, graph, stood, stood_graph, proofs)
    image = compiled_image(stood, stood_graph, as_of, stood_proofs, kept.compiled)  # compile
    check_queries(stood, image, diagnostics, kept.queries)  # derive: the record's own queries
    check_claims(stood, image, diagnostics, kept.queries)
    checked = Checked(stood, stood_graph, diagnostics, as_of, stood_proofs, image)
    if out is None or not checked.ok:
        kept.commit()
        return Build(checked)
    linked = without_drafts(stood, stood_graph, drafts, kept.linked)
    shown = published(checked, linked=linked, kept=kept.compiled)  # compile what is published
    derived_now = derive_checked(shown, kept.queries)  # derive
    from sourcebook.publish.site.build import write_site  # publish (its libraries: only here)

    built = write_site(
        shown,
        derived_now,
        out,
        jobs=jobs,
        notify_url=notify_url,
        search=search,
        progress=progress,
        kept=kept.site,
    )
    kept.commit(site=built.written != 0)  # a site written as it was: the kept map tells it
    return Build(checked, built)


def check(root: Path | str, as_of: date | None = None, kept: Memos | None = None) -> Checked:
    """`build` without a site: the record at `root` read, linked, checked and compiled, its
    own queries run over it as it stood on `as_of` (default: its close)."""
    return build(root, as_of=as_of, kept=kept).checked


def build_site(
    checked: Checked,
    out: Path | str,
    *,
    derived: derived.Derived | None = None,
    drafts: bool = False,
    jobs: int | None = None,
    notify_url: str | None = None,
    search: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> Built:
    """The site of a record `check` passed, written into `out`: `build`'s last three stages
    (what it publishes compiled, derived unless `derived` is what derive made of it, and
    written). Raises BuildError for a record with errors or a site that cannot be made."""
    from sourcebook.publish.site.build import RECORD_HAS_ERRORS, BuildError, write_site

    if not checked.ok or checked.record is None:
        raise BuildError(RECORD_HAS_ERRORS)
    shown = published(checked, drafts)
    if shown is not checked or derived is None:
        derived = derive_checked(shown)
    return write_site(
        shown, derived, out, jobs=jobs, notify_url=notify_url, search=search, progress=progress
    )


def release(checked: Checked, root: Path | str, version: str) -> Released:
    """`sourcebook release` after check: what the record publishes compiled (without its
    drafts, as the site shows it) and written as the data release `version` into
    root/releases/. Raises ReleaseError as `publish.release.release` does."""
    from sourcebook.publish.release import release as write_release

    return write_release(published(checked) if checked.ok else checked, root, version)


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
    record = read_record(root, diagnostics, kept.parsed, kept.files, kept.digests)
    if record is None:
        return None, Graph()
    record_day(record, as_of)  # refuses a day after the close before any work is done
    graph = link_record(record, kept.linked)
    if done:
        kept.commit()
    return record, graph


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


def build_house(
    checked: CheckedHouse,
    out: Path | str,
    *,
    jobs: int | None = None,
    notify_urls: dict[str, str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    drafts: bool = False,
) -> Built:
    """The site of a house `check_house` passed, written into `out`: each volume's published
    part compiled and derived as `build` does, then the house written whole, its volumes
    under their base paths and its own pages at the root. Raises BuildError for a house with
    errors or a site that cannot be made."""
    from sourcebook.publish.house import HOUSE_HAS_ERRORS, write_house
    from sourcebook.publish.site import BuildError

    if not checked.ok:
        raise BuildError(HOUSE_HAS_ERRORS)
    shown = [published(one, drafts) for _, one in checked.volumes if one.record is not None]
    volumes = [(one, derive_checked(one)) for one in shown]
    return write_house(checked, volumes, out, jobs=jobs, notify_urls=notify_urls, progress=progress)


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
