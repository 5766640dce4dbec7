#!/usr/bin/env python3
"""Write a synthetic sourcebook record of N entities, for benchmarks and tests.

    python bench/generate.py N OUTDIR [--seed S]

The record has the proportions of a real one (about 30% terms, 35% sources, 10% each of
campuses, people and parties, 2% corrections, 1% each of chapters, indicators and tests),
English-like prose that mentions other entities by name and alias, wiki links, citations
and curly-quoted quotes that stand in the annotations of the sources they cite, figures
whose quotes carry their numbers, SQL for the indicators and tests, and a Library holding
copies of most sources. Every name is unique: no two collide case-insensitively and none
is another's plural.

The same N and seed always give byte-identical files, and the record checks with no
errors (warnings, such as unverifiable quotes, unused terms and drafts, are expected).
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import random
import re
import shutil
import textwrap
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

CLOSES = date(2026, 11, 8)
STAMP = ".generated.json"
LIBRARY = "library"
CACHE = ".sourcebook-cache"
FOLDERS = {
    "term": "terms",
    "chapter": "chapters",
    "campus": "campuses",
    "indicator": "indicators",
    "test": "tests",
    "source": "sources",
    "person": "people",
    "party": "parties",
    "correction": "corrections",
}
# Share of N for every kind but sources, which take the rest; and the least of each.
SHARES = {
    "term": 0.30,
    "chapter": 0.01,
    "campus": 0.10,
    "indicator": 0.01,
    "test": 0.01,
    "person": 0.10,
    "party": 0.10,
    "correction": 0.02,
}
LEAST = {
    "term": 10,
    "chapter": 10,
    "campus": 5,
    "indicator": 3,
    "test": 3,
    "person": 5,
    "party": 5,
    "correction": 2,
}
MIN_N = 60

# --- Vocabulary -------------------------------------------------------------------------


def words(text: str) -> list[str]:
    return text.split()


TERM_ADJ = words("""
algorithmic exclusive firm binding captive sovereign frontier marginal stranded contracted
interruptible baseload distributed modular liquid immersion bilateral speculative effective
nameplate delivered operational committed deferred rental spot forward installed usable
critical redundant dedicated hyperscale wholesale colocated onsite offsite regional peak
nominal gross unallocated reserved dark leased vertical upstream downstream compound
lasting implied hidden secondary primary dense thermal electrical optical packaged advanced
legacy leading trailing rolling blended levelized amortized residual terminal structured
mezzanine senior synthetic agentic multimodal distilled sparse behind-the-meter grid-tied
islanded curtailed stacked phased flexible dispatchable merchant regulated tolling
""")
TERM_NOUN = words("""
capacity demand cluster interconnect substation turbine transformer queue backlog tariff
offtake rack fabric switch wafer node package memory bandwidth throughput latency token
margin runway moat flywheel ladder scaling curve ramp buildout pipeline constraint
bottleneck shortage glut overhang backstop guarantee covenant tranche bond yield spread
valuation revenue compute inference training efficiency diffusion advantage lead race
arsenal layer stack generation load reserve storage battery cooling envelope footprint
allocation contract lease lien concession subsidy mandate permit easement corridor
headroom utilization depreciation obsolescence refresh cadence roadmap tapeout yield
packaging substrate interposer photonics coolant chiller manifold busway switchgear
""")
COIN_TAILS = words("pack grid core link flow scale stack gate wire forge")
FILLER_ADJ = words("""
large new first second smaller older public private local federal early late final
initial formal quiet sudden steady modest sharp narrow broad rough careful
""")
FILLER_NOUN = words("""
site grid permit contract lease chip hall plant line filing report estimate forecast
budget loan deal tender auction order plan schedule count tally survey hearing vote
""")
FILLER_NOUNS = words("""
sites grids permits contracts leases chips halls plants lines filings reports estimates
forecasts budgets loans deals orders plans schedules counts surveys hearings
""")
VERBS = words("""
announced approved delayed financed energized cancelled expanded leased permitted
commissioned disclosed revised
""")
CAMPUS_STATUSES = ["announced", "planned", "under construction", "operating", "cancelled"]
STATES = [*CAMPUS_STATUSES, "delayed"]
GRADE_WORDS = ["reported", "claimed", "estimated", "observed"]
CLAUSES = [
    "well ahead of the grid connection",
    "two years after the first permit",
    "though the utility has not confirmed it",
    "according to the operator's own count",
    "which no other source repeats",
    "as the local paper reported",
    "before the financing closed",
    "while the turbines were still on order",
    "a figure the county repeated without comment",
    "and the record gives the day it was said",
]
LATER_CLAUSES = [
    "no one outside the company can see",
    "the filings describe only in part",
    "changes with every quarter",
    "sets the limit on everything else",
    "the book returns to in its last chapter",
]
MONTHS = words("""
January February March April May June July August September October November December
""")
UNITS = [("MW", 1), ("GW", 0.1), ("acres", 10), ("chips", 1000), ("racks", 10)]
CHIPS = ["H100", "H200", "B200", "GB200", "GB300", "MI300X", "MI355X"]
FIRST_NAMES = words("""
Ada Adrian Aisha Alba Alice Amara Anders Andrea Ann Anton Asha Ben Bianca Boris Bruno
Camille Carla Chen Clara Colin Dalia Daniel Dara Diego Dmitri Elena Eli Elif Ellie Emil
Emma Eric Esther Farah Felix Fiona Frank Gemma Greta Hana Hassan Helen Hugo Ida Ines Ingrid
Isaac Ivan Jana Javier Jin Joan Jonas Julia Kai Karim Kate Kenji Lars Laura Lea Leon Lina
Luca Lucia Maya Mei Marco Maria Mark Marta Mateo Nadia Nina Noah Nora Olga Omar Oscar Paula
Pedro Petra Priya Rafael Rania Ravi Rosa Ruth Sam Sara Selma Simon Sofia Tariq Tessa Theo
Tomas Una Vera Victor Wen Yara Yusuf Zara Zoe José Zoë Søren Chloé Agnès
""")
SURNAMES = words("""
Abbott Achebe Adler Alvarez Amato Andersen Arroyo Ashby Baker Banerjee Barros Becker Bell
Bergman Bianchi Blake Bose Brandt Brennan Calder Cardoso Carver Castillo Chandra Chung Cole
Conti Costa Dahl Dalton Delgado Dixon Doyle Dryden Duarte Eckert Ellison Engel Esposito
Farrow Fischer Flores Foster Fujita Garber Garland Gonzaga Gupta Haas Hale Halvorsen Hardy
Hartmann Hayes Holbrook Horvat Huang Ibarra Ingram Iyer Jansen Jarvis Kagame Kaplan Keller
Kimura Kovac Kramer Lachance Landry Lange Larsen Lindqvist Lombardi Lowe Madsen Maier
Marsh Mendez Mercer Moreau Morrow Nakamura Navarro Nguyen Nilsen Novak Okafor Olsen Ortega
Osei Pacheco Park Pereira Petrov Pike Quinlan Rahman Ramos Reyes Richter Rinaldi Rojas
Sato Schmitt Serrano Shah Sherwood Silva Sokolov Strand Suzuki Tanaka Thorne Toivonen Ueda
Varga Vasquez Voss Wagner Walcott Weber Whitlock Winter Yamada Yilmaz Zeller Zhou Zimmer
""")
PLACE_HEADS = words("""
Ash Oak Elm Cedar Pine Maple Willow Birch Stone Iron Copper Silver Red Green Black White
Clear Fair Glen Lake River Spring Sand Salt Rock Hill Bridge Mill Fox Wolf Bear Eagle Hawk
Crow Deer Elk Bright Cold Long Broad High Low North South East West Kings Church Cross
Fern Holly Laurel Marsh Meadow Moss Raven Sun Star Summer Winter
""")
PLACE_TAILS = words("""
ford ton ville field wood dale port burg bury ridge view haven mont land worth stead wick
brook creek falls crest grove moor vale water
""")
REGIONS = [
    ("Texas", "US"),
    ("Ohio", "US"),
    ("Georgia", "US"),
    ("Virginia", "US"),
    ("Arizona", "US"),
    ("Tennessee", "US"),
    ("Louisiana", "US"),
    ("Wisconsin", "US"),
    ("Pennsylvania", "US"),
    ("Alberta", "CA"),
    ("Abu Dhabi", "AE"),
    ("Johor", "MY"),
    ("Finnmark", "NO"),
    ("Aragon", "ES"),
    ("Jalisco", "MX"),
    ("Hesse", "DE"),
]
CODENAMES = words("""
Colossus Stargate Hyperion Prometheus Jupiter Titan Atlas Helios Orion Vesta Juno Ceres
Nimbus Aurora Borealis Zenith Apex Meridian Solstice Equinox Polaris Sirius Vega Lyra
Cygnus Draco Perseus Andromeda Cassini Kepler Tycho Galileo Halley Hubble Leviathan Kraken
Goliath Behemoth Monolith Obelisk Citadel Bastion Rampart Forge Crucible Anvil Beacon
""")
PARTY_SUFFIXES = {
    "company": ["Compute", "Systems", "Cloud", "Networks", "Infrastructure", "Semiconductor"],
    "investor": ["Capital", "Partners", "Ventures", "Holdings", "Asset Management"],
    "utility": ["Power", "Electric", "Energy Cooperative", "Light and Power", "Utilities"],
    "publisher": ["Herald", "Gazette", "Review", "Ledger", "Dispatch", "Tribune"],
    "research": ["Institute", "Analysis", "Research", "Observatory", "Lab"],
    "agency": ["Development Authority", "Energy Commission", "Planning Board"],
    "government": ["County", "City Council", "Port Authority"],
}
PARTY_TYPES = ["company"] * 9 + ["investor"] * 3 + ["utility"] * 2 + ["publisher"] * 3
PARTY_TYPES += ["research", "research", "agency", "government"]
JOBS = ["chief executive", "analyst", "reporter", "engineer", "planner", "economist", "editor"]
CATEGORY_OF = {"company": "company", "publisher": "press", "research": "research"}
ONSETS = words("b br c ch cl cr d dr f fl g gl gr h j k l m n p pl pr r s sc sl st t tr v w z")
VOWELS = words("a e i o u a e i o ai au ea ia io")
CODAS = ["", "", "", "n", "r", "l", "s", "x", "nd", "rn", "st", "th"]

FILLER = [
    "The {fadj} {noun} was {verb} in {month} {year}, {clause}.",
    "By {month} {year} the {noun} had reached {quantity}, {clause}.",
    "Few of the {nouns} described here were {state} when first announced.",
    "The figures for the {noun} are {grade} rather than documented, and the record says so.",
    "What matters is not the {noun} but the {noun2}, which {later}.",
    "A {fadj} {noun} is not the same thing as a {fadj2} one.",
    "The county filing puts the {noun} at {quantity}.",
    "Nothing in the {noun} changes the arithmetic of the {noun2}.",
    "Each {noun} took {small} months longer than its owners first said.",
    "The {noun} is {state}, and the {noun2} is {state2}.",
    "Read together, the {nouns} show {quantity} by {year}.",
    "It is the {noun}, not the {noun2}, that sets the pace.",
    "Over {small} quarters the {noun} doubled, then stalled.",
    "The {fadj} estimate is {quantity}; the {fadj2} one is {quantity2}.",
    "The minutes of the {month} hearing are at https://example.org/minutes/{page}.",
    "The {noun} is recorded under the metric `it-power`, in MW.",
]
MENTIONS = [
    "{A} said the {noun} would reach {quantity} by {year}.",
    "According to {A}, the {noun} at {B} was {state} by {month} {year}.",
    "{A} and {B} signed a {noun} agreement in {month} {year}.",
    "The record treats {A} as {fadj} evidence for {B}.",
    "{A} is where the book first meets {B}.",
    "Unlike {A}, {B} published its {noun} figures.",
    "{A} appears in the {nouns} beside {B}, {clause}.",
    "The case of {A} shows how quickly a {noun} can turn into a {noun2}.",
    "{A} disputes the {noun} attributed to it.",
    "Compare {A}, whose {noun} was {state} in {year}.",
    "{A} bought {quantity} from {B} in {month} {year}.",
    "Without {A} there would be no {noun} at {B}.",
]
WIKIS = [
    "See [[{id}]] for the {noun}.",
    "The {noun} is set out under [[{id}]].",
    "[[{id}|{shown}]] is the nearest comparison.",
    "On the {noun}, [[{kind}:{id}]] has the detail.",
]
CITES = [
    "The {noun} was {verb} in {month} {year} [@{src}, p. {page}].",
    "{A} put the {noun} at {quantity} [@{src}].",
    "Two {nouns} agree on the {noun} [@{src}; @{src2}, p. {page}].",
    "The {fadj} {noun} is described in the {month} filing [@{src}, p. {page}, n. {small}].",
]
QUOTING = [
    "{A} called it “{quote}” [@{src}, p. {page}].",
    "In the words of the filing, “{quote}” [@{src}].",
    "The source is plain: “{quote}” [@{src}, p. {page}].",
]
QUOTES = [
    "we expect to bring {quantity} online by {year}",
    "the {noun} is the largest of its kind in {region}",
    "{small} of the {nouns} are already energized",
    "our {noun} remains on schedule",
    "the {noun} will not be ready before {year}",
    "demand for {noun} capacity continues to exceed supply",
    "we have secured {quantity} through {year}",
    "the project is {state}, and we will say more when we can",
    "nobody builds a {noun} of this size on speculation",
]
ANNOTATION_LEADS = [
    "the {fadj} {noun} and its {noun2}",
    "{quantity} in the {month} {year} filing",
    "read for the {noun}; the {fadj} {noun2} was not read",
    "on {A} and the {noun}",
]
TITLES = [
    "{A} plans {quantity} {noun} in {region}",
    "Inside the {fadj} {noun} at {A}",
    "Why the {noun} is the {noun2} to watch",
    "{A} and {B} sign {noun} deal",
    "The {noun} in {year}: a {fadj} report",
]
SLOT = re.compile(r"\{(\w+)\}")
WORD = re.compile(r"[A-Za-z]+")
YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}


def _reserved_words() -> set[str]:
    """Every word the prose templates write on their own: no single-word name may be one."""
    texts = FILLER + MENTIONS + WIKIS + CITES + QUOTING + QUOTES + ANNOTATION_LEADS + TITLES
    texts += CLAUSES + LATER_CLAUSES + STATES + JOBS
    words = [*FILLER_ADJ, *FILLER_NOUN, *FILLER_NOUNS, *VERBS, *MONTHS, *GRADE_WORDS]
    words += [u for u, _ in UNITS] + CHIPS + [r for r, _ in REGIONS] + ["USD", "AI", "GPU"]
    words += TERM_ADJ + TERM_NOUN
    for text in texts:
        words += WORD.findall(text)
    return {w.casefold() for w in words}


RESERVED = _reserved_words()


# --- Small helpers ----------------------------------------------------------------------


def slug(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-") or "x"


def name_forms(name: str) -> list[str]:
    """A name and every plural a reader could make of it, case-folded (a superset)."""
    folded = name.strip().casefold()
    forms = [folded, folded + "s", folded + "es"]
    if folded.endswith("y"):
        forms.append(folded[:-1] + "ies")
    return forms


def acronym(name: str) -> str:
    return "".join(w[0] for w in name.replace("-", " ").split() if w[0].isalpha()).upper()


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def skewed(rng: random.Random, items: list):
    """An item, favouring the first: a few entities are mentioned far more than the rest."""
    return items[int(len(items) * rng.random() ** 2.2)]


def day_before(rng: random.Random, latest: date, span_days: int, precision: str = "") -> str:
    """A day up to `span_days` before `latest`, as YYYY-MM-DD, YYYY-MM or YYYY."""
    day = latest - timedelta(days=rng.randrange(span_days))
    precision = precision or rng.choice(["day", "day", "day", "month", "year"])
    if precision == "year":
        return f"{day.year}"
    return day.isoformat() if precision == "day" else day.isoformat()[:7]


def day_start(day: str) -> date:
    """The first date a day, month or year (YYYY[-MM[-DD]]) can mean."""
    parts = [int(p) for p in day.split("-")] + [1, 1]
    return date(parts[0], parts[1], parts[2])


def number_text(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:g}"


# --- Names ------------------------------------------------------------------------------


class NamePool:
    """Hands out names that collide with no other name, its plurals, or a prose word."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.taken: set[str] = set()  # looked up, never iterated: keeps output deterministic

    def claim(self, name: str) -> bool:
        forms = name_forms(name)
        if len(name) < 3 or any(f in self.taken or f in RESERVED for f in forms):
            return False
        self.taken.update(forms)
        return True

    def unique(self, make: Callable[[], str]) -> str:
        """A fresh name from `make`; a coined word after enough collisions."""
        for _ in range(40):
            name = make()
            if self.claim(name):
                return name
        while True:
            name = f"{make()} {self.coin()}"
            if self.claim(name):
                return name

    def aliases(self, candidates: list[str]) -> list[str]:
        return [a for a in candidates if a and self.claim(a)][:2]

    def coin(self) -> str:
        rng = self.rng
        parts = []
        for index in range(rng.choice([2, 2, 3])):
            coda = rng.choice(CODAS) if index else rng.choice(CODAS[:6])
            parts.append(rng.choice(ONSETS) + rng.choice(VOWELS) + coda)
        return cap("".join(parts))

    def place(self) -> str:
        return self.rng.choice(PLACE_HEADS) + self.rng.choice(PLACE_TAILS)


