"""Exports in the exact shape Zotero and Better BibTeX write them, for the import tests."""

from __future__ import annotations

import copy
import json
from typing import Any

CSL_ITEMS: list[dict[str, Any]] = [
    {
        "id": "http://zotero.org/users/1234567/items/ABCD2345",
        "type": "article-newspaper",
        "citation-key": "kinder2025fairwater",
        "title": "Microsoft opens new AI campus in Atlanta",
        "container-title": "Financial Times",
        "URL": "https://www.ft.com/content/3a1b",
        "author": [
            {"family": "Kinder", "given": "Tabby"},
            {"family": "Le Guin", "given": "Ursula K."},
        ],
        "issued": {"date-parts": [["2025", 11, 12]]},
        "accessed": {"date-parts": [[2025, 11, 13]]},
        "language": "en-GB",
    },
    {
        "id": "http://zotero.org/users/1234567/items/EFGH6789",
        "type": "paper-conference",
        "citation-key": "sevilla2022",
        "title": "Compute Trends Across Three Eras of Machine Learning",
        "container-title": "2022 International Joint Conference on Neural Networks (IJCNN)",
        "publisher": "IEEE",
        "page": "1-8",
        "DOI": "10.1109/IJCNN55064.2022.9891914",
        "URL": "https://arxiv.org/abs/2202.05924",
        "author": [
            {"family": "Sevilla", "given": "Jaime"},
            {"family": "Heim", "given": "Lennart"},
            {"family": "Müller", "given": "Zoë"},
        ],
        "issued": {"date-parts": [[2022, 7]]},
        "abstract": "Compute, data, and algorithmic advances are the three fundamental factors.",
    },
    {
        "id": "http://zotero.org/users/1234567/items/IJKL0123",
        "type": "report",
        "citation-key": "EpochAI:2025",
        "title": "Frontier Data Centers Hub",
        "author": [{"literal": "Epoch AI"}],
        "URL": "https://epoch.ai/data/data-centers",
        "issued": {"date-parts": [[2025]]},
    },
    {
        "id": "http://zotero.org/users/1234567/items/MNOP4567",
        "type": "webpage",
        "citation-key": "king1963",
        "title": "Letter from Birmingham Jail",
        "container-title": "The Atlantic",
        "author": [{"family": "King", "given": "Martin Luther", "suffix": "Jr."}],
        "issued": {"date-parts": [[1963, 4, 16]]},
        "URL": "https://example.org/letter",
    },
]


def csl_json(items: list[dict[str, Any]] | None = None) -> str:
    """As Zotero's "Export Library… → CSL JSON" writes it: an indented array."""
    return json.dumps(CSL_ITEMS if items is None else items, indent="\t", ensure_ascii=False)


def csl_items() -> list[dict[str, Any]]:
    return copy.deepcopy(CSL_ITEMS)


BETTER_BIBTEX = r"""
@article{kinder2025fairwater,
  title = {Microsoft Opens New {{AI}} Campus in {{Atlanta}}},
  author = {Kinder, Tabby and Le Guin, Ursula K.},
  date = {2025-11-12},
  journaltitle = {Financial Times},
  entrysubtype = {newspaper},
  url = {https://www.ft.com/content/3a1b},
  urldate = {2025-11-13},
  langid = {british}
}

@inproceedings{sevilla2022,
  title = {Compute {{Trends Across Three Eras}} of {{Machine Learning}}},
  booktitle = {2022 {{International Joint Conference}} on {{Neural Networks}} ({{IJCNN}})},
  author = {Sevilla, Jaime and Heim, Lennart and M{\"u}ller, Zo{\"e}},
  date = {2022-07},
  pages = {1--8},
  publisher = {IEEE},
  doi = {10.1109/IJCNN55064.2022.9891914},
  url = {https://arxiv.org/abs/2202.05924},
  keywords = {compute,machine learning}
}

@online{EpochAI:2025,
  title = {Frontier {{Data Centers Hub}}},
  author = {{Epoch AI}},
  date = {2025},
  url = {https://epoch.ai/data/data-centers}
}

@book{leguin1969,
  title = {The {{Left Hand}} of {{Darkness}}: {\'E}tudes \& {{Notes}}},
  author = {Le Guin, Ursula K.},
  year = {1969},
  month = mar,
  publisher = {{Ace Books}},
  location = {{New York}}
}

@misc{king1963,
  title = {Letter from {{Birmingham Jail}}},
  author = {King, Jr., Martin Luther},
  year = {1963},
  url = {https://example.org/letter}
}
"""
