"""What a page says: the view every template of a build reads, and its parts.

`site_view.py` holds the `SiteView` one build shares; its parts are templates' globals:
`page_prose.py` (`prose`: each field of the record's prose placed on a page, rendered once
by `prose_html.py`, which turns Markdown into safe HTML), `citations.py` (a source cited in
the house style), `query.py` (entities by id, what refers to what), `figures.py`,
`computed.py` (what derive computed, worded), `embedded.py` (values written in prose),
`watched.py` (what the last watch found of the sources' addresses) and `wording.py` (days,
numbers and lists of names as the site words them).
"""