# --- The plan of the record -------------------------------------------------------------


@dataclass
class Item:
    kind: str
    id: str
    title: str
    aliases: list[str] = field(default_factory=list)
    fields: dict[str, object] = field(default_factory=dict)
    body: str = ""
    quotes: list[str] = field(default_factory=list)
    """For a source: the words its annotation quotes."""


class Folded(str):
    """A long value written as a folded block scalar."""


class Plain(str):
    """A value written as it is: a day, an id."""


class Literal(str):
    """A value of several lines, written as a literal block scalar: a query."""


class Plan:
    """Every entity of the record, built up stage by stage from one seeded generator."""

    def __init__(self, n: int, seed: int):
        self.rng = random.Random(seed)
        self.names = NamePool(self.rng)
        self.counts = counts(n)
        self.ids: set[str] = set()
        self.items: dict[str, list[Item]] = {kind: [] for kind in FOLDERS}
        self.library: list[Copy] = []
        self.sourced: dict[str, list[str]] = {}
        """Metric → ids of the figures of it that carry a source: what estimates rest on."""

    def new(self, kind: str, title: str, wanted_id: str, aliases: Sequence[str] = ()) -> Item:
        entity_id, suffix = wanted_id, 2
        while entity_id in self.ids:
            entity_id, suffix = f"{wanted_id}-{suffix}", suffix + 1
        self.ids.add(entity_id)
        item = Item(kind, entity_id, title, list(aliases))
        self.items[kind].append(item)
        return item

    def pick(self, kind: str) -> Item:
        return skewed(self.rng, self.items[kind])

    def sample(self, kind: str, low: int, high: int) -> list[Item]:
        pool = self.items[kind]
        return self.rng.sample(pool, min(len(pool), self.rng.randint(low, high)))


