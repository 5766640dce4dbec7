"""One source's citation in the formats reference managers read: BibTeX, RIS and
CSL-JSON, each as text a reader copies (the source's own page shows them)."""

from __future__ import annotations

from dataclasses import dataclass

from sourcebook.interchange.bibtex import write_bibtex
from sourcebook.interchange.csl import write_csl
from sourcebook.interchange.outgoing import work_of
from sourcebook.interchange.ris import write_ris
from sourcebook.model.kinds import Source
from sourcebook.model.record import Record


@dataclass(frozen=True, slots=True)
class CiteFormat:
    name: str
    """As a reader knows it: "BibTeX"."""
    slug: str
    """For the page's ids: "bibtex"."""
    text: str


def cite_formats(record: Record, source: Source) -> list[CiteFormat]:
    """The source in BibTeX, RIS and CSL-JSON, keyed by its id, as `sourcebook export`
    writes the record's sources."""
    work = work_of(record, source)
    return [
        CiteFormat("BibTeX", "bibtex", write_bibtex([work]).strip()),
        CiteFormat("RIS", "ris", write_ris([work]).replace("\r\n", "\n").strip()),
        CiteFormat("CSL-JSON", "csl-json", write_csl([work]).strip()),
    ]
