"""The house's site: every volume under its base path, and the house's own pages."""

from sourcebook.publish.house.build import HOUSE_HAS_ERRORS, write_house

__all__ = ["HOUSE_HAS_ERRORS", "write_house"]
