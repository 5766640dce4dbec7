"""Where a fetch may go: origins, and which addresses a redirect may lead to.

An origin is a scheme, a host and a port, as browsers count them. The origin an author
gives is theirs to choose, whatever its address; a server's redirect to another origin is
followed only to a host whose every address is public. Each host is resolved once per
fetch (`Pins`), and its connection is made to an address so resolved, so that a name
cannot resolve to a public address for the check and to a private one for the connection.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

DEFAULT_PORTS = {"http": 80, "https": 443}

Resolver = Callable[[str, int], list[str]]
"""How a host name becomes the addresses to connect to (host, port → addresses, in order)."""

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True, slots=True)
class Origin:
    scheme: str
    host: str
    port: int

    @classmethod
    def of(cls, url: Any) -> Origin:
        """The origin of an httpx URL: its host as sent (IDNA, lower case), its port or the
        scheme's own."""
        scheme = url.scheme.lower()
        host = url.raw_host.decode("ascii").lower()
        return cls(scheme, host, url.port or DEFAULT_PORTS.get(scheme, 0))


def system_resolver(host: str, port: int) -> list[str]:
    """The host's addresses as the system resolves them (an address given as a number, in
    any form the system reads, such as 2130706433, is its own answer)."""
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    return list(dict.fromkeys(str(info[4][0]) for info in found))


def special(address: str) -> str | None:
    """Why `address` is not a public address of the internet (loopback, private,
    link-local, …); None where it is one. An IPv4 address carried inside an IPv6 one
    (mapped, 6to4, Teredo) is judged as itself."""
    try:
        found: IPAddress = ipaddress.ip_address(address)
    except ValueError:
        return "not an IP address"
    for inner in _carried(found):
        reason = special(str(inner))
        if reason:
            return reason
    checks = (
        ("unspecified", found.is_unspecified),
        ("loopback", found.is_loopback),
        ("link-local", found.is_link_local),
        ("multicast", found.is_multicast),
        ("reserved", found.is_reserved),
        ("private", found.is_private),
    )
    for name, applies in checks:
        if applies:
            return f"a {name} address"
    return None if found.is_global else "a special-purpose address"


def _carried(address: IPAddress) -> list[ipaddress.IPv4Address]:
    if not isinstance(address, ipaddress.IPv6Address):
        return []
    inner = [address.ipv4_mapped, address.sixtofour, *(address.teredo or ())]
    return [a for a in inner if a is not None]


class Pins:
    """Each host's addresses, resolved once for one fetch and used for every connection
    to it."""

    def __init__(self, resolve: Resolver):
        self._resolve = resolve
        self._known: dict[tuple[str, int], list[str]] = {}

    def addresses(self, host: str, port: int) -> list[str]:
        """The host's addresses; raises OSError where it has none."""
        key = (host, port)
        if key not in self._known:
            found = self._resolve(host, port)
            if not found:
                raise OSError(f"{host} has no address")
            self._known[key] = found
        return self._known[key]

    def prefer(self, host: str, port: int, address: str) -> None:
        """Connect to `address` first from now on: the one that answered."""
        known = self._known[(host, port)]
        known.sort(key=lambda a: a != address)
