"""Properties of proof: a quote cut from an item verifies, in any typographic dress;
the same quote with one word or one digit changed does not."""

from __future__ import annotations

import re

from conftest import BUNDLED
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sourcebook.library.match import locate
from sourcebook.library.normalize import compile_quote, normalize

ITEMS = [p.read_text(encoding="utf-8") for p in sorted((BUNDLED / "library").glob("S*.txt"))]
WORDS = [w for text in ITEMS for w in re.findall(r"[A-Za-z]{3,}", text)]

# Ways to write the same words that the normalization must see through.
DRESS = [
    (" ", "\n"),
    (" ", "\u00a0"),
    (" ", "  "),
    ("'", "\u2019"),
    ('"', "\u201c"),
    ("-", "\u2013"),
    ("-", "\u2014"),
    ("fi", "\ufb01"),
    ("...", "\u2026"),
]


def verifies(quote: str, text: str) -> bool:
    return locate(compile_quote(quote), normalize(text)) is not None


def stands_in(quote: str, text: str) -> bool:
    """Whether the quote, less the punctuation at its edges (which proof ignores), is
    already in the text: a change that makes it so is no tampering."""
    return normalize(quote).strip(" .,;:") in normalize(text)


@st.composite
def cut(draw: st.DrawFn) -> tuple[str, list[str], int, int]:
    """An item's text and a run of its words, as (text, words, start, end)."""
    text = draw(st.sampled_from(ITEMS))
    words = text.split()
    length = draw(st.integers(min_value=3, max_value=min(30, len(words))))
    start = draw(st.integers(min_value=0, max_value=len(words) - length))
    return text, words, start, start + length


@settings(max_examples=300, deadline=None)
@given(cut(), st.lists(st.sampled_from(DRESS), max_size=4), st.randoms(use_true_random=False))
def test_a_quote_cut_from_an_item_verifies(piece, dress, random) -> None:
    text, words, start, end = piece
    quote = " ".join(words[start:end])
    for plain, fancy in dress:
        places = [m.start() for m in re.finditer(re.escape(plain), quote)]
        if places:
            at = random.choice(places)
            quote = quote[:at] + fancy + quote[at + len(plain) :]
    assert verifies(quote, text), quote


@settings(max_examples=300, deadline=None)
@given(cut(), st.sampled_from(WORDS), st.integers(min_value=0))
def test_one_changed_word_does_not_verify(piece, replacement, which) -> None:
    text, words, start, end = piece
    quoted = words[start:end]
    plain = [i for i, w in enumerate(quoted) if re.fullmatch(r"[A-Za-z]{3,}", w)]
    assume(plain)
    index = plain[which % len(plain)]
    assume(replacement != quoted[index])
    tampered = " ".join([*quoted[:index], replacement, *quoted[index + 1 :]])
    assume(not stands_in(tampered, text))
    assert not verifies(tampered, text), tampered


@settings(max_examples=300, deadline=None)
@given(cut(), st.integers(min_value=0), st.integers(min_value=1, max_value=9))
def test_one_changed_digit_does_not_verify(piece, which, shift) -> None:
    text, words, start, end = piece
    quote = " ".join(words[start:end])
    digits = [m.start() for m in re.finditer(r"\d", quote)]
    assume(digits)
    at = digits[which % len(digits)]
    changed = str((int(quote[at]) + shift) % 10)
    tampered = quote[:at] + changed + quote[at + 1 :]
    assume(not stands_in(tampered, text))
    assert not verifies(tampered, text), tampered


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("ab c-\u2013\u2019'\u00ad\n\u00a0\ufb01.\u2026"), max_size=60)
)
def test_normalization_is_idempotent(text: str) -> None:
    once = normalize(text)
    assert normalize(once) == once


@settings(max_examples=200, deadline=None)
@given(cut())
def test_any_quote_of_a_normalized_text_verifies_against_the_original(piece) -> None:
    text, words, start, end = piece
    normalized = normalize(text)
    quote = normalize(" ".join(words[start:end]))
    assert quote in normalized
    assert verifies(quote, text)
