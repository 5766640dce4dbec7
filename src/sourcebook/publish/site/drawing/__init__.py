"""What the site draws and typesets at build time, so that a reader needs no JavaScript.

`vega.py` draws Vega-Lite specs as static SVG, in the colours of `palette.py`; `drawn.py`
is the record's charts as a page shows them; `line_charts.py` the derived timelines as
inline SVG; `machine.py` the machine drawn in layers and `machine_page.py` what its page
shows; `paper.py` the paper as its page shows it and `typeset.py` the same as a PDF.
"""
