"""How a built site reaches its readers: swapped in whole, served, sent with its headers.

`swap.py` builds a folder beside its target and swaps it in whole; `serve.py` serves a
built site on 127.0.0.1 and reloads open pages as a live site is rebuilt; `policy.py` is
the content security policy and the headers a host sends with the site's files.
"""
