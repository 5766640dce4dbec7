"""The forms a page takes beside its HTML, for programs and reference managers.

`twins.py`: every page's JSON twin under /api/; `feeds.py`: the Atom feeds; `structured.py`:
schema.org JSON-LD; `citation_meta.py`: the citation meta tags and COinS a page carries;
`cite_formats.py`: a source as BibTeX, RIS and CSL-JSON; `json_text.py`: JSON as the site
writes it.
"""
