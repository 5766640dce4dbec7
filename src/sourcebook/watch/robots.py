"""What a site's robots.txt allows the watch (RFC 9309), fetched once per origin.

The watch asks for `/robots.txt` through `library.fetch`, under the same rules as every
visit, and reads it with Python's `urllib.robotparser` as the user agent `sourcebook`:

- an answer of 2xx is read (its first `MAX_BYTES`); its `Crawl-delay`, where it asks for
  more than the watch's own delay, is kept (up to `MAX_DELAY` seconds);
- a 4xx answer (no robots.txt), a redirect not followed, or a robots.txt of more than
  `MAX_BYTES` (which RFC 9309 asks a crawler to read at least 500 KiB of; the fetch takes
  a body whole or not at all), allows every visit;
- a 5xx answer forbids every visit, as the RFC asks (the site is in trouble);
- no answer at all: the host is down, and its addresses are recorded as giving none,
  without asking each again.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from urllib.robotparser import RobotFileParser

AGENT = "sourcebook"
"""The product token robots.txt groups are matched against."""
MAX_BYTES = 512 * 1024
MAX_DELAY = 60.0


@dataclass(frozen=True)
class Robots:
    """One origin's robots.txt as the watch found it (kept as is while a run is resumed)."""

    status: int | None
    """The answer's status; None where the host gave no answer."""
    text: str = ""
    note: str = ""
    """Why there was no answer."""

    @property
    def answered(self) -> bool:
        return self.status is not None

    def allows(self, url: str) -> bool:
        if self.status is None or 400 <= self.status < 500:
            return True
        if self.status >= 500:
            return False
        return self._parser.can_fetch(AGENT, url)

    def delay(self) -> float | None:
        """The Crawl-delay it asks of the watch, in seconds, at most MAX_DELAY."""
        if self.status is None or not 200 <= self.status < 300:
            return None
        asked = self._parser.crawl_delay(AGENT)
        return min(float(asked), MAX_DELAY) if asked is not None else None

    @cached_property
    def _parser(self) -> RobotFileParser:
        parser = RobotFileParser()
        parser.parse(self.text.splitlines())
        return parser

    def plain(self) -> dict[str, object]:
        return {"status": self.status, "text": self.text, "note": self.note}

    @classmethod
    def from_plain(cls, data: object) -> Robots | None:
        if not isinstance(data, dict):
            return None
        status, text, note = data.get("status"), data.get("text"), data.get("note")
        if not (status is None or isinstance(status, int)) or not isinstance(text, str):
            return None
        return cls(status, text, note if isinstance(note, str) else "")
