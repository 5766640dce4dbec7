"""Authors' names split into given and family names, as bibliographies file them."""

from __future__ import annotations

import pytest

from sourcebook.model.kinds import Person
from sourcebook.model.person_names import folded, name_parts, split_name


@pytest.mark.parametrize(
    ("name", "given", "family"),
    [
        ("Ursula K. Le Guin", "Ursula K.", "Le Guin"),
        ("Martin Luther King Jr.", "Martin Luther", "King"),
        ("Ludwig van Beethoven", "Ludwig", "van Beethoven"),
        ("Juan de la Cruz", "Juan", "de la Cruz"),
        ("Dr. Jane Smith", "Jane", "Smith"),
        ("Lee S. Dryburgh", "Lee S.", "Dryburgh"),
        ("Plato", "", "Plato"),
        ("  Jensen   Huang ", "Jensen", "Huang"),
    ],
)
def test_names_are_split_by_nameparser(name: str, given: str, family: str) -> None:
    assert split_name(name) == (given, family)


def test_a_persons_own_fields_win() -> None:
    person = Person(id="jl", title="Jean-Luc Picard de Vries", given="Jean-Luc", family="Picard")
    assert name_parts(person) == ("Jean-Luc", "Picard")
    assert name_parts(Person(id="ul", title="Ursula K. Le Guin")) == ("Ursula K.", "Le Guin")


def test_names_compare_without_case_or_accents() -> None:
    assert folded("Zoë  BLÁHA") == folded("zoe blaha")
    assert folded("U.K. Le Guin") == folded("U. K. Le Guin")


def test_the_release_cites_its_author_by_family_name() -> None:
    from sourcebook.model.settings import Book
    from sourcebook.publish.release.citation import cff_author

    book = Book(title="T", house="H", closes="2026-01-01", author="Martin Luther King Jr.")
    assert cff_author(book) == {"given-names": "Martin Luther", "family-names": "King"}