def counts(n: int) -> dict[str, int]:
    """How many entities of each kind a record of `n` has; sources take what is left."""
    if n < MIN_N:
        raise ValueError(f"N must be at least {MIN_N}")
    out = {kind: max(LEAST[kind], round(n * share)) for kind, share in SHARES.items()}
    out["source"] = n - sum(out.values())
    return {kind: out[kind] for kind in FOLDERS}


def make_parties(plan: Plan) -> None:
    rng, names = plan.rng, plan.names

    def party_name(kind: str) -> str:
        suffix = rng.choice(PARTY_SUFFIXES[kind])
        if kind in ("company", "research"):
            stem = names.coin()
        elif kind == "investor":
            stem = rng.choice(SURNAMES) if rng.random() < 0.5 else names.coin()
        else:
            stem = names.place()
        prefix = "The " if kind == "publisher" and rng.random() < 0.5 else ""
        return f"{prefix}{stem} {suffix}"

    for _ in range(plan.counts["party"]):
        kind = rng.choice(PARTY_TYPES)
        title = names.unique(lambda k=kind: party_name(k))
        bare = title.removeprefix("The ")
        options = [acronym(title) if len(title.split()) >= 3 else ""]
        options.append(bare.split()[0] if kind in ("company", "research") else "")
        aliases = names.aliases([a for a in options if rng.random() < 0.45])
        party = plan.new("party", title, slug(bare), aliases)
        party.fields["type"] = kind


