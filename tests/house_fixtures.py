"""A house of two volumes: the bundled record, and a small second volume written here that
shares two sources with it (one by its address, one by `same_as`), one of them corrected."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

BUNDLED = Path(__file__).resolve().parent.parent / "examples" / "compute-race"

HOUSE = """\
[house]
name = "DRYBURGH"
series = "The Compute Economy"
publisher = "Dryburgh, an imprint of Contestra OÜ, Tallinn, Estonia"
base_url = "https://dryburgh.com"

[[volume]]
path = "compute-race"

[[volume]]
path = "power-race"
"""

VOLUME_2 = {
    "sourcebook.toml": """\
        [book]
        title = "The Power Race"
        subtitle = "Watts Before Chips"
        author = "Lee S. Dryburgh"
        house = "DRYBURGH"
        series = "The Compute Economy"
        volume = 2
        closes = 2027-06-01

        [site]
        base_url = "https://dryburgh.com"
        base_path = "/vol2"
        """,
    "chapters/chapter-1.md": """\
        ---
        title: The Grid
        number: 1
        summary: Why power, not chips, sets the pace.
        ---
        Abilene was ordered whole [@abilene-order] and owned in part by its builder
        [@abilene-owners].
        """,
    # The same article as volume 1's tomshardware-oracle-gb200-abilene, found by its address
    # (written without www. and with a trailing slash): volume 1 corrected it.
    "sources/abilene-order.md": """\
        ---
        title: Oracle orders NVIDIA chips for Abilene
        category: press
        date: 2025-05-24
        urls:
          - https://tomshardware.com/pc-components/gpus/oracle-has-reportedly-placed-an-order-for-usd40-billion-in-nvidia-ai-gpus-for-a-new-openai-data-center/
        ---
        """,
    # The same as volume 1's techrepublic-stargate-abilene, by name: no one corrected it.
    "sources/abilene-owners.md": """\
        ---
        title: Stargate's first site in Texas
        category: press
        same_as: [vol1/techrepublic-stargate-abilene]
        ---
        """,
    "sources/grid-report.md": """\
        ---
        title: A grid report of volume 2's own
        category: research
        date: 2026-01
        ---
        """,
    "corrections/grid-report-year.md": """\
        ---
        title: The grid report’s year
        scope: source
        date: 2027-01-10
        source: grid-report
        wrong: The report dates its own survey to 2024.
        right: The survey ran in 2025, as its tables show.
        ---
        """,
}


def write_house(folder: Path, house: str = HOUSE, volume_2: dict[str, str] | None = None) -> Path:
    """The house in `folder`: the bundled record copied in, and volume 2 written."""
    folder.mkdir(parents=True, exist_ok=True)
    ignored = shutil.ignore_patterns("_site", ".*")
    shutil.copytree(BUNDLED, folder / "compute-race", ignore=ignored, dirs_exist_ok=True)
    for name, text in (volume_2 if volume_2 is not None else VOLUME_2).items():
        path = folder / "power-race" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    (folder / "house.toml").write_text(house, encoding="utf-8")
    return folder
