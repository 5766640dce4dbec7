"""The speed-ups, in one place, each with a switch that runs the plain library behaviour.

None of them changes what is built: the same record gives the same bytes either way
(tests/test_runtime_plain.py builds sites both ways). Each is named by a switch:

- `workers`: a large record's files read, its prose linked and its pages rendered by
  forked worker processes (`runtime.workers`);
- `collector`: Python's cycle collector held off while the record's objects are made, for
  the whole of a command that ends its process when done (`check`, `build`, `release`),
  in the workers, and in `serve` between waits (`runtime.collector`);
- `exit`: the CLI leaves without freeing the record object by object (`runtime.exit`).

Pure functions' memos within one process (`runtime.memo.memoized`) have no switch: they
change nothing but how often a value is computed.

`SOURCEBOOK_PLAIN=1` (or `all`) turns every one off; `SOURCEBOOK_PLAIN=collector,exit`
turns off those named. bench/bench_runtime.py measures what each saves.
"""

from sourcebook.runtime.switches import TRICKS, fast, plain

__all__ = ["TRICKS", "fast", "plain"]