def make_people(plan: Plan) -> None:
    rng, names = plan.rng, plan.names

    def full_name() -> str:
        middle = f" {rng.choice(ONSETS)[0].upper()}." if rng.random() < 0.2 else ""
        return f"{rng.choice(FIRST_NAMES)}{middle} {rng.choice(SURNAMES)}"

    for _ in range(plan.counts["person"]):
        title = names.unique(full_name)
        first, last = title.split()[0], title.split()[-1]
        options = [last if rng.random() < 0.25 else "", f"{first[0]}. {last}"]
        aliases = names.aliases([options[0], options[1] if rng.random() < 0.15 else ""])
        plan.new("person", title, slug(title), aliases)


def make_campuses(plan: Plan) -> None:
    rng, names = plan.rng, plan.names

    def campus_name() -> str:
        code = rng.choice(CODENAMES) if rng.random() < 0.3 else names.coin()
        pattern = rng.randrange(4)
        if pattern == 0:
            return f"{code} {names.place()}"
        if pattern == 1:
            return f"Project {code}"
        return f"{code} {rng.randint(1, 9)}" if pattern == 2 else f"{names.place()} {code} Campus"

    for _ in range(plan.counts["campus"]):
        title = names.unique(campus_name)
        words = title.split()
        code = words[1] if words[0] in ("Project",) or words[-1] == "Campus" else words[0]
        aliases = names.aliases([code if rng.random() < 0.4 else ""])
        region, country = rng.choice(REGIONS)
        campus = plan.new("campus", title, slug(title), aliases)
        campus.fields.update(location=f"{names.place()}, {region}", country=country)


