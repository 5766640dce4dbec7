"""The kinds of entity a record holds, one class each, with every field documented.

A field's `description` is its documentation: docs/record-format.md and the exported
JSON Schemas are checked against these classes.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from sourcebook.model.base import MAX_INTEGER, Day, Entity, Kind, RefField
from sourcebook.model.highlight import Highlight


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class Term(Entity):
    """A glossary entry."""

    KIND: ClassVar[str] = "term"
    PROSE_FIELDS = ("definition", "body")
    REF_FIELDS = (RefField("chapters", "chapter"), RefField("related", "term"))

    definition: str = Field(description="One line: what the term means in the book.")
    chapters: list[str] = Field(
        default_factory=list,
        description="Chapters that use the term; the first is where the book introduces it.",
    )
    related: list[str] = Field(
        default_factory=list,
        description="Related terms, in the order the author wants them shown.",
    )
    same_as: str | None = Field(
        default=None,
        description=(
            "`kind:id` of the party, person or campus this term names (such as `party:tva`); "
            "the two may then share a name."
        ),
    )
    provisional: bool = Field(
        default=False,
        description=(
            "The definition is the record's provisional reading of a name the book coins, "
            "not the book's own words; the term's page says so."
        ),
    )


class Chapter(Entity):
    """A chapter of the book; its body is the chapter's notes."""

    KIND: ClassVar[str] = "chapter"
    PROSE_FIELDS = ("summary", "body")

    number: int = Field(ge=0, le=MAX_INTEGER, description="The chapter's number; 0 for a preface.")
    summary: str = Field(description="One line: what the chapter is about.")


class CampusStatus(StrEnum):
    ANNOUNCED = "announced"
    PLANNED = "planned"
    UNDER_CONSTRUCTION = "under construction"
    OPERATING = "operating"
    CANCELLED = "cancelled"


class Role(StrEnum):
    OWNER = "owner"
    OPERATOR = "operator"
    TENANT = "tenant"
    BUILDER = "builder"
    SUPPLIER = "supplier"
    FINANCIER = "financier"
    DEVELOPER = "developer"
    UTILITY = "utility"
    GOVERNMENT = "government"


class CampusParty(Strict):
    party: str = Field(description="The party's id.")
    roles: list[Role] = Field(min_length=1, description="What the party does at this campus.")
    note: str = Field(default="", description="A short qualification of the roles.")
    supplies: str = Field(
        default="",
        description=(
            "For a supplier: what it supplies here, as a reader would say it "
            "(`Megapack batteries`, `GB200 systems`)."
        ),
    )
    source: str | None = Field(default=None, description="The id of the source that says so.")
    quote: str | None = Field(
        default=None, description="The source's words that say so; proved like a figure's."
    )


class Grade(StrEnum):
    """How well a figure is evidenced; see docs/record-format.md."""

    DOCUMENTED = "documented"
    OBSERVED = "observed"
    REPORTED = "reported"
    CLAIMED = "claimed"
    ESTIMATED = "estimated"


class FigureStatus(StrEnum):
    ANNOUNCED = "announced"
    PLANNED = "planned"
    UNDER_CONSTRUCTION = "under construction"
    OPERATING = "operating"
    CANCELLED = "cancelled"
    PROJECTED = "projected"
    MARKET = "market"


class Figure(Strict):
    """A number about a campus or party, with its unit, day, grade and evidence."""

    metric: str = Field(description="What is measured, such as `it-power` or `chips`.")
    value: float = Field(description="The number, in `unit`.")
    unit: str = Field(description="The unit: MW, GW, chips, USD, USD/GPU-hour, acres, …")
    chip: str | None = Field(default=None, description="For chip counts: the chip model.")
    status: FigureStatus = Field(description="The state the figure describes.")
    as_of: Day = Field(description="The day, month or year the figure holds for.")
    grade: Grade = Field(description="How well the figure is evidenced.")
    source: str | None = Field(default=None, description="The id of the source that carries it.")
    quote: str | None = Field(default=None, description="The source's words that carry it.")
    method: str | None = Field(default=None, description="For an estimate: how it was made.")
    inputs: list[str] = Field(
        default_factory=list, description="For an estimate: ids of the figures it rests on."
    )
    note: str = Field(default="", description="A short qualification.")
    qualifier: str | None = Field(
        default=None, description="`more than`, `about`, `up to` or `nearly`, as the source says."
    )
    id: str | None = Field(
        default=None,
        pattern=r"^[a-z0-9][a-z0-9-]*$",
        description="An id, unique in the record, by which an estimate's `inputs` name it.",
    )
    stated: Day | None = Field(
        default=None,
        description="The day the figure was first stated, where its source has no date of its own.",
    )
    currency_year: int | None = Field(
        default=None,
        ge=1900,
        le=2200,
        description="For money: the year whose currency the value is in; else `as_of`'s year.",
    )
    phase: str | None = Field(
        default=None,
        description="The phase of the campus it is about (`1`, `2`, `Phase 2`), where the "
        "campus is built in phases: each phase has a stage of its own.",
    )
    unreliable: str | None = Field(
        default=None,
        description="Why the record does not trust the figure: it is kept and shown struck "
        "through, and counts nowhere.",
    )


