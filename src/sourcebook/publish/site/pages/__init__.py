"""The pages: which pages a record's site has, where each lives, and how each is written.

`sections.py` is the one table of the site's sections (each one's path, its link in the
menu, its template, the pages it makes); `site_pages.py` lists a record's pages from it,
each a `Page` (`page.py`: a URL, a template and what the template needs). `urls.py` says
where every page and entity lives and which file serves it; `links.py` is the URLs as
templates ask for them; `wayfinding.py` the masthead's menu and the breadcrumb;
`releases.py` and `series.py` what the data page and the series' pages list. `render.py`
turns a page into its file: the Jinja environment, the static files, the writing.

`reach.py`, the allow-list of what a record's own templates may reach and the sandbox that
holds them to it, and `template_budget.py`, how much such a template may do in a render,
sit beside `render.py` rather than with the serving: it is a rule about
templates, applied when the environment is made and checked against the pages' contexts,
and nothing in it runs when a site is served.
"""
