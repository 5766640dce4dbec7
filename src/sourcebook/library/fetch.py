"""Fetch a source's web address within a budget, staying where the author pointed.

`fetch` is the one way sourcebook visits an address a record gives: `library add` keeps
what it returns, and whatever visits the sources again later calls it the same way. A
server is untrusted, so:

- the address the author gave is fetched as given, whatever it resolves to, and a
  redirect within its origin (the same scheme, host and port) is followed;
- a redirect to another origin is followed only to http or https, with no user name in
  it, and to a host whose every address is public: one that is loopback, private,
  link-local, unspecified or otherwise special, once the name is resolved, is refused;
- every host is resolved once per fetch, and connected to at an address so resolved (the
  request carries the host's name in its Host header and in TLS's server name), so a name
  cannot pass the check with one address and connect to another; no proxy is taken from
  the environment, as it would make the connection in sourcebook's place;
- the whole fetch (connecting, redirects, headers and body) ends within `Budget.seconds`,
  however slowly the server sends; the body is capped at `Budget.max_bytes` on the wire
  and again once decompressed (only gzip and deflate are asked for, and taken); a
  redirect's body is never read.

A refusal raises `FetchError`, one line naming the address and why, with its code
(docs/diagnostics.md, Q101–Q103). Any answer that is not a redirect is returned, whatever
its status: 304 where `since` made the request conditional and nothing changed.
"""

from __future__ import annotations

import threading
import time
import zlib
from dataclasses import dataclass, field
from typing import Any

from sourcebook.library.origins import Origin, Pins, Resolver, special, system_resolver
from sourcebook.library.refusal import FETCH_FAILED, TOO_LARGE, TOO_SLOW, Refused

USER_AGENT = "sourcebook (+https://pypi.org/project/sourcebook/)"
MAX_REDIRECTS = 10
REDIRECTS = frozenset({301, 302, 303, 307, 308})
"""The answers that send a GET elsewhere; any other, 304 included, is the answer."""
ACCEPT_ENCODING = "gzip, deflate"
"""Only encodings whose decompression can be capped as it goes."""
_CHUNK = 64 * 1024


class FetchError(Refused):
    """A fetch refused or failed; the message is one line for a person."""

    code = FETCH_FAILED


class RedirectRefused(FetchError):
    """A redirect not followed: to another scheme, with a user name, or to another origin
    whose host is not public. The server answered; where it pointed is not for a fetch."""


@dataclass(frozen=True)
class Budget:
    """What one fetch may cost: its bytes (on the wire and decompressed) and its time."""

    seconds: float = 60.0
    max_bytes: int = 64 * 1024 * 1024


@dataclass(frozen=True)
class Validators:
    """What an earlier answer said of its version, to ask only for a newer one."""

    etag: str | None = None
    last_modified: str | None = None

    def headers(self) -> dict[str, str]:
        asked = {"If-None-Match": self.etag, "If-Modified-Since": self.last_modified}
        return {name: value for name, value in asked.items() if value}


@dataclass(frozen=True)
class Sent:
    """The request as it went out, for the record of the exchange."""

    method: str
    target: str
    """The request target: the path and query."""
    headers: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Fetched:
    """The answer to a fetch: the last one, after the redirects it followed."""

    url: str
    """The address the answer came from."""
    status: int
    reason: str
    headers: tuple[tuple[str, str], ...]
    """Every header as received, in order."""
    raw: bytes = field(repr=False)
    """The body as it came over the wire, still content-encoded."""
    body: bytes = field(repr=False)
    """The body decoded of its content encodings; empty for a 304."""
    redirects: tuple[str, ...] = ()
    """Each address that redirected, in order, the address asked for first."""
    hops: tuple[int, ...] = ()
    """The status each of `redirects` answered with (301, 302, 303, 307 or 308)."""
    request: Sent = field(default_factory=lambda: Sent("GET", "/", ()))

    def header(self, name: str) -> str | None:
        """The first header called `name` (in any case), or None."""
        wanted = name.lower()
        return next((value for key, value in self.headers if key.lower() == wanted), None)

    @property
    def media_type(self) -> str | None:
        return self.header("content-type")

    @property
    def unchanged(self) -> bool:
        """The server said the version `since` named is still the current one."""
        return self.status == 304

    @property
    def validators(self) -> Validators:
        """What to pass as `since` next time, to fetch again only if it changed."""
        return Validators(self.header("etag"), self.header("last-modified"))


