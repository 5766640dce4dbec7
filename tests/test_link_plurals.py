"""Names are found in the plural as English forms it, by inflect."""

from __future__ import annotations

import time

import pytest

from sourcebook.link.names import NameMatcher, plural_forms


@pytest.mark.parametrize(
    ("name", "forms"),
    [
        ("campus", ["campus", "campuses"]),
        ("analysis", ["analysis", "analyses"]),
        ("child", ["child", "children"]),
        ("Cluster", ["Cluster", "Clusters"]),
        ("power purchase agreement", ["power purchase agreement", "power purchase agreements"]),
        ("Valley Authority", ["Valley Authority", "Valley Authorities"]),
        ("TVA", ["TVA", "TVAs"]),
        ("SemiAnalysis", ["SemiAnalysis", "SemiAnalyses"]),
        ("122 days", ["122 days"]),
        ("Amazon Web Services", ["Amazon Web Services"]),
        ("series", ["series"]),
        ("Colossus 2", ["Colossus 2"]),
    ],
)
def test_plural_forms(name: str, forms: list[str]) -> None:
    assert plural_forms(name) == forms


def test_the_matcher_finds_irregular_plurals() -> None:
    matcher = NameMatcher([("campus", ("term", "campus")), ("analysis", ("term", "analysis"))])
    found = matcher.find("Two campuses and three analyses; one campus.")
    assert [m.name for m in found] == ["campus", "analysis", "campus"]


def test_plurals_are_cheap_once_loaded() -> None:
    plural_forms("warm-up")
    names = [f"name{i} agreement" for i in range(2000)]
    started = time.perf_counter()
    for name in names:
        plural_forms(name)
    assert time.perf_counter() - started < 2.0