class Campus(Entity):
    """A data-center campus of the ledger."""

    KIND: ClassVar[str] = "campus"
    PROSE_FIELDS = ("title", "body")
    REF_FIELDS = (
        RefField("parties.party", "party"),
        RefField("parties.source", "source"),
        RefField("figures.source", "source"),
    )

    location: str = Field(description="Town, region or state, as a reader would say it.")
    country: str = Field(description="ISO 3166 two-letter country code.")
    status: CampusStatus | None = Field(
        default=None,
        description="What the author says the campus is at the close; the site shows the "
        "stage its figures show (check warns where the two differ).",
    )
    parties: list[CampusParty] = Field(
        default_factory=list, description="Who builds, owns, runs, uses, supplies and pays."
    )
    figures: list[Figure] = Field(default_factory=list, description="The campus's numbers.")


class Indicator(Entity):
    """A numbered row of the scorecard."""

    KIND: ClassVar[str] = "indicator"
    PROSE_FIELDS = ("title", "description", "body")

    row: int = Field(
        ge=1, le=MAX_INTEGER, description="The row's number on the scorecard; its anchor is row-N."
    )
    description: str = Field(description="One line: what the row measures and why.")
    query: str | None = Field(default=None, description="Read-only SQL that computes the row.")


class BookTest(Entity):
    """A dated, checkable proposition of the book."""

    KIND: ClassVar[str] = "test"
    PROSE_FIELDS = ("title", "claim", "rule", "body")
    REF_FIELDS = (RefField("chapter", "chapter"),)

    claim: str = Field(description="What the book says will be so.")
    deadline: Day = Field(description="The day by which the claim is to be judged.")
    rule: str = Field(description="How the claim is judged, in words.")
    chapter: str | None = Field(default=None, description="The chapter that makes the claim.")
    query: str | None = Field(default=None, description="Read-only SQL that judges the claim.")


class Category(StrEnum):
    COMPANY = "company"
    PRESS = "press"
    RESEARCH = "research"
    OTHER = "other"


class Source(Entity):
    """A cited work. Its id is its anchor on its category's page."""

    KIND: ClassVar[str] = "source"
    PROSE_FIELDS = ("title", "annotation", "read", "body")
    REF_FIELDS = (
        RefField("authors", "person"),
        RefField("organizations", "party"),
        RefField("publisher", "party"),
        RefField("disputed_by", "party"),
    )

    category: Category = Field(description="company, press, research or other.")
    authors: list[str] = Field(default_factory=list, description="Ids of the people who wrote it.")
    organizations: list[str] = Field(
        default_factory=list,
        description="Ids of the parties that wrote it as a body (an agency, a company), "
        "after its people.",
    )
    citation_key: str | None = Field(
        default=None,
        description="Its citation key where that is not its id (`EpochAI:2025`, as Zotero "
        "gives it): `[@key]` cites it too, and export gives it back.",
    )
    publisher: str | None = Field(default=None, description="The publishing party's id.")
    publication: str | None = Field(
        default=None, description="The name printed with the work where it is not the party's."
    )
    date: Day | None = Field(default=None, description="The day the work was published.")
    updated: Day | None = Field(default=None, description="The day it was last updated.")
    urls: list[str] = Field(default_factory=list, description="Where it can be read.")
    italic_title: bool = Field(
        default=False, description="A book, report or essay: the title is set in italics."
    )
    reprint: str | None = Field(default=None, description="Where and when it was reprinted.")
    annotation: str = Field(
        default="",
        description="What the record takes from it; words in curly quotes are quotes.",
    )
    read: str | None = Field(
        default=None,
        description="What was read, where that is not the whole work; prose, as the annotation is.",
    )
    sponsor: str | None = Field(default=None, description="Who sponsored it, as it says.")
    disputed_by: list[str] = Field(
        default_factory=list, description="Parties that deny what it reports."
    )
    library: list[str] = Field(
        default_factory=list, description="Shelf ids (S1, S2, …) of its copies in the Library."
    )
    quality: str | None = Field(
        default=None, description="primary, secondary or weak: how close it stands to the facts."
    )
    csl_type: str | None = Field(
        default=None,
        description="The kind of work in CSL's words (`article-newspaper`, `report`, …).",
    )
    doi: str | None = Field(
        default=None, description="Its DOI, such as `10.1038/s41586-021-03819-2`, without a URL."
    )
    pages: str | None = Field(
        default=None, description="The pages it fills in its publication, such as `81–97`."
    )
    volume: str | None = Field(default=None, description="The volume of its publication.")
    publisher_place: str | None = Field(
        default=None, description="Where it was published: a city, as Zotero's Place."
    )
    accessed: Day | None = Field(default=None, description="The day it was last read online.")
    language: str | None = Field(
        default=None, description="Its language, as a BCP 47 tag such as `en-GB`."
    )
    highlights: list[Highlight] = Field(
        default_factory=list,
        description="Passages highlighted with Hypothesis, each also quoted in the annotation.",
    )
    same_as: list[str] = Field(
        default_factory=list,
        description="The same work in other volumes of the series, as VOLUME/ID "
        "(`vol1/sa-essay`), where no DOI or address they share shows it.",
    )


