"""Email addresses as a reader types them, and as the sender writes them.

One function, `deliverable`, decides both whether the form accepts an address and whether
the sender can send to it, so that no address is accepted that the sender cannot deliver.
The part before the @ must be ASCII: the emails leave without SMTPUTF8, which not every
mail server offers. An internationalized domain is sent in its ASCII (IDNA) form.
"""

from __future__ import annotations

import email.policy
import smtplib
from dataclasses import dataclass
from email.headerregistry import Address

from email_validator import EmailNotValidError, validate_email

MAX_LENGTH = 254


class InvalidAddress(ValueError):
    """An address that cannot be mailed; the message says why, for a person."""


@dataclass(frozen=True)
class Recipient:
    address: str
    """The address in normal form, as it is kept and shown (`ada@bücher.de`)."""
    ascii: str
    """The same address as it is sent, in the envelope and the To header
    (`ada@xn--bcher-kva.de`)."""


def deliverable(text: str) -> Recipient:
    """The address as kept and as sent; InvalidAddress for anything that is not one address
    the sender can write into an email and an SMTP envelope exactly as it is.

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
    if found.ascii_email is None:
        letters = sorted({ch for ch in found.local_part if not ch.isascii()})
        shown = ", ".join(repr(ch) for ch in letters[:3])
        raise InvalidAddress(
            f"this list's emails cannot reach an address with {shown} before the @-sign; "
            "give one written in plain ASCII letters, digits and punctuation before the @"
        )
    ascii_address = str(found.ascii_email)
    if not _written_as_read(ascii_address):
        looks = " (it looks like an encoded word, =?…?=)" if "=?" in found.local_part else ""
        raise InvalidAddress(
            f"the part before the @-sign would be read as something else in an email{looks}"
        )
    return Recipient(str(found.normalized), ascii_address)


def to_header(address: str) -> Address:
    """The To header's value for an ASCII address, as every email is composed with it."""
    return Address(addr_spec=address)


def _written_as_read(address: str) -> bool:
    """Whether the email package writes `address` into a To header, and smtplib into an
    SMTP envelope, so that a mail program reads back exactly `address`.

    The header is folded as the sender's generator folds it and parsed as a reader's mail
    program parses it, without the cost of a whole message each way.
    """
    policy = email.policy.default
    try:
        written = policy.header_factory("To", to_header(address)).fold(policy=policy)
        read = policy.header_fetch_parse(*policy.header_source_parse([written]))
    except Exception:  # the email package refuses an address in ways of its own
        return False
    return (
        written.isascii()
        and not read.defects
        and [found.addr_spec for found in read.addresses] == [address]
        and smtplib.quoteaddr(address) == f"<{address}>"
    )
