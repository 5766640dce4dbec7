"""Email addresses as a reader types them: validated by email-validator, without DNS."""

from __future__ import annotations

from email_validator import EmailNotValidError, validate_email

MAX_LENGTH = 254


class InvalidAddress(ValueError):
    """An address that cannot be mailed; the message says why, for a person."""


def valid_address(text: str) -> str:
    """The address in normal form; InvalidAddress for anything that is not one address.

    Line breaks are refused before anything else, so that no address can carry a header.
    """
    if any(ch in text for ch in "\r\n\0"):
        raise InvalidAddress("an email address is one line")
    text = text.strip()
    if not text:
        raise InvalidAddress("write your email address")
    if len(text) > MAX_LENGTH:
        raise InvalidAddress(f"an email address is at most {MAX_LENGTH} characters long")
    try:
        found = validate_email(text, check_deliverability=False)
    except EmailNotValidError as exc:
        raise InvalidAddress(str(exc)) from None
    return str(found.normalized)
