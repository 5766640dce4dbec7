"""Mentions are found once, by link: a page links each name exactly where link found it,
to the entity link chose, and link's references (the backlinks) are those same names."""

from __future__ import annotations

import html

import pytest
from conftest import BUNDLED
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser as HTMLParser
from site_fixtures import write_record

from sourcebook.diagnostics import Diagnostics
from sourcebook.link import link_record, markdown, mentions
from sourcebook.link.graph import Graph
from sourcebook.link.names import NameMatcher
from sourcebook.model.base import Entity
from sourcebook.model.record import Record
from sourcebook.publish.site.drawing.paper import paper_of
from sourcebook.publish.site.pages.sections import site_urls
from sourcebook.publish.site.view.site_view import SiteView
from sourcebook.read.record import read_record

EXTRA = {
    # One name for two entities: it links to the term (KINDS order), and is a use of both.
    "terms/tva.md": "---\ntitle: TVA\ndefinition: The Tennessee Valley Authority.\n---\n",
    "parties/tva.md": "---\ntitle: TVA\ntype: agency\n---\n",
    "parties/att.md": "---\ntitle: AT&T\ntype: company\n---\n",
    "parties/probe.md": "---\ntitle: Probe Co\ntype: company\nsells: A line.\n---\nA body.\n",
    "papers/probe.md": "---\ntitle: A probe\ndate: 2026-11-08\nsummary: A line.\n---\nA body.\n",
}
PROBE = ("party", "probe")
PAPER = ("paper", "probe")


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Record:
    root = write_record(tmp_path_factory.mktemp("record"), EXTRA)
    found = read_record(root, Diagnostics())
    assert found is not None
    return found


def with_probe(record: Record, key: tuple[str, str] = PROBE, **prose: str) -> tuple[Record, Entity]:
    """The record, its probe's prose fields replaced (a party's: its body, and what it
    sells, a line; or a paper's)."""
    probe = record.get(*key)
    assert probe is not None
    changed = probe.model_copy(update=prose)
    copy = Record(record.root, record.settings, broken=set(record.broken))
    for entity in record:
        copy.add(changed if entity.key == key else entity)
    return copy, changed


WIKI = "⟨w⟩"
"""What each generated wiki link shows, which tells it from a mention on the page."""


def shown(view: SiteView, record: Record, page: str) -> list[tuple[str, tuple[str, str]]]:
    """The mentions on a page's prose: each name as shown and the entity it links to."""
    by_url = {view.links.url(entity): entity.key for entity in record if view.links.url(entity)}
    links = HTMLParser(f"<body>{page}</body>").css("a.mention")
    return [
        (html.unescape(a.text()), by_url[a.attributes["href"] or ""])
        for a in links
        if not a.text().startswith(WIKI)
    ]


def reported(
    graph: Graph, record: Record, view: SiteView, field: str, key: tuple[str, str] = PROBE
) -> list[tuple]:
    """Link's references from the probe's field by mention: one per name found (the
    entities a name stands for share its position), with the entity it links to."""
    at: dict[tuple, tuple[str, list]] = {}
    for ref in graph.outgoing(key):
        if ref.via == "mention" and ref.field == field:
            at.setdefault(tuple(ref.pos), (ref.text, []))[1].append(ref.target)
    out = []
    for _pos, (text, targets) in sorted(at.items()):
        chosen = mentions.choice(tuple(targets), key)
        assert chosen is not None
        entity = record.get(*chosen)
        if entity is not None and view.links.url(entity):
            out.append((text, chosen))
    return out


NAMES = ["cluster", "Clusters", "xAI", "Colossus 2", "One machine", "TVA", "AT&T", "Alibaba"]
WORDS = ["the", "a", "and", "2026", "’s", "(a)", "x", "Colossus", "2"]
AROUND = [
    "*{}*",
    "**{}**",
    "_{}_",
    "__{}__",
    "`{}`",
    "``a {} b``",
    "[{}](https://x.org/{})",
    "[a {}][ref]",
    "<https://x.org/{}>",
    "![{}](/a.png)",
    f"[[cluster|{WIKI} {{}}]]",
    "\\*{}",
    "{}\\_x",
    "\\[{}\\]",
    "&amp;{}",
    "&copy;{}&nbsp;",
    "{}&#42;",
    "https://x.org/{}",
    "www.{}.org",
    "“{}”",
    "{}s",
    "x{}",
    "<b>{}</b>",
    "*a*{}",
    "{}**a**",
    "***{}***",
    "{}\\",
]
MARKS = [
    f"[[cluster|{WIKI}]]",
    f"[[party:xai|{WIKI}]]",
    "[@sa-essay, p. 3]",
    "[“x”]{.scare}",
    "`c`",
]
LINES = ["\n", "\n\n", "\n- ", "\n1. ", "\n> ", "\n# ", "\n# # ", "\n    ", "  \n", "\\\n"]
LINES += ["\n---\n", "\r\n", "\t", "\n\t", "\n> > ", "\n  - ", " #\n"]
BLOCKS = [
    "\n```\n{}\n```\n",
    "\n~~~\n{}\n~~~\n",
    "\n\n| {} | b |\n|---|---|\n| a\\|{} | {} |\n\n",
    "\n\n[ref]: https://x.org/{}\n\n",
    "\n{}\n===\n",
]


