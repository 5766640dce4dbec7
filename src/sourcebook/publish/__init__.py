"""Stage 6, publish: what a checked record becomes for readers (the companion site)."""
