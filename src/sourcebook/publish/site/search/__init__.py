"""The site's search: the index, the live site's index, and what a hit shows.

`index.py` makes the Pagefind index of a build's pages (`build` before the swap);
`live_index.py` is `serve`'s: made in the background after each build is shown;
`previews.py` what a link or a search hit shows of an entity before it is followed.
"""
