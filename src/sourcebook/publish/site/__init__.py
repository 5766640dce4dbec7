"""The companion website: every page of a checked record, rendered as the exemplar page."""

from sourcebook.publish.site.build import BuildError, SiteBuild, write_site

__all__ = ["BuildError", "SiteBuild", "write_site"]