PAPER_PARTS = [
    "[^1]",
    "^[a {} note]",
    "\n\n[^1]: A note on {}.\n\n",
    "\n\n[^n]: A {}\n    and more.\n\n",
    "\n\n![[chart:{}-size]]\n\n",
    "\n\n![[chart:x|table]]\n\n",
]


@st.composite
def prose(draw: st.DrawFn, paper: bool = False) -> str:
    """Prose with code, links, escapes, entities, emphasis, lists, quotes, tables and
    headings, and names in and around each, at the edges of its tokens; a paper's with
    footnotes and figures too."""
    parts = []
    for _ in range(draw(st.integers(1, 14))):
        name = draw(st.sampled_from(NAMES))
        kind = draw(st.integers(0, 6 if paper else 5))
        if kind == 6:
            parts.append(draw(st.sampled_from(PAPER_PARTS)).replace("{}", name.lower()))
            continue
        if kind == 0:
            parts.append(name)
        elif kind == 1:
            parts.append(draw(st.sampled_from(AROUND)).replace("{}", name))
        elif kind == 2:
            parts.append(draw(st.sampled_from(WORDS + MARKS)))
        elif kind == 3:
            parts.append(draw(st.sampled_from(LINES)))
        elif kind == 4:
            parts.append(draw(st.sampled_from(BLOCKS)).replace("{}", name))
        else:
            parts.append(draw(st.sampled_from(["", " ", ", "])))
        parts.append(draw(st.sampled_from(["", " ", " ", "\n"])))
    return "".join(parts)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=prose(), sells=prose())
def test_the_page_shows_the_mentions_link_reports(record: Record, body: str, sells: str):
    changed, probe = with_probe(record, body=body, sells=sells)
    graph = link_record(changed)
    view = SiteView(changed, graph, site_urls(changed.settings.site), [])
    for field, page in (
        ("body", view.prose.html(probe)),
        ("sells", view.prose.html(probe, "sells", inline=True)),
    ):
        names = reported(graph, changed, view, field)
        assert shown(view, changed, str(page)) == names, field
        for _text, target in names:  # the probe is among the backlinks of each
            entity = changed.get(*target)
            assert entity is not None
            assert probe in view.query.backlinks(entity).record


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=prose(paper=True))
def test_a_paper_shows_the_mentions_link_reports(record: Record, body: str):
    """A paper's footnotes stand at its end: its names are compared in any order."""
    changed, paper = with_probe(record, PAPER, body=body)
    graph = link_record(changed)
    view = SiteView(changed, graph, site_urls(changed.settings.site), [])
    page = paper_of(view, paper)  # type: ignore[arg-type]
    names = reported(graph, changed, view, "body", PAPER)
    assert sorted(shown(view, changed, str(page.html))) == sorted(names)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=prose(paper=True), paper=st.booleans())
def test_each_mention_is_placed_where_its_name_is_written(record: Record, body: str, paper: bool):
    key = PAPER if paper else PROBE
    changed, probe = with_probe(record, key, body=body)
    graph = link_record(changed)
    base = probe.body_pos
    starts = [0, *(i + 1 for i, ch in enumerate(body) if ch == "\n")]
    for ref in graph.outgoing(key):
        if ref.via != "mention":
            continue
        line = ref.pos.line - base.line
        at = starts[line] + ref.pos.col - (base.col if line == 0 else 1)
        written = body[at:]
        # The name as written: escapes and entities read as what they stand for.
        assert markdown._follow(written, 0, ref.text, len(ref.text)) is not None, (ref, written)