def fetch(
    url: str,
    budget: Budget | None = None,
    *,
    since: Validators | None = None,
    resolve: Resolver | None = None,
    user_agent: str = USER_AGENT,
) -> Fetched:
    """Fetch `url` (an http or https address) as the module says; `since` makes the
    request conditional, `resolve` replaces the system's resolver, `user_agent` names who
    asks. Raises FetchError (RedirectRefused for a redirect not followed).

    The fetch runs on a worker thread, so that the deadline holds even while a read is
    waiting on the socket; a worker past its deadline is told to stop and left to its
    own read timeout."""
    budget = budget or Budget()
    job = _Job(url, budget, since or Validators(), Pins(resolve or system_resolver), user_agent)
    worker = threading.Thread(target=job.run, daemon=True)
    worker.start()
    worker.join(budget.seconds)
    if worker.is_alive():
        job.cancelled.set()
        raise _too_slow(url, budget)
    if job.error is not None:
        raise job.error
    assert job.fetched is not None
    return job.fetched


@dataclass
class _Job:
    url: str
    budget: Budget
    since: Validators
    pins: Pins
    user_agent: str = USER_AGENT
    fetched: Fetched | None = None
    error: BaseException | None = None
    cancelled: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        try:
            self.fetched = self._download(time.monotonic() + self.budget.seconds)
        except Refused as exc:
            self.error = exc
        except MemoryError:
            self.error = FetchError(f"{self.url}: ran out of memory", TOO_LARGE)
        except Exception as exc:  # noqa: BLE001 - httpx, h11 and zlib raise many kinds
            self.error = FetchError(f"{self.url}: {type(exc).__name__}: {exc}")

    def _download(self, deadline: float) -> Fetched:
        import httpx

        try:
            current = httpx.URL(self.url)
        except httpx.InvalidURL as exc:
            raise FetchError(f"{self.url}: not an address that can be fetched: {exc}") from None
        if current.scheme not in ("http", "https"):
            raise FetchError(f"{self.url}: only http and https addresses are fetched")
        home = Origin.of(current)
        redirects: list[str] = []
        hops: list[int] = []
        with httpx.Client(
            timeout=httpx.Timeout(self.budget.seconds),
            trust_env=False,
            limits=httpx.Limits(max_keepalive_connections=0),
        ) as client:
            for _hop in range(MAX_REDIRECTS + 1):
                response = self._send(client, current, Origin.of(current) == home)
                try:
                    if _redirects(response):
                        redirects.append(str(current))
                        hops.append(response.status_code)
                        current = _redirect_target(current, response.headers["location"])
                        continue
                    raw = self._read(response, current, deadline)
                finally:
                    response.close()
                return self._fetched(current, response, raw, (tuple(redirects), tuple(hops)))
        raise FetchError(f"{self.url}: more than {MAX_REDIRECTS} redirects")

    def _send(self, client: Any, url: Any, trusted: bool) -> Any:
        """The answer to a GET of `url`, connected to one of its host's pinned addresses;
        a host reached by a redirect to another origin must have only public ones."""
        import httpx

        host, port = Origin.of(url).host, Origin.of(url).port
        try:
            addresses = self.pins.addresses(host, port)
        except OSError as exc:
            raise FetchError(f"{url}: the host cannot be found: {exc}") from None
        if not trusted:
            _refuse_special(url, addresses)
        headers = {"User-Agent": self.user_agent, "Accept-Encoding": ACCEPT_ENCODING}
        headers |= self.since.headers() | {"Host": url.netloc.decode("ascii")}
        failure: Exception | None = None
        for address in list(addresses):
            pinned = url.copy_with(host=address)
            extensions = {"sni_hostname": host}
            request = client.build_request("GET", pinned, headers=headers, extensions=extensions)
            try:
                response = client.send(request, stream=True)
            except httpx.ConnectError as exc:
                failure = exc
                continue
            except httpx.HTTPError as exc:
                raise FetchError(f"{url}: {exc or type(exc).__name__}") from None
            self.pins.prefer(host, port, address)
            return response
        raise FetchError(f"{url}: {failure or 'no connection'}")

    def _read(self, response: Any, url: Any, deadline: float) -> bytes:
        import httpx

        try:
            return _read_capped(response, str(url), self.budget, deadline, self.cancelled)
        except httpx.HTTPError as exc:
            if time.monotonic() >= deadline:
                raise _too_slow(str(url), self.budget) from None
            raise FetchError(f"{url}: {exc or type(exc).__name__}") from None

    def _fetched(
        self, url: Any, response: Any, raw: bytes, chain: tuple[tuple[str, ...], tuple[int, ...]]
    ) -> Fetched:
        encoding = response.headers.get("content-encoding")
        body = b"" if response.status_code == 304 else decompressed(raw, encoding, self.budget, url)
        request = response.request
        return Fetched(
            url=str(url),
            status=response.status_code,
            reason=response.reason_phrase,
            headers=tuple(response.headers.multi_items()),
            raw=raw,
            body=body,
            redirects=chain[0],
            hops=chain[1],
            request=Sent(
                request.method,
                request.url.raw_path.decode("ascii"),
                tuple(request.headers.multi_items()),
            ),
        )


