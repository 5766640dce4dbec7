"""`sourcebook watch`: the sources' addresses visited on the live web, and the record's
watch/ log written (docs/watch.md).

Its modules, in the order a watch runs through them:

- `targets` lists every address of every source, with its quotes, its Library copies and
  what its last answer said of its version;
- `polite` visits them as a polite client does: hosts at once and lanes per host, a delay
  between requests, each origin's robots.txt (`robots`) asked first, the whole watch's
  budget of time and bytes;
- `visit` makes one visit through `library.fetch` and reads the page as the Library reads
  a copy: its quotes looked for with the same matcher, and whether it is soft-dead
  (`soft`);
- `run` writes each visit to the log as it is made, and takes up a watch killed half-way.

The log's model and the state of an address are `sourcebook.model.watch`; reading the log
is `sourcebook.read.watch`; check's warnings are `sourcebook.check.watched`.
"""
