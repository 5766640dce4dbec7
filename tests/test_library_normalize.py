"""Each normalization rule, with the typographic variants real sources and records use."""

from __future__ import annotations

import pytest

from sourcebook.library.match import locate
from sourcebook.library.normalize import INSERTION_SPAN, compile_quote, normalize


def found(quote: str, text: str) -> bool:
    return locate(compile_quote(quote), normalize(text)) is not None


@pytest.mark.parametrize(
    ("variant", "plain"),
    [
        ("\ufb01nancing", "financing"),  # ﬁ ligature, as PDFs set it
        ("\ufb02ow of \ufb00ort", "flow of ffort"),
        ("100\u00a0MW", "100 MW"),  # no-break space
        ("100\u202fMW", "100 MW"),  # narrow no-break space
        ("\uff11\uff10\uff10 GW", "100 GW"),  # full-width digits
        ("E = mc\u00b2", "E = mc2"),
    ],
)
def test_nfkc(variant: str, plain: str) -> None:
    assert normalize(variant) == normalize(plain)


@pytest.mark.parametrize(
    "variant",
    [
        "don\u2019t",  # right single quotation mark, the typographer's apostrophe
        "don't",
        "don\u2018t",
        "don\u2032t",  # prime, as OCR reads an apostrophe
        "don`t",
    ],
)
def test_apostrophes_are_one_mark(variant: str) -> None:
    assert normalize(variant) == "don't"


@pytest.mark.parametrize(
    "variant",
    ["\u201cschlep\u201d", '"schlep"', "\u2018schlep\u2019", "\u201eschlep\u201c", "«schlep»"],
)
def test_quotation_marks_are_one_mark(variant: str) -> None:
    assert normalize(variant) == "'schlep'"


def test_nested_quote_in_record_matches_double_quotes_in_source() -> None:
    source = 'models take a lot of "schlep" to properly integrate'
    assert found("take a lot of \u2018schlep\u2019 to properly integrate", source)


@pytest.mark.parametrize(
    "variant",
    [
        "ever\u2014among",  # em dash, closed up
        "ever \u2014 among",  # em dash, spaced
        "ever \u2013 among",  # en dash, spaced, as British houses set it
        "ever -- among",  # two hyphens, as typed
        "ever - among",
        "ever\u2015among",  # horizontal bar
    ],
)
def test_dashes_are_one_mark_without_spaces(variant: str) -> None:
    assert normalize(variant) == "ever-among"


@pytest.mark.parametrize("variant", ["2\u20133", "2\u22123", "2\u20103", "2\u20113", "2-3"])
def test_hyphens_minus_and_ranges(variant: str) -> None:
    assert normalize(variant) == "2-3"


def test_white_space_and_line_breaks() -> None:
    assert normalize("  one\ttwo\n\nthree\r\n four\u2003five ") == "one two three four five"


def test_soft_hyphens_and_zero_width_characters_are_dropped() -> None:
    assert normalize("behind\u00adthe\u200bmeter\ufeff") == "behindthemeter"
    assert normalize("infra\u00adstructure") == "infrastructure"


def test_soft_hyphen_at_a_line_break_joins_the_word() -> None:
    assert normalize("infra\u00ad\nstructure") == "infrastructure"


def test_word_hyphenated_across_a_pdf_line_is_joined() -> None:
    assert normalize("properly integ-\nrate into company") == "properly integrate into company"
    assert normalize("integ-  \n   rate") == "integrate"


def test_a_line_ending_in_a_dash_between_numbers_is_not_joined() -> None:
    assert normalize("in 2025-\n2026") == "in 2025-2026"


def test_compound_broken_at_its_own_hyphen_still_matches_the_compound() -> None:
    text = "power for the behind-the-\nmeter plants"
    assert found("the behind-the-meter plants", text)


def test_ellipsis_stands_for_omitted_words() -> None:
    text = "The supporting facility and state-of-the-art supercomputer was built by xAI"
    for ellipsis in ("\u2026", "...", "[...]", "[\u2026]", ". . ."):
        assert found(f"The supporting facility {ellipsis} was built by xAI", text), ellipsis


def test_ellipsis_keeps_order() -> None:
    assert not found(
        "built by xAI \u2026 The supporting facility", "The supporting facility was built by xAI"
    )


def test_bracketed_insertion_stands_for_a_short_span() -> None:
    text = "Elon Musk's xAI startup is currently in the process of upgrading its Colossus"
    assert found("[xAI] is currently in the process of upgrading [the] Colossus", text)
    assert found("[T]he process of upgrading", "the process of upgrading")


def test_bracketed_insertion_is_short() -> None:
    filler = "word " * (INSERTION_SPAN // 5 + 5)
    assert not found("start [here] end", f"start {filler}end")
    assert found("start [here] end", "start of the end")


def test_insertion_that_adds_nothing() -> None:
    assert found(
        "the hardware [sic] forms a substantial chunk", "the hardware forms a substantial chunk"
    )


def test_edge_punctuation_of_the_quote_does_not_count() -> None:
    assert found("Ethernet means it can scale.", "this is Ethernet. Ethernet means it can scale")
    assert found("dramatic,", "would be dramatic—among the very largest")


def test_whole_words_only() -> None:
    assert not found("ower cables", "huge power cables")
    assert not found("power cable", "huge power cables")
    assert found("power cables", "huge power cables.")


def test_case_counts() -> None:
    assert not found("Huge power cables", "huge power cables")


def test_markdown_emphasis_in_the_record_is_ignored() -> None:
    assert found("the *Grok* model", "the Grok model")


def test_quote_pattern_parts_and_gaps() -> None:
    pattern = compile_quote("one \u2026 two [three] four")
    assert pattern.parts == ("one", "two", "four")
    assert pattern.gaps == (None, INSERTION_SPAN)
    assert pattern.words == "one \u2026 two \u2026 four"
    assert pattern.literal == "four"
