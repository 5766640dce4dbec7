"""Keyed hashes: of an address (to find a reader, and to remember an erasure) and of a
client's network (for rate limits). The key is random, kept in the database's `meta`."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress

from sourcebook.notify.database import Database
from sourcebook.notify.policy import IPV4_PREFIX, IPV6_PREFIX


class Hasher:
    def __init__(self, key: str):
        self._key = bytes.fromhex(key)

    @classmethod
    def of(cls, db: Database) -> Hasher:
        with db.transaction() as tx:
            key = tx.value("SELECT value FROM meta WHERE key = 'hash_key'")
        return cls(str(key))

    def _hash(self, kind: str, text: str) -> str:
        return hmac.new(self._key, f"{kind}\0{text}".encode(), hashlib.sha256).hexdigest()

    def address(self, address: str) -> str:
        return self._hash("address", address.lower())

    def client(self, host: str) -> str:
        """The hash of the client's network: its IP address is never kept whole."""
        return self._hash("client", network(host))

    @property
    def tag(self) -> str:
        """A short fingerprint of this database, for the Message-IDs of its emails."""
        return self._hash("tag", "")[:12]


def network(host: str) -> str:
    """An IPv4 address cut to its first 24 bits, an IPv6 one to 48; anything else as is."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    prefix = IPV4_PREFIX if ip.version == 4 else IPV6_PREFIX
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))
