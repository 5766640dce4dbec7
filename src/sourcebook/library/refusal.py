"""What `library add` refuses, with the code that names why (docs/diagnostics.md, Q1xx)."""

from __future__ import annotations

TOO_LARGE = "Q101"
TOO_SLOW = "Q102"
FETCH_FAILED = "Q103"
UNREADABLE = "Q104"
NOT_WHAT_IT_CLAIMS = "Q105"
NO_TRANSCRIPTION = "Q106"
NO_SUCH_RECORD_OR_SOURCE = "Q107"
BAD_OPTION = "Q108"


class Refused(Exception):
    """An original `library add` does not take; `code` says why, the message is one line."""

    code = UNREADABLE

    def __init__(self, message: str, code: str | None = None):
        super().__init__(" ".join(message.split()))
        if code is not None:
            self.code = code