def _redirects(response: Any) -> bool:
    return response.status_code in REDIRECTS and "location" in response.headers


def _redirect_target(current: Any, location: str) -> Any:
    import httpx

    try:
        target = current.join(location)
    except httpx.InvalidURL:
        raise RedirectRefused(f"{current}: redirected to an address that cannot be read") from None
    if target.scheme not in ("http", "https"):
        raise RedirectRefused(f"{current}: redirected to a {target.scheme}: address")
    if target.userinfo:
        raise RedirectRefused(f"{current}: redirected to an address with a user name; not followed")
    return target


def _refuse_special(url: Any, addresses: list[str]) -> None:
    for address in addresses:
        reason = special(address)
        if reason:
            raise RedirectRefused(
                f"redirected to {url}, whose host is {address}, {reason}: a redirect may "
                "leave the origin given only for a public address; not followed"
            )


def _read_capped(
    response: Any, url: str, budget: Budget, deadline: float, cancelled: threading.Event
) -> bytes:
    """The body as it came over the wire (still content-encoded), within the budget."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > budget.max_bytes:
        raise _too_large(url, budget, "says it is")
    parts: list[bytes] = []
    size = 0
    for chunk in response.iter_raw(_CHUNK):
        size += len(chunk)
        if size > budget.max_bytes:
            raise _too_large(url, budget, "is")
        if cancelled.is_set() or time.monotonic() >= deadline:
            raise _too_slow(url, budget)
        parts.append(chunk)
    return b"".join(parts)


def decompressed(raw: bytes, encoding: str | None, budget: Budget, url: object) -> bytes:
    """The body without its content encodings, never more than the budget's bytes."""
    codings = [c.strip().lower() for c in (encoding or "").split(",") if c.strip()]
    body = raw
    for coding in reversed(codings):
        if coding == "identity":
            continue
        if coding in ("gzip", "x-gzip"):
            body = _inflate(body, 16 + zlib.MAX_WBITS, budget, url, coding)
        elif coding == "deflate":
            # HTTP's deflate is zlib's format; some servers send the bare stream.
            wrapped = len(body) > 1 and body[0] & 0x0F == 8 and (body[0] << 8 | body[1]) % 31 == 0
            body = _inflate(
                body, zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS, budget, url, coding
            )
        else:
            raise FetchError(
                f"{url}: the server sent a body in '{coding}', which was not asked for"
            )
    return body


def _inflate(data: bytes, wbits: int, budget: Budget, url: object, coding: str) -> bytes:
    """Decompress every member of `data`, stopping as soon as the output passes the cap."""
    out: list[bytes] = []
    size = 0
    while data:
        inflater = zlib.decompressobj(wbits)
        try:
            part = inflater.decompress(data, budget.max_bytes + 1 - size)
        except zlib.error as exc:
            if out:  # bytes after the last member, which browsers ignore too
                break
            raise FetchError(f"{url}: the {coding} body is damaged: {exc}") from None
        size += len(part)
        if size > budget.max_bytes or inflater.unconsumed_tail:
            raise _too_large(str(url), budget, "decompresses to")
        out.append(part)
        if not inflater.eof:
            raise FetchError(f"{url}: the {coding} body is cut short")
        data = inflater.unused_data if wbits > 16 else b""
    return b"".join(out)


def _too_large(url: str, budget: Budget, verb: str) -> FetchError:
    return FetchError(
        f"{url}: the body {verb} more than {budget.max_bytes:,} bytes (--max-bytes); "
        "nothing was kept",
        TOO_LARGE,
    )


def _too_slow(url: str, budget: Budget) -> FetchError:
    return FetchError(
        f"{url}: no whole answer within {budget.seconds:g} seconds (--timeout); nothing was kept",
        TOO_SLOW,
    )
