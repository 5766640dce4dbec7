"""The rules one at a time agree with the fast normalization that check uses."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sourcebook.library.normalize import normalize
from sourcebook.library.rules import normalizer

MARKS = "abc \n\t-–—‐\u00ad\u200b“”'\"‘’ﬁ\u00a0…,.-\u2028xy"


@given(st.text(alphabet=MARKS, max_size=40))
def test_all_six_rules_one_at_a_time_are_the_normalization(text: str) -> None:
    assert normalizer()(text) == normalize(text)


def test_leaving_a_rule_out_keeps_what_it_would_change() -> None:
    assert normalizer(4)("“a”") == "“a”"
    assert normalizer(6)("a\nb") == "a\nb"
    assert normalizer(1)("ﬁne") == "ﬁne"
