"""The signed links in the emails: an HMAC-SHA256 over what the link may do, and until when.

A token is `purpose.reader.key.expires` and its signature, base64url. It names a reader by
number, never by address, and carries a value of the reader's row (the link key, or the
confirmation's nonce), so that a link stops working when that value changes or goes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass

PURPOSES = ("confirm", "unsubscribe", "data")
MIN_SECRET_BYTES = 32


class TokenError(ValueError):
    """A token that was tampered with, has expired, or is not one of ours."""


class TokenExpired(TokenError):
    """A genuine token whose time is over."""


@dataclass(frozen=True)
class Claim:
    purpose: str
    reader_id: int
    value: str
    expires: int


class Signer:
    def __init__(self, secret: str):
        if len(secret.encode("utf-8")) < MIN_SECRET_BYTES:
            raise ValueError(f"the secret must be at least {MIN_SECRET_BYTES} bytes long")
        self._key = hashlib.sha256(b"sourcebook-notify-links\0" + secret.encode()).digest()

    def sign(self, claim: Claim) -> str:
        body = f"{claim.purpose}.{claim.reader_id}.{claim.value}.{claim.expires}".encode()
        return f"{_b64(body)}.{_b64(self._mac(body))}"

    def read(self, token: str, purpose: str, now: int) -> Claim:
        """The claim a token carries, once its signature, purpose and expiry are checked."""
        body_part, _, mac_part = token.partition(".")
        try:
            body, mac = _unb64(body_part), _unb64(mac_part)
        except ValueError:
            raise TokenError("this link is not one of ours") from None
        if not hmac.compare_digest(mac, self._mac(body)):
            raise TokenError("this link is not one of ours, or it was changed")
        fields = body.decode("ascii", "replace").split(".")
        if len(fields) != 4 or fields[0] != purpose:
            raise TokenError("this link is not for this page")
        claim = Claim(fields[0], int(fields[1]), fields[2], int(fields[3]))
        if claim.expires < now:
            raise TokenExpired("this link has expired")
        return claim

    def _mac(self, body: bytes) -> bytes:
        return hmac.new(self._key, body, hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    if not text or len(text) > 400:
        raise ValueError(text)
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError):
        raise ValueError(text) from None
