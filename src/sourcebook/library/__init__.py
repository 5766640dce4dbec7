"""The Library: an archived copy of every source, and every quote proven against it.

Its modules, in the order a copy travels through them:

- `fetch` fetches a URL within a budget of bytes and time, staying where the author
  pointed (`origins` says where a redirect may lead); `capture` keeps the exchange as
  WARC, or reads a capture file;
- `claims` refuses bytes that are not what their name, media type or `--kind` says;
  `refusal` names why `library add` refuses (Q101–Q108);
- `extract` takes the text out of an original (HTML, PDF, plain text); `markup` bounds
  a page's nesting before it is parsed; `charset` decodes a page's bytes as a browser
  would (HTTP charset, then <meta charset>, then detection), and `metadata` reads what
  the page says of itself (title, authors, days), which `interchange.page` offers to
  the source;
- `store` puts it on a shelf, `attach` names the shelf in a source, `intake` does both
  for `sourcebook library add`;
- the model (an `Item`, the `Library`) is `sourcebook.model.library`, and
  `sourcebook.read.library` reads library/ into it;
- `normalize` and `match` decide whether a quote stands in a text, `cache` remembers
  what was normalized and found, `nearest` shows how a missing quote differs;
- `verify` proves every quote of a record and `report` holds the proofs.

For the site: `record.library.holdings(source.library)` gives a source's items (shelf,
kind, `captured`, `holds`, `url`, `read_as_image`; the source's own `read` says what was
read), and after check, `checked.proofs.proof_of(claim)` gives a quote's `Proof`
(`status`, `found.shelf`, `locator`: "p. 81" or "read as an image").
"""

from sourcebook.model.library import Item, ItemKind, Library

__all__ = ["Item", "ItemKind", "Library"]