def make_terms(plan: Plan) -> None:
    rng, names = plan.rng, plan.names
    parties = plan.items["party"]
    for party in parties[: max(1, len(parties) // 60)]:
        term = plan.new("term", party.title, f"{party.id}-term")
        term.fields["same_as"] = Plain(f"party:{party.id}")

    def term_name() -> str:
        noun, other = rng.sample(TERM_NOUN, 2)
        roll = rng.random()
        if roll < 0.45:
            return f"{cap(rng.choice(TERM_ADJ))} {noun}"
        if roll < 0.7:
            return f"{cap(noun)} {other}"
        if roll < 0.88:
            return f"{cap(rng.choice(TERM_ADJ))} {noun} {other}"
        return names.coin() + rng.choice(COIN_TAILS)

    while len(plan.items["term"]) < plan.counts["term"]:
        title = names.unique(term_name)
        options = [acronym(title) if len(title.split()) >= 3 else ""]
        options.append(title.replace(" ", "-") if " " in title else "")
        aliases = names.aliases([a for a in options if rng.random() < 0.4])
        plan.new("term", title, slug(title), aliases)


def make_numbered(plan: Plan) -> None:
    """Chapters, scorecard rows and tests: titles and ids, no names to keep unique."""
    rng = plan.rng
    for number in range(1, plan.counts["chapter"] + 1):
        title = f"The {cap(rng.choice(TERM_ADJ))} {cap(rng.choice(TERM_NOUN))}"
        plan.new("chapter", title, f"chapter-{number}").fields["number"] = number
    for row in range(1, plan.counts["indicator"] + 1):
        title = f"{cap(rng.choice(TERM_ADJ))} {rng.choice(TERM_NOUN)} by quarter"
        plan.new("indicator", title, f"row-{row}").fields["row"] = row
    for index in range(1, plan.counts["test"] + 1):
        title = f"{cap(rng.choice(TERM_NOUN))} {rng.choice(STATES)} by {rng.randint(2027, 2030)}"
        plan.new("test", title, f"test-{index}-{slug(title)}")


# --- Prose ------------------------------------------------------------------------------

SENTENCE_KINDS = ["filler", "mention", "wiki", "cite", "quoting"]
SENTENCE_WEIGHTS = [30, 40, 10, 12, 8]
MENTIONABLE = ("term", "campus", "person", "party")


WORD_SLOTS = {
    "nouns": FILLER_NOUNS,
    "fadj": FILLER_ADJ,
    "verb": VERBS,
    "state": STATES,
    "grade": GRADE_WORDS,
    "clause": CLAUSES,
    "later": LATER_CLAUSES,
    "month": MONTHS,
    "region": [region for region, _ in REGIONS],
}
NUMBER_SLOTS = {"year": (2019, 2026), "small": (2, 9), "page": (1, 240)}


class Writer:
    """English-like sentences that mention, link, cite and quote the record's entities."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self.rng = plan.rng
        self.names = [
            (name, item)
            for kind in MENTIONABLE
            for item in plan.items[kind]
            for name in (item.title, *item.aliases)
        ]
        self.rng.shuffle(self.names)
        self.linkable: list[Item] = []
        self.quoted: list[Item] = []

    def refresh(self) -> None:
        """Take in every entity and every source's quotes, once all are planned."""
        self.linkable = [item for items in self.plan.items.values() for item in items]
        self.rng.shuffle(self.linkable)
        self.quoted = [s for s in self.plan.items["source"] if s.quotes]

    def fill(self, template: str, bound: dict[str, str] | None = None) -> str:
        bound = {} if bound is None else bound

        def one(match: re.Match) -> str:
            key = match[1]
            if key not in bound:
                bound[key] = self.slot(key.rstrip("2"))
            return bound[key]

        return SLOT.sub(one, template)

    def slot(self, key: str) -> str:
        rng = self.rng
        if key in ("A", "B"):
            return self.mention()
        if key == "quantity":
            unit, scale = rng.choice(UNITS)
            return f"{number_text(round(rng.uniform(1, 900) * scale, 1))} {unit}"
        if key == "src":
            return skewed(rng, self.plan.items["source"]).id
        if key == "noun":
            return rng.choice(TERM_NOUN if rng.random() < 0.3 else FILLER_NOUN)
        if key in WORD_SLOTS:
            return rng.choice(WORD_SLOTS[key])
        return str(rng.randint(*NUMBER_SLOTS[key]))

    def mention(self) -> str:
        name, item = skewed(self.rng, self.names)
        plural = item.kind == "term" and name[-1].isalpha() and name[-1] not in "sxzhy"
        return name + "s" if plural and self.rng.random() < 0.1 else name

    def sentence(self) -> str:
        kind = self.rng.choices(SENTENCE_KINDS, SENTENCE_WEIGHTS)[0]
        if kind == "wiki" and self.linkable:
            item = skewed(self.rng, self.linkable)
            bound = {"id": item.id, "kind": item.kind, "shown": item.title}
            return self.fill(self.rng.choice(WIKIS), bound)
        if kind == "quoting" and self.quoted:
            source = skewed(self.rng, self.quoted)
            bound = {"src": source.id, "quote": self.rng.choice(source.quotes)}
            return self.fill(self.rng.choice(QUOTING), bound)
        if kind == "cite":
            return self.fill(self.rng.choice(CITES))
        return self.fill(self.rng.choice(MENTIONS if kind == "mention" else FILLER))

    def plain_paragraph(self) -> str:
        """A paragraph of a source's own text: names, but no links or citations."""
        templates = self.rng.choices([FILLER, MENTIONS], k=self.rng.randint(3, 6))
        return " ".join(cap(self.fill(self.rng.choice(t))) for t in templates)

    def paragraph(self, low: int = 3, high: int = 5) -> str:
        return " ".join(cap(self.sentence()) for _ in range(self.rng.randint(low, high)))

    def body(self, low: int, high: int, headings: bool = False) -> str:
        paragraphs = []
        for index in range(self.rng.randint(low, high)):
            if headings and index and index % 3 == 0:
                paragraphs.append(f"## {cap(self.fill('{noun} and {noun2}'))}")
            paragraphs.append(self.paragraph())
        return "\n\n".join(paragraphs) + "\n" if paragraphs else ""

    def quote(self) -> str:
        return self.fill(self.rng.choice(QUOTES))

    def annotation(self, quotes: list[str]) -> str:
        rng = self.rng
        clauses = [self.fill(rng.choice(ANNOTATION_LEADS))]
        for quote in quotes:
            form = rng.choice(
                ["“{q}”", "on the {noun}: “{q}”", "of {A}: “{q}”", "p. {page}: “{q}”"]
            )
            clauses.append(self.fill(form, {"q": quote}))
        return cap("; ".join(clauses)) + "."


# --- Relations --------------------------------------------------------------------------

# Metric, unit, range of values, and how a source words the number.
METRICS = [
    ("it-power", "MW", 20, 2000, "{n} MW of IT power"),
    ("facility-power", "MW", 30, 3000, "{n} megawatts for the whole facility"),
    ("grid-supply", "MW", 50, 5000, "{n} MW from the grid"),
    ("chips", "chips", 5000, 500000, "{n} GPUs"),
    ("capital-cost", "USD", 1e9, 1e11, "${b} billion of capital spending"),
    ("land", "acres", 40, 4000, "{n} acres of land"),
]
# The record's own SQL, over the compiled record's tables (docs/database.md).
POWER_SITES = """WITH site AS (
  SELECT campus, id, base_value, ROW_NUMBER() OVER (
    PARTITION BY campus ORDER BY as_of_end DESC, grade_rank, base_value DESC) AS n
  FROM figures
  WHERE campus IS NOT NULL AND metric = '{metric}'
    AND status = 'operating' AND evidenced = 1)"""
INDICATOR_QUERIES = [
    POWER_SITES
    + """,
big AS (SELECT * FROM site WHERE n = 1 AND base_value >= {watts} ORDER BY base_value DESC)
SELECT COUNT(*) AS value, 'campuses' AS unit, group_concat(id, ',') AS figure FROM big
""",
    POWER_SITES
    + """,
counted AS (SELECT * FROM site WHERE n = 1 ORDER BY base_value DESC, campus)
SELECT SUM(base_value) / 1e6 AS value, 'MW' AS unit, group_concat(id, ',') AS figure,
  COUNT(*) || ' campuses, each at its latest evidenced figure' AS note
FROM counted HAVING COUNT(*) > 0
""",
    """SELECT base_value / 1e6 AS value, 'MW' AS unit, id AS figure, campus
FROM figures
WHERE campus IS NOT NULL AND metric = '{metric}' AND status = 'operating' AND evidenced = 1
ORDER BY base_value DESC, id LIMIT 1
""",
]
TEST_QUERY = """WITH big AS (
  SELECT campus, MIN(id) AS id FROM figures
  WHERE campus IS NOT NULL AND metric IN ('it-power', 'facility-power')
    AND status = 'operating' AND evidenced = 1 AND base_value >= {watts}
    AND as_of_end <= '{end}'
  GROUP BY campus ORDER BY campus)
SELECT CASE WHEN COUNT(*) >= {k} THEN 1 END AS holds,
  COUNT(*) || ' of the {k} campuses shown running at {mw} MW or more' AS why,
  group_concat(id, ',') AS figure
FROM big
"""
ESTIMATE_SHARE = 0.5
"""Share of estimated figures worked out from other figures rather than quoted."""
PAST = ["operating", "under construction", "cancelled", "market"]
LATER = ["announced", "planned", "projected"]
GRADES = ["documented", "observed", "reported", "claimed", "estimated"]
QUALIFIERS = [None, None, "about", "more than", "up to", "nearly"]
ROLES = ["owner", "operator", "tenant", "builder", "supplier", "financier", "developer"]
SUPPLIES = ["GB200 systems", "H100 GPUs", "Megapack batteries", "gas turbines", "switchgear"]


def make_sources(plan: Plan, writer: Writer) -> None:
    rng = plan.rng
    publishers = [p for p in plan.items["party"] if p.fields["type"] == "publisher"]
    for _ in range(plan.counts["source"]):
        publisher = rng.choice(publishers) if publishers and rng.random() < 0.5 else None
        publisher = publisher or plan.pick("party")
        day = day_before(rng, CLOSES, 4 * 365)
        topic = rng.choice(TERM_NOUN)
        stem = slug(publisher.title.removeprefix("The ").split()[0])
        suffix = day[2:4] if len(day) == 4 else MONTHS[int(day[5:7]) - 1][:3].lower() + day[2:4]
        title = cap(writer.fill(rng.choice(TITLES)))
        source = plan.new("source", title, f"{stem}-{topic}-{suffix}")
        category = CATEGORY_OF.get(str(publisher.fields["type"]), "other")
        source.fields.update(category=category, publisher=Plain(publisher.id), date=Plain(day))
        source.fields["authors"] = [a.id for a in plan.sample("person", 0, 3)]
        if len(day) == 10 and rng.random() < 0.2:
            since = (CLOSES - date.fromisoformat(day)).days + 1
            source.fields["updated"] = Plain(day_before(rng, CLOSES, since, "day"))
        source.fields["urls"] = [f"https://example.org/{stem}/{source.id}"]
        source.fields["italic_title"] = category == "research" and rng.random() < 0.5
        source.fields["quality"] = rng.choice(["primary", "secondary", "weak"])


def make_figure(plan: Plan, owner: Item, index: int) -> dict[str, object]:
    """A figure whose quote stands, word for word, in the annotation of its source; or, for
    some estimates, one worked out from other figures, named by their ids."""
    rng = plan.rng
    metric, unit, low, high, wording = rng.choice(METRICS)
    value = float(f"{rng.uniform(low, high):.3g}")
    status = rng.choice(PAST + LATER)
    late = date(2029, 12, 31) if status in LATER else CLOSES
    figure: dict[str, object] = {"id": f"{owner.id}-{metric}-{index}"}
    figure.update(metric=metric, value=value, unit=unit)
    if metric == "chips":
        figure["chip"] = rng.choice(CHIPS)
    grade = rng.choice(GRADES)
    figure.update(status=status, as_of=Plain(day_before(rng, late, 3 * 365)), grade=grade)
    sourced = plan.sourced.setdefault(metric, [])
    if grade == "estimated" and sourced and rng.random() < ESTIMATE_SHARE:
        inputs = rng.sample(sourced, min(len(sourced), rng.randint(1, 2)))
        figure["method"] = f"{metric} scaled from the {rng.choice(FILLER_NOUNS)} of the inputs"
        figure["inputs"] = [Plain(i) for i in inputs]
        return figure
    qualifier = rng.choice(QUALIFIERS)
    words = wording.format(n=number_text(value), b=f"{value / 1e9:g}")
    quote = f"{qualifier} {words}" if qualifier else words
    source = plan.pick("source")
    source.quotes.append(quote)
    figure.update(source=Plain(source.id), quote=quote)
    if qualifier:
        figure["qualifier"] = qualifier
    if grade == "estimated":
        figure["method"] = f"as {source.title} works it out"
    sourced.append(str(figure["id"]))
    return figure


def relate_campuses(plan: Plan) -> None:
    rng = plan.rng
    for campus in plan.items["campus"]:
        campus.fields["status"] = rng.choice(CAMPUS_STATUSES)
        parties = []
        for party in plan.sample("party", 1, 4):
            entry: dict[str, object] = {"party": Plain(party.id)}
            entry["roles"] = rng.sample(ROLES, rng.randint(1, 2))
            if "supplier" in entry["roles"]:
                entry["supplies"] = rng.choice(SUPPLIES)
            if rng.random() < 0.5:
                entry["source"] = Plain(plan.pick("source").id)
            if rng.random() < 0.1:
                entry["note"] = f"since {rng.choice(MONTHS)} {rng.randint(2022, 2026)}"
            parties.append(entry)
        campus.fields["parties"] = parties
        campus.fields["figures"] = [
            make_figure(plan, campus, index) for index in range(1, rng.randint(0, 4) + 1)
        ]


def relate_others(plan: Plan) -> None:
    rng = plan.rng
    for term in plan.items["term"]:
        term.fields["chapters"] = [c.id for c in plan.sample("chapter", 1, 2)]
        related = [t.id for t in plan.sample("term", 0, 4) if t is not term]
        term.fields["related"] = related
    for person in plan.items["person"]:
        affiliations = plan.sample("party", 0, 2)
        person.fields["affiliations"] = [p.id for p in affiliations]
        job = rng.choice(JOBS)
        person.fields["role"] = f"{cap(job)} at {affiliations[0].title}" if affiliations else job
    for party in plan.items["party"]:
        if rng.random() < 0.15:
            count = rng.randint(1, 2)
            party.fields["figures"] = [make_figure(plan, party, i) for i in range(1, count + 1)]
        party.fields["url"] = f"https://{slug(party.title)}.example.com"
    for test in plan.items["test"]:
        deadline = f"{rng.randint(2027, 2030)}-12-31"
        test.fields.update(deadline=Plain(deadline), chapter=Plain(plan.pick("chapter").id))
        megawatts, campuses = rng.choice([250, 500, 1000, 2000]), rng.randint(2, 12)
        test.fields["query"] = Literal(
            TEST_QUERY.format(watts=megawatts * 10**6, mw=megawatts, k=campuses, end=deadline)
        )
        test.fields["claim"] = (
            f"At least {campuses} campuses draw {megawatts:,} MW or more by {deadline[:4]}'s end."
        )
        test.fields["rule"] = (
            f"Passes if {campuses} or more campuses have an operating power figure of at least "
            f"{megawatts:,} MW, graded documented, observed or reported."
        )
    for indicator in plan.items["indicator"]:
        query = rng.choice(INDICATOR_QUERIES)
        metric = rng.choice(["it-power", "facility-power", "grid-supply"])
        watts = rng.choice([500, 1000, 2000]) * 10**6
        indicator.fields["query"] = Literal(query.format(metric=metric, watts=watts))
    for item in (i for items in plan.items.values() for i in items):
        if rng.random() < 0.01:
            item.fields["draft"] = True


def make_corrections(plan: Plan, writer: Writer) -> None:
    rng = plan.rng
    for index in range(1, plan.counts["correction"] + 1):
        title = cap(writer.fill("The {noun} at {A}"))
        correction = plan.new("correction", title, f"correction-{index}")
        scope = "book" if rng.random() < 0.6 else "source"
        correction.fields.update(scope=scope, date=Plain(day_before(rng, CLOSES, 365, "day")))
        if scope == "book":
            correction.fields["chapter"] = Plain(plan.pick("chapter").id)
        correction.fields["source"] = Plain(plan.pick("source").id)


PROSE_FIELDS = {
    "term": {"definition": "{fadj} {noun} that {later}, as the book uses it."},
    "chapter": {"summary": "What the {noun} is for, and how {A} came to {verb} it."},
    "indicator": {"description": "The {noun} of every campus that {later}."},
    "party": {"sells": "{noun} capacity and {nouns} to {A}"},
    "correction": {"wrong": "The book said {quantity}.", "right": "The {nouns} show {quantity}."},
}
# Kind → (fewest, most) paragraphs of its Markdown body.
BODY_PARAGRAPHS = {
    "term": (1, 3),
    "chapter": (6, 10),
    "campus": (2, 4),
    "indicator": (1, 2),
    "test": (1, 2),
    "source": (0, 1),
    "person": (1, 2),
    "party": (1, 3),
    "correction": (1, 1),
}


def write_annotations(plan: Plan, writer: Writer) -> None:
    """Each source's annotation, quoting its figures' words and a few more of its own."""
    rng = plan.rng
    for source in plan.items["source"]:
        while len(source.quotes) < 3 or (len(source.quotes) < 6 and rng.random() < 0.4):
            source.quotes.append(writer.quote())
        source.fields["annotation"] = Folded(writer.annotation(source.quotes))


def write_prose(plan: Plan, writer: Writer) -> None:
    """Every prose field but annotations, and every body, once all quotes are known."""
    writer.refresh()
    for kind, items in plan.items.items():
        for item in items:
            for name, template in PROSE_FIELDS.get(kind, {}).items():
                if name != "sells" or item.fields["type"] in ("company", "investor"):
                    item.fields[name] = cap(writer.fill(template))
            item.body = writer.body(*BODY_PARAGRAPHS[kind], headings=kind == "chapter")


# --- Library ----------------------------------------------------------------------------

LIBRARY_SHARE = 0.9
"""Share of sources with a copy in the Library; the quotes of the rest are unverifiable."""
CAPTURED_BY = "Bench House"


@dataclass
class Copy:
    """A Library item: its metadata, its text, and the original it was taken from."""

    shelf: str
    meta: dict[str, object]
    text: str
    original: bytes


def make_library(plan: Plan, writer: Writer) -> None:
    for source in plan.items["source"]:
        if plan.rng.random() < LIBRARY_SHARE:
            copy = library_copy(plan, writer, source, f"S{len(plan.library) + 1}")
            plan.library.append(copy)
            source.fields["library"] = [Plain(copy.shelf)]


def library_copy(plan: Plan, writer: Writer, source: Item, shelf: str) -> Copy:
    """A copy of `source` whose text holds, word for word, every quote taken from it."""
    rng = plan.rng
    paragraphs = [writer.plain_paragraph() for _ in range(rng.randint(2, 5))]
    for quote in source.quotes:
        index = rng.randrange(len(paragraphs))
        paragraphs[index] += f" {rng.choice(['It says', 'In its words', 'We read'])}: {quote}."
    text = "\n\n".join([source.title, *paragraphs]) + "\n"
    is_html = rng.random() < 0.6
    if is_html:
        blocks = "".join(f"<p>{html.escape(p, quote=False)}</p>\n" for p in paragraphs)
        title = html.escape(source.title, quote=False)
        page = f"<!doctype html>\n<html><head><title>{title}</title></head><body>\n"
        original = f"{page}<h1>{title}</h1>\n{blocks}</body></html>\n".encode()
    else:
        original = text.encode()
    since = (CLOSES - day_start(str(source.fields["date"]))).days + 1
    meta: dict[str, object] = {
        "kind": "html" if is_html else "text",
        "sha256": hashlib.sha256(original).hexdigest(),
        "file": f"{source.id}.{'html' if is_html else 'txt'}",
        "media_type": "text/html" if is_html else "text/plain",
        "size": len(original),
        "url": source.fields["urls"][0],
        "title": source.title,
        "captured": Plain(day_before(rng, CLOSES, since, "day")),
        "how": "captured from the web with sourcebook library capture",
        "by": CAPTURED_BY,
    }
    return Copy(shelf, meta, text, original)


# --- Files ------------------------------------------------------------------------------

ORDER = {
    "term": ["definition", "chapters", "related", "same_as"],
    "chapter": ["number", "summary"],
    "campus": ["location", "country", "status", "parties", "figures"],
    "indicator": ["row", "description", "query"],
    "test": ["claim", "deadline", "rule", "chapter"],
    "source": ["category", "authors", "publisher", "date", "updated", "urls", "italic_title"],
    "person": ["role", "affiliations"],
    "party": ["type", "sells", "url", "figures"],
    "correction": ["scope", "date", "chapter", "source", "wrong", "right"],
}
PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9 .,'()/&-]*")
FLOW_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9 .'()/&-]*")


def scalar(value: object, flow: bool = False) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    text = str(value)
    if isinstance(value, Plain):
        return text
    plain = (FLOW_PLAIN if flow else PLAIN).fullmatch(text)
    if plain and text.casefold() not in YAML_WORDS and not text.endswith(" "):
        return text
    return json.dumps(text, ensure_ascii=False)


def emit(key: str, value: object, indent: str) -> list[str]:
    """YAML lines for one field, as a person would write it."""
    if isinstance(value, Literal):
        return [f"{indent}{key}: |", *(f"{indent}  {line}" for line in value.splitlines())]
    if isinstance(value, Folded):
        wrapped = textwrap.wrap(value, 86, break_long_words=False, break_on_hyphens=False)
        return [f"{indent}{key}: >-", *(f"{indent}  {line}" for line in wrapped)]
    if isinstance(value, list) and value and isinstance(value[0], dict):
        lines = [f"{indent}{key}:"]
        for entry in value:
            entry_lines = [ln for k, v in entry.items() for ln in emit(k, v, indent + "    ")]
            entry_lines[0] = f"{indent}  - {entry_lines[0].lstrip()}"
            lines += entry_lines
        return lines
    if isinstance(value, list):
        return [f"{indent}{key}: [{', '.join(scalar(v, flow=True) for v in value)}]"]
    return [f"{indent}{key}: {scalar(value)}"]


def render(item: Item) -> str:
    lines = ["---", f"title: {scalar(item.title)}"]
    if item.aliases:
        lines += emit("aliases", item.aliases, "")
    order = ORDER[item.kind]
    keys = sorted(item.fields, key=lambda k: order.index(k) if k in order else len(order))
    for key in keys:
        value = item.fields[key]
        if value is not None and value != [] and value is not False:
            lines += emit(key, value, "")
    lines.append("---")
    return "\n".join(lines) + "\n" + item.body


def settings_text(plan: Plan) -> str:
    total = sum(plan.counts.values())
    return (
        "[book]\n"
        f'title = "A Synthetic Record of {total:,} Entities"\n'
        'house = "Bench House"\n'
        "closes = 2026-11-08\n"
        "\n[site]\n"
        'base_path = "/vol1"\n'
    )


def stamp(n: int, seed: int) -> str:
    """What a record was generated from: reused only while all of it is unchanged."""
    digest = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
    return json.dumps({"n": n, "seed": seed, "generator": digest}, sort_keys=True) + "\n"


def prepare(out: Path) -> None:
    """Empty `out` of an earlier generated record; refuse a folder that holds anything else."""
    if not out.exists():
        out.mkdir(parents=True)
        return
    if any(out.iterdir()) and not (out / STAMP).is_file():
        raise FileExistsError(f"{out} is not empty and holds no generated record")
    for folder in [*FOLDERS.values(), LIBRARY, CACHE]:
        shutil.rmtree(out / folder, ignore_errors=True)
    for name in ("sourcebook.toml", STAMP):
        (out / name).unlink(missing_ok=True)


def write_library(plan: Plan, out: Path) -> None:
    """Each copy as the Library holds it: S7.yaml, S7.txt and objects/ab/abcdef…"""
    folder = out / LIBRARY
    folder.mkdir()
    for copy in plan.library:
        meta = [line for key, value in copy.meta.items() for line in emit(key, value, "")]
        (folder / f"{copy.shelf}.yaml").write_bytes(("\n".join(meta) + "\n").encode())
        (folder / f"{copy.shelf}.txt").write_bytes(copy.text.encode())
        sha256 = str(copy.meta["sha256"])
        original = folder / "objects" / sha256[:2] / sha256
        original.parent.mkdir(parents=True, exist_ok=True)
        original.write_bytes(copy.original)


def build(n: int, seed: int = 0) -> Plan:
    """Plan a whole record: names, ids, fields, then prose."""
    plan = Plan(n, seed)
    make_parties(plan)
    make_people(plan)
    make_campuses(plan)
    make_terms(plan)
    make_numbered(plan)
    writer = Writer(plan)
    make_sources(plan, writer)
    relate_campuses(plan)
    relate_others(plan)
    make_corrections(plan, writer)
    write_annotations(plan, writer)
    make_library(plan, writer)
    write_prose(plan, writer)
    return plan


def generate(n: int, out: Path, seed: int = 0) -> None:
    """Write a record of `n` entities to `out`; the same n and seed give identical bytes."""
    out = Path(out)
    plan = build(n, seed)
    prepare(out)
    (out / "sourcebook.toml").write_bytes(settings_text(plan).encode())
    for kind, items in plan.items.items():
        folder = out / FOLDERS[kind]
        folder.mkdir()
        for item in items:
            (folder / f"{item.id}.md").write_bytes(render(item).encode())
    write_library(plan, out)
    (out / STAMP).write_bytes(stamp(n, seed).encode())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("n", type=int, help=f"how many entities (at least {MIN_N})")
    parser.add_argument("out", type=Path, help="the folder to write the record to")
    parser.add_argument("--seed", type=int, default=0, help="the random seed (default 0)")
    args = parser.parse_args(argv)
    try:
        generate(args.n, args.out, args.seed)
    except (ValueError, FileExistsError) as exc:
        parser.error(str(exc))
    print(f"wrote {args.n:,} entities to {args.out}")


if __name__ == "__main__":
    main()