def test_rendering_a_linked_record_looks_for_no_name(
    record: Record, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every prose field as the site shows it takes its names from link: none is looked
    for again (the prose of the small record holds Markdown, plain text and names). A
    paper's body shows as a paper, not a block."""
    changed, probe = with_probe(
        record, body="**A cluster** of `x` and\n\n- xAI\n- TVA", sells="An *xAI* cluster."
    )
    graph = link_record(changed)
    view = SiteView(changed, graph, site_urls(changed.settings.site), [])

    def refused(*args: object) -> None:
        raise AssertionError("a name looked for while rendering")

    monkeypatch.setattr(NameMatcher, "find", refused)
    for entity in changed:
        for field in entity.PROSE_FIELDS:
            if field != "title" and getattr(entity, field, "") and entity.KIND != "paper":
                view.prose.html(entity, field, inline=field != "body")
    paper = changed.get(*PAPER)
    assert paper is not None
    paper_of(view, paper)  # type: ignore[arg-type]
    assert "mention" in str(view.prose.html(probe)) and "mention" in str(
        view.prose.html(probe, "sells", True)
    )


@pytest.mark.parametrize(
    ("text", "names"),
    [
        # Link found these where the page showed none:
        ("[a cluster](https://example.com) and [xAI][r]\n\n[r]: https://x.ai", []),
        ("Some code:\n\n    a cluster\n\nand more", []),
        ("~~~\na cluster\n~~~", []),
        ("![a cluster](/a.png)", []),
        ("[cluster]: https://example.com/a", []),
        ("Colossus\n2 and One\nmachine", []),
        # The page showed these where link found none:
        ("``a `cluster` b``", []),
        ("AT&amp;T and AT\\&T", ["AT&T", "AT&T"]),
        ("https://a.org/x`c`cluster", ["cluster"]),
        ("__cluster__ and _xAI_", ["cluster", "xAI"]),
    ],
)
def test_link_and_the_page_agree_where_they_read_apart(
    record: Record, text: str, names: list[str]
) -> None:
    """Each text here was read one way by link and another by the page before link
    found the names for both; now each name is on the page and among the references."""
    changed, probe = with_probe(record, body=text)
    graph = link_record(changed)
    view = SiteView(changed, graph, site_urls(changed.settings.site), [])
    assert [name for name, _ in shown(view, changed, str(view.prose.html(probe)))] == names
    assert [name for name, _ in reported(graph, changed, view, "body")] == names


def test_a_paper_reads_with_its_footnotes_and_without_its_figures() -> None:
    matcher = NameMatcher([("Cluster", ("term", "cluster")), ("chips", ("term", "chips"))])
    body = (
        "A cluster.[^1] Another^[an inline cluster] one.\n\n"
        "![[chart:chips]]\n\n![[chart:chips|table]]\n\n[^1]: A note on clusters.\n"
    )
    read, named = mentions.read(body, mentions.PAPER, matcher, ("paper", "p"))
    assert read.reading == mentions.PAPER
    assert [(said, body[at : at + len(said)]) for at, said, _targets in named] == [
        ("cluster", "cluster"),
        ("cluster", "cluster"),
        ("clusters", "clusters"),
    ]
    assert len(read.keys) == 3  # none in a figure's line


def test_plain_text_reads_line_by_line_between_its_marks() -> None:
    matcher = NameMatcher([("Colossus 2", ("campus", "colossus-2")), ("xAI", ("party", "xai"))])
    text = "Colossus\n2 and [[xai]] xAI `xAI` https://x.ai/xAI and xAI"
    read, named = mentions.read(text, mentions.BLOCK, matcher, None)
    assert read.reading == mentions.PLAIN
    last = text.rindex("xAI")
    assert [(at, said) for at, said, _targets in named] == [(23, "xAI"), (last, "xAI")]
    assert list(read.spans) == [23, 26, last, last + 3]
    assert mentions.read(text, mentions.INLINE, matcher, None)[0] == read


def test_linked_graph_keeps_little_for_plain_prose(record: Record) -> None:
    graph = link_record(record)
    plain = [field for field, read in graph.reads.items() if read.reading == mentions.PLAIN]
    assert all(graph.reads[field].keys for field in plain)  # none kept without a name
    assert graph.read_of(PROBE, "body") is mentions.NOTHING  # "A body." names nothing
    assert graph.read_of(PROBE, "role") is None  # not a prose field
    assert Graph().read_of(PROBE, "body") is None  # not linked
    assert graph.wiki[("party", "xai")] == ("party", "xai")


def test_link_reads_the_bundled_record_as_its_site_shows_it() -> None:
    record = read_record(BUNDLED, Diagnostics())
    assert record is not None
    graph = link_record(record)
    assert {read.reading for read in graph.reads.values()} >= {"plain", "block", "paper"}
