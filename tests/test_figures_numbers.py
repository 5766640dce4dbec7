"""A figure's number is found in its quote in any of the forms sources write it in."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sourcebook.model.numbers import carries, written_numbers


@pytest.mark.parametrize(
    ("quote", "value", "unit"),
    [
        ("the compute equivalent of 1.4M H100 GPUs", 1_400_000, "H100e"),
        ("doubling it to an insane 200,000 NVIDIA Hopper AI GPUs", 200_000, "chips"),
        ("will each have five million H100e", 5_000_000, "H100e"),
        ("Meta plans to bring two gigawatts of data center capacity online", 2, "GW"),
        ("Meta plans to bring two gigawatts of data center capacity online", 2000, "MW"),
        ("has already reached 200 megawatts of power capacity", 200, "MW"),
        ("The first 200-megawatt AI cluster is expected", 200, "MW"),
        ("Stargate UAE, a 1-gigawatt compute cluster", 1, "GW"),
        ("will eventually scale to 5GW", 5, "GW"),
        ("xAI is preparing a $20 billion investment", 20, "billion USD"),
        ("xAI is preparing a $20 billion investment", 20e9, "USD"),
        ("install more than $375 million worth of Tesla Megapacks", 375, "million USD"),
        ("its October 2025 trough of $1.70/hr", 1.7, "USD/GPU-hour"),
        ("has climbed 38% from its October 2025 trough", 38, "percent"),
        ("Set on the 2,250 acres former Franklin Farm megasite", 2250, "acres"),
        ("totaling more than 4 million square feet", 4_000_000, "sqft"),
        ("a 1 million-square-foot warehouse", 1_000_000, "sqft"),
        ("built by xAI and NVIDIA in just 122 days", 122, "days"),
        ("Renderings suggest up to nine buildings were planned.", 9, "buildings"),
        ("let’s work with 1kW per H100-equivalent here", 1, "kW/H100e"),
        ("$100B per GW per year", 100, "billion USD/GW/year"),
        ("to deliver up to 1.2 gigawatts", 1200, "MW"),
    ],
)
def test_a_quote_carries_its_number(quote, value, unit):
    assert carries(quote, value, unit)


@pytest.mark.parametrize(
    ("quote", "value", "unit"),
    [
        ("xAI Colossus 2 (February 2026) — Memphis, Tennessee.", 1, "GW"),
        ("That is the price of a one-year reserved H100 contract as of March 2026", 2.35, "USD"),
        ("The H100 is a chip", 100, "chips"),
        ("in Q2 2026", 2, "GW"),
        ("reached 300 MW of capacity", 150, "MW"),
        ("two gigawatts by 2030", 2, "acres"),
    ],
)
def test_a_quote_without_the_number_does_not(quote, value, unit):
    assert not carries(quote, value, unit)


def test_numbers_are_read_with_their_scale_and_unit():
    found = [(n.value, n.unit) for n in written_numbers("75GW and 200MW, $12B, twenty-five")]
    assert found == [(75, "GW"), (200, "MW"), (12e9, "USD"), (25, None)]


UNITS = {"MW": 1e6, "GW": 1e9, "kW": 1e3}
SCALES = [("", 1), (" thousand", 1e3), (" million", 1e6), (" billion", 1e9), ("M", 1e6)]


@given(
    st.integers(min_value=1, max_value=999_999),
    st.sampled_from(SCALES),
    st.booleans(),
)
def test_any_number_written_with_or_without_commas_and_a_scale_is_found(whole, scale, commas):
    word, factor = scale
    digits = f"{whole:,}" if commas else str(whole)
    quote = f"the site holds {digits}{word} chips today"
    assert carries(quote, whole * factor, "chips")


@given(
    st.decimals(min_value="0.1", max_value="9999", places=1),
    st.sampled_from(sorted(UNITS)),
    st.sampled_from(sorted(UNITS)),
)
def test_power_written_in_one_unit_is_carried_for_a_figure_in_another(amount, written, given_in):
    quote = f"it will draw {amount} {written} by then"
    value = float(amount) * UNITS[written] / UNITS[given_in]
    assert carries(quote, value, given_in)