class Person(Entity):
    KIND: ClassVar[str] = "person"
    PROSE_FIELDS = ("body",)
    REF_FIELDS = (RefField("affiliations", "party"),)

    affiliations: list[str] = Field(
        default_factory=list, description="Ids of the parties the person works for."
    )
    role: str = Field(default="", description="One line: who the person is.")
    url: str | None = Field(default=None, description="The person's own page.")
    given: str | None = Field(
        default=None, description="Given names, where the title alone would split them wrongly."
    )
    family: str | None = Field(
        default=None, description="Family name, as it is filed: `Le Guin`, `King`."
    )


class PartyType(StrEnum):
    COMPANY = "company"
    AGENCY = "agency"
    INVESTOR = "investor"
    UTILITY = "utility"
    GOVERNMENT = "government"
    PUBLISHER = "publisher"
    RESEARCH = "research"


class Party(Entity):
    """A company, agency or investor; its campus roles come from the campuses."""

    KIND: ClassVar[str] = "party"
    PROSE_FIELDS = ("sells", "body")
    REF_FIELDS = (RefField("figures.source", "source"),)

    type: PartyType = Field(description="company, agency, investor, utility, government, …")
    sells: str = Field(
        default="",
        description="Disclosure: what it sells into the market the record measures.",
    )
    url: str | None = Field(default=None, description="The party's own site.")
    figures: list[Figure] = Field(default_factory=list, description="The party's numbers.")


class CorrectionScope(StrEnum):
    BOOK = "book"
    SOURCE = "source"


class Correction(Entity):
    """Where the book was wrong, or where one of its sources was."""

    KIND: ClassVar[str] = "correction"
    PROSE_FIELDS = ("title", "wrong", "right", "body")
    REF_FIELDS = (RefField("chapter", "chapter"), RefField("source", "source"))

    scope: CorrectionScope = Field(description="book: the book was wrong; source: a source was.")
    date: Day = Field(description="The day the correction was logged.")
    chapter: str | None = Field(default=None, description="The chapter it corrects.")
    source: str | None = Field(
        default=None, description="The source that was wrong, or the one that shows it."
    )
    wrong: str = Field(description="What was said.")
    right: str = Field(description="What is so.")
    corrects: list[str] = Field(
        default_factory=list,
        description="Ids of the figures it corrects: from its date on, each counts nowhere "
        "and is shown struck through with the correction beside it.",
    )


class Evidence(Strict):
    """A number a scenario parameter rests on, with the source and quote that carry it."""

    value: float = Field(description="The number, in `unit`.")
    unit: str = Field(description="Its unit, as for a figure.")
    source: str = Field(description="The id of the source that carries it.")
    quote: str | None = Field(default=None, description="The source's words that carry it.")


class Parameter(Strict):
    """One number a scenario is computed from; each cites its source."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$", description="An id, unique in the scenario.")
    title: str = Field(description="What the parameter is, as the page shows it.")
    value: float = Field(description="The number, in `unit`.")
    unit: str = Field(description="The unit, such as `GW`, `kW/H100e` or `billion USD/GW/year`.")
    year: int | None = Field(
        default=None,
        ge=-MAX_INTEGER - 1,
        le=MAX_INTEGER,
        description="For a step of a ramp: the year from which the power holds.",
    )
    source: str | None = Field(
        default=None, description="The id of the source that carries it; none where worked out."
    )
    quote: str | None = Field(default=None, description="The source's words that carry it.")
    method: str | None = Field(
        default=None, description="Where the value is worked out: how, from its `inputs`."
    )
    inputs: list[Evidence] = Field(
        default_factory=list, description="Where the value is worked out: what it rests on."
    )
    note: str = Field(default="", description="A short qualification.")


class Future(Strict):
    """One way the campus's years may go: a ramp of power and a revenue per unit of power."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$", description="An id, unique in the scenario.")
    title: str = Field(description="The future's name, as the page shows it.")
    summary: str = Field(default="", description="One line: what this future supposes.")
    ramp: list[str] = Field(
        min_length=1,
        description="Ids of power parameters with a `year`: the power online from that year.",
    )
    revenue: str = Field(description="Id of the parameter: revenue per unit of power a year.")


