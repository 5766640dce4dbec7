"""ASGI middleware around every request: a capped body, the Origin of a POST checked,
the security headers added, and one log line per request (its path, never its query)."""

from __future__ import annotations

import time
from typing import Any

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sourcebook.notify.config import Config
from sourcebook.notify.logs import log
from sourcebook.notify.pages import page, security_headers

MAX_BODY = 4096
ONE_CLICK_PATH = "/unsubscribe"
LOG_NOTE = "sourcebook.log_note"
"""The key under which a handler leaves, in the request's scope, a word for its log line."""


class Guards:
    def __init__(self, app: ASGIApp, config: Config):
        self.app = app
        self.config = config
        self.headers = [
            (k.lower().encode(), v.encode()) for k, v in security_headers(config).items()
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def send_with_headers(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                names = {name for name, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in self.headers if k not in names]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        refusal = self._refusal(scope)
        try:
            if refusal is not None:
                await refusal(scope, receive, send_with_headers)
            else:
                await self.app(scope, _capped(receive), send_with_headers)
        finally:
            note = {"note": scope[LOG_NOTE]} if LOG_NOTE in scope else {}
            log(
                "request",
                method=scope["method"],
                path=scope["path"],
                status=status,
                ms=round((time.perf_counter() - started) * 1000, 1),
                **note,
            )

    def _refusal(self, scope: Scope) -> Any:
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        length = headers.get("content-length", "0")
        if not length.isdigit() or int(length) > MAX_BODY:
            return _too_large(self.config)
        if scope["method"] != "POST":
            return None
        origin = headers.get("origin")
        if origin is None and scope["path"] == ONE_CLICK_PATH:
            # A mail provider's one-click unsubscribe (RFC 8058): the signed token proves it.
            return None
        if origin is None or origin.lower() not in self.config.allowed_origins:
            return page(
                self.config,
                "Not from this site",
                ["This form was sent from another site, so it was not accepted."],
                status=403,
            )
        return None


def _too_large(config: Config) -> Any:
    return page(config, "Too much", ["That was more than this form can take."], status=413)


def _capped(receive: Receive) -> Receive:
    """`receive`, refusing with 413 once the body passes MAX_BODY (for a chunked body)."""
    seen = 0

    async def wrapped() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > MAX_BODY:
                raise HTTPException(413)
        return message

    return wrapped
