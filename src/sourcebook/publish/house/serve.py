"""A house served as a record is: rebuilt whole when a file of any volume changes."""

from __future__ import annotations

from pathlib import Path

from sourcebook.diagnostics import Diagnostic
from sourcebook.publish.house.build import build_house
from sourcebook.publish.site.serve import LiveSite


class LiveHouse(LiveSite):
    """The latest build of a house, or why there is none. Every volume is inside the
    house's folder, so watching that folder (`watch`) sees a change to any of them."""

    def __init__(
        self, house: Path, out: Path | None = None, notify_urls: dict[str, str] | None = None
    ):
        folder = house if house.is_dir() else house.parent
        super().__init__(folder, out)
        self.house = house
        self.notify_urls = notify_urls or {}
        """Each volume's sign-up form posts to its own local service, by volume name."""

    def check_and_build(self) -> tuple[list[Diagnostic], list[Diagnostic], None]:
        from sourcebook.pipeline import check_house

        checked = check_house(self.house)
        self.base_path = ""  # the house's front page is the site's
        errors, warnings = checked.diagnostics.errors, checked.diagnostics.warnings
        if checked.ok:
            build_house(checked, self.site, jobs=1, notify_urls=self.notify_urls, drafts=True)
        return errors, warnings, None  # the index is made with each volume's build
