"""Mentions: every name and alias found in prose, whole words, any case, plural too."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sourcebook.link import mentions, names, prose
from sourcebook.link.names import NameMatcher, plural_forms

NAMES = [
    ("Cluster", ("term", "cluster")),
    ("Colossus", ("campus", "colossus-1")),
    ("Colossus 2", ("campus", "colossus-2")),
    ("TVA", ("term", "tva")),
    ("TVA", ("party", "tva")),
    ("Capital expenditure", ("term", "capital-expenditure")),
    ("capex", ("term", "capital-expenditure")),
]


def found(text: str) -> list[tuple[str, tuple]]:
    """The names link finds in a body: as the page reads it (see `link.mentions`)."""
    _read, named = mentions.read(text, mentions.BLOCK, NameMatcher(NAMES), None)
    return [(said, targets) for _start, said, targets in named]


def test_any_case_and_plural():
    assert found("Two CLUSTERS and a cluster.") == [
        ("CLUSTERS", (("term", "cluster"),)),
        ("cluster", (("term", "cluster"),)),
    ]


def test_whole_words_only():
    assert found("clustering, subcluster, cluster_id") == []


def test_longest_match_first():
    assert found("Colossus 2 and Colossus") == [
        ("Colossus 2", (("campus", "colossus-2"),)),
        ("Colossus", (("campus", "colossus-1"),)),
    ]


def test_one_name_for_two_entities_gives_both():
    assert found("the TVA") == [("TVA", (("party", "tva"), ("term", "tva")))]


def test_never_inside_a_url_or_code():
    text = "see https://example.com/cluster and `cluster` and [x](https://a.io/cluster)"
    assert found(text) == []


def test_never_inside_fenced_code():
    assert found("```\na cluster\n```\nA cluster.") == [("cluster", (("term", "cluster"),))]


def test_not_inside_wiki_links_or_citations():
    assert found("[[cluster]] [[x|a cluster]] [@cluster-source]") == []


def test_aliases_and_multiword_names():
    assert found("Capital expenditures, or capex.") == [
        ("Capital expenditures", (("term", "capital-expenditure"),)),
        ("capex", (("term", "capital-expenditure"),)),
    ]


def test_plural_forms():
    assert plural_forms("Hyperscaler") == ["Hyperscaler", "Hyperscalers"]
    assert plural_forms("Business") == ["Business", "Businesses"]
    assert plural_forms("Capacity") == ["Capacity", "Capacities"]
    assert plural_forms("Survey") == ["Survey", "Surveys"]
    assert plural_forms("122 days") == ["122 days"]
    assert plural_forms("TVA.") == ["TVA."]


def test_offsets_survive_characters_that_lengthen_in_lower_case():
    matcher = NameMatcher([("Cluster", ("term", "cluster"))])
    text = "İstanbul cluster"
    (mention,) = matcher.find(text)
    assert text[mention.start : mention.end] == "cluster"


def test_wiki_links_and_citations_are_parsed():
    (link,) = prose.wiki_links("see [[party:tva|the authority]]")
    assert (link.kind, link.target, link.shown) == ("party", "tva", "the authority")
    cites = prose.citations("as shown [@sa-essay, p. 81; @other]")
    assert [(c.source, c.locator) for c in cites] == [("sa-essay", "p. 81"), ("other", None)]


def test_quotes_and_marked_spans():
    text = "It said “a big cluster” [@src, p. 3] in [“A Title”]{.title} and “loose”."
    quotes = prose.quotes(text)
    assert [(q.text, q.cited, q.locator) for q in quotes] == [
        ("a big cluster", "src", "p. 3"),
        ("loose", None, None),
    ]
    assert [s.mark for s in prose.marked_spans(text)] == ["title"]


@given(st.text(alphabet=st.sampled_from("Aa z_-.9'\n“”‘’–—…éÉİß\u2028")))
def test_words_of_any_text_are_those_of_the_full_fold(text: str) -> None:
    # The quick ways for ASCII text, and for text that is not ASCII only for its quotation
    # marks and dashes, give what folding and spacing out every character gives.
    assert names._words(text) == f" {names._fold(text).translate(names._SPACED_OUT)} "
    assert len(names._words(text)) == len(text) + 2


def test_curly_quotes_end_a_name():
    assert found("The “Cluster” of “Colossus 2”.") == [
        ("Cluster", (("term", "cluster"),)),
        ("Colossus 2", (("campus", "colossus-2"),)),
    ]
