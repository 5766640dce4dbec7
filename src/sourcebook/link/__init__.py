"""Stage 2, link: explicit references, wiki links, citations and found mentions, as one graph."""

from sourcebook.link.graph import Graph, Ref, link_record

__all__ = ["Graph", "Ref", "link_record"]
