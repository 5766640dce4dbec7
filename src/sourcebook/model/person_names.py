"""A person's name split into given names and family name, as bibliographies file it.

nameparser knows the particles, suffixes and titles that a last-word split gets wrong:
"Ursula K. Le Guin" is filed under Le Guin, "Martin Luther King Jr." under King. Where
a person's file gives `given` and `family`, those win.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from sourcebook.runtime.memo import memoized


@memoized(maxsize=65536)
def split_name(name: str) -> tuple[str, str]:
    """(given names, family name); a single word is a family name with no given names.

    Kept once split: nameparser takes a tenth of a millisecond a name, and a site files
    each author's name several times (bibliography, people, short citations)."""
    from nameparser import HumanName

    name = " ".join(name.split())
    if " " not in name:
        return "", name
    parsed = HumanName(name)
    family = parsed.last or name
    given = " ".join(part for part in (parsed.first, parsed.middle) if part)
    return given, family


def name_parts(person: Any) -> tuple[str, str]:
    """(given, family) of a person entity: its own fields where given, else its title split."""
    given, family = split_name(person.title)
    return (
        getattr(person, "given", None) or given,
        getattr(person, "family", None) or family,
    )


def suffix_of(name: str) -> str:
    """The suffix a name carries ("Jr.", "III"), for formats that keep it apart."""
    from nameparser import HumanName

    return str(HumanName(" ".join(name.split())).suffix)


def folded(name: str) -> str:
    """A name as compared: case, accents and spacing do not count ("Zoë" is "zoe")."""
    decomposed = unicodedata.normalize("NFKD", name)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(bare.casefold().replace(".", ". ").split())
