"""Sources in and out as researchers keep them: Zotero's CSL-JSON and Better BibTeX,
Hypothesis highlights, and the record's sources written back for Zotero.

- `works` is the neutral shape of a bibliographic item that every format reads into;
- `csl` and `bibtex` read and write those formats, `ris` reads RIS, `hypothesis` reads
  highlights, and `outgoing` makes the record's sources works again for export;
- `editor` changes fields of an entity file and leaves every other byte alone;
- `zotero` plans and writes an import (people and parties matched, a re-import's
  conflicts found from what the last import wrote, kept in `imports/zotero.json`);
- `highlights` appends highlights to their sources as quotes.
"""