class Scenario(Entity):
    """One campus, several futures: chips, capital cost and revenue a year, computed."""

    KIND: ClassVar[str] = "scenario"
    PROSE_FIELDS = ("title", "body")
    REF_FIELDS = (
        RefField("campus", "campus"),
        RefField("parameters.source", "source"),
        RefField("parameters.inputs.source", "source"),
    )

    campus: str = Field(description="The id of the campus whose futures these are.")
    start: int = Field(ge=1900, le=2200, description="The first year computed.")
    end: int = Field(ge=1900, le=2200, description="The last year computed.")
    power_per_chip: str = Field(
        description="Id of the parameter: power drawn per chip, such as `kW/H100e`."
    )
    cost_per_power: str = Field(
        description="Id of the parameter: capital cost per unit of power, such as `USD/GW`."
    )
    parameters: list[Parameter] = Field(
        min_length=1, description="The numbers the futures are computed from."
    )
    futures: list[Future] = Field(min_length=1, description="The futures, in the page's order.")


class Chart(Entity):
    """A chart of the record at a glance: a query over the compiled record, drawn by a
    Vega-Lite spec."""

    KIND: ClassVar[str] = "chart"
    PROSE_FIELDS = ("title", "description", "body")

    description: str = Field(
        description="One or two sentences: what the chart shows, for readers who cannot see it."
    )
    query: str = Field(
        description="Read-only SQL over the compiled record; its rows are the chart's data."
    )
    spec: dict[str, Any] = Field(
        description=(
            "A Vega-Lite spec without `data`: marks, encodings and transforms over the "
            "query's columns, each of which it must use."
        ),
        # Said outright: pydantic 2.9, the floor, leaves it out of the schema.
        json_schema_extra={"additionalProperties": True},
    )
    order: int = Field(
        default=0,
        ge=-MAX_INTEGER - 1,
        le=MAX_INTEGER,
        description="Its place on the record at a glance, lowest first.",
    )


class Paper(Entity):
    """A long-form article of the record: Markdown with citations, footnotes and figures."""

    KIND: ClassVar[str] = "paper"
    PROSE_FIELDS = ("title", "summary", "body")
    REF_FIELDS = (RefField("authors", "person"),)

    summary: str = Field(description="One paragraph: what the paper finds.")
    authors: list[str] = Field(
        default_factory=list,
        description="Ids of the people who wrote it; else the book's author.",
    )
    date: Day = Field(description="The day the paper is dated.")


KINDS: tuple[Kind, ...] = (
    Kind(
        "term", "terms", Term, "Term", "Glossary", mentionable=True, description="A glossary entry."
    ),
    Kind(
        "chapter",
        "chapters",
        Chapter,
        "Chapter",
        "Chapters",
        description="A chapter of the book, with its notes.",
    ),
    Kind(
        "campus",
        "campuses",
        Campus,
        "Campus",
        "Campuses",
        mentionable=True,
        description="A data-center campus of the ledger.",
    ),
    Kind(
        "indicator",
        "indicators",
        Indicator,
        "Scorecard indicator",
        "Scorecard",
        description="A numbered scorecard row.",
    ),
    Kind(
        "test",
        "tests",
        BookTest,
        "Test",
        "Tests",
        description="A dated, checkable proposition of the book.",
    ),
    Kind("source", "sources", Source, "Source", "Sources", description="A cited work."),
    Kind(
        "person",
        "people",
        Person,
        "Person",
        "People",
        mentionable=True,
        description="A person: an author, an executive, an official.",
    ),
    Kind(
        "party",
        "parties",
        Party,
        "Party",
        "Who builds and pays",
        mentionable=True,
        description="A company, agency or investor.",
    ),
    Kind(
        "correction",
        "corrections",
        Correction,
        "Correction",
        "Corrections",
        description="Where the book or a source was wrong.",
    ),
    Kind(
        "scenario",
        "scenarios",
        Scenario,
        "Scenario",
        "Scenarios",
        description="One campus, several futures, computed from cited parameters.",
    ),
    Kind(
        "chart",
        "charts",
        Chart,
        "Chart",
        "The record at a glance",
        description="A query over the compiled record, drawn by a Vega-Lite spec.",
    ),
    Kind(
        "paper",
        "papers",
        Paper,
        "Paper",
        "The Paper",
        description="A long-form article with citations, footnotes and figures.",
    ),
)

_BY_NAME = {k.name: k for k in KINDS}
_BY_FOLDER = {k.folder: k for k in KINDS}


def kind_by_name(name: str) -> Kind | None:
    return _BY_NAME.get(name)


def kind_by_folder(folder: str) -> Kind | None:
    return _BY_FOLDER.get(folder)
