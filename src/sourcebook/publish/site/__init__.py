"""The companion website: every page of a checked record, rendered as the exemplar page."""

from sourcebook.publish.site.build import BuildError, SiteBuild, build_site

__all__ = ["BuildError", "SiteBuild", "build_site"]
