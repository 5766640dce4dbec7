"""Edits through `serve` told what changed, as its watcher tells it, show what a clean
build writes: the same edits as `test_serve_equivalence.py`, each rebuild given the paths
that changed (a file not named is taken as it was, without a stat)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_serve_equivalence import edit, serve_shows_a_clean_build
from thorough import examples


@settings(
    max_examples=examples(20),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(edit, min_size=1, max_size=3))
def test_serve_told_what_each_edit_changed_shows_what_a_clean_build_writes(edits):
    """Each rebuild told the paths, as the watcher tells them: the read takes every other
    file as it was, without a stat, and lists only the folders where files came or went."""
    serve_shows_a_clean_build(edits, told=True)
