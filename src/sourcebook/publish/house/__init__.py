"""The house's site: every volume under its base path, and the house's own pages."""

from sourcebook.publish.house.build import build_house

__all__ = ["build_house"]
