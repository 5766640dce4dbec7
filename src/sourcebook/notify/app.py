"""The web service: the sign-up form's target, the links of the emails, and /healthz.

Every answer works without JavaScript: a POST is answered with a 303 to a page, or with
a page saying what was wrong and its status code. A link from an email first shows a
button (GET changes nothing, so a mail scanner that opens links confirms nobody).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from sourcebook.notify.addresses import InvalidAddress
from sourcebook.notify.database import DatabaseError
from sourcebook.notify.guards import LOG_NOTE, Guards
from sourcebook.notify.limits import RateLimited
from sourcebook.notify.logs import first_line, log
from sourcebook.notify.pages import Form, data_page, page
from sourcebook.notify.readers import LinkGone
from sourcebook.notify.service import Service
from sourcebook.notify.tokens import TokenError, TokenExpired

T = TypeVar("T")
HONEYPOT = "website"
DATABASE_THREADS = 8
"""Threads that may work on the database at once: as many as PostgreSQL's pool has
connections (SQLite writes one at a time in any case); more would only wait there."""


def create_app(service: Service) -> Any:
    """The ASGI app: Starlette's routes and error pages, inside the guards."""
    endpoints = Endpoints(service)
    routes = [
        Route("/", endpoints.home),
        Route("/signup", endpoints.sign_up, methods=["POST"]),
        Route("/signed-up", endpoints.signed_up),
        Route("/confirm", endpoints.confirm, methods=["GET", "POST"]),
        Route("/unsubscribe", endpoints.unsubscribe, methods=["GET", "POST"]),
        Route("/data", endpoints.data),
        Route("/erase", endpoints.erase, methods=["POST"]),
        Route("/healthz", endpoints.health),
    ]
    app = Starlette(routes=routes, exception_handlers=ErrorPages(service).handlers())
    return Guards(app, service.config)


class Endpoints:
    def __init__(self, service: Service):
        self.service = service
        self.config = service.config
        self.readers = service.readers
        self._limiter = anyio.CapacityLimiter(DATABASE_THREADS)

    async def blocking(self, function: Callable[..., T], *args: Any) -> T:
        """`function(*args)` in a worker thread: the database's work is not async."""
        return await anyio.to_thread.run_sync(function, *args, limiter=self._limiter)

    def _page(
        self, title: str, *lines: str, status: int = 200, form: Form | None = None
    ) -> Response:
        return page(self.config, title, list(lines), status=status, form=form)

    async def sign_up(self, request: Request) -> Response:
        form = await request.form(max_files=0, max_fields=8, max_part_size=1024)
        client = request.client.host if request.client else "unknown"
        if str(form.get(HONEYPOT, "")):
            log("signup-honeypot")
            return self._to_signed_up()
        if str(form.get("statement", "")) != self.config.statement.sha256:
            reason = (
                "The page you signed up from is out of date: reload it, read the consent "
                "statement again and sign up."
            )
            return await self._refused(client, reason, 409)
        if form.get("consent") != "yes":
            return await self._refused(client, "Tick the box to say that you agree.", 400)
        try:
            await self.blocking(self.readers.sign_up, str(form.get("email", "")), client)
        except InvalidAddress as exc:
            return await self._refused(client, f"That address cannot be used: {exc}", 400)
        self.service.wake.set()
        log("signup")
        return self._to_signed_up()

    def _to_signed_up(self) -> Response:
        return RedirectResponse(f"{self.config.service_url}/signed-up", status_code=303)

    async def _refused(self, client: str, reason: str, status: int) -> Response:
        """A sign-up refused: counted against the client, nothing else kept."""
        await self.blocking(self.readers.count_client, client)
        nothing = "Nothing was kept. Go back to the form and try again."
        return self._page("Not signed up", reason, nothing, status=status)

    async def signed_up(self, request: Request) -> Response:
        return self._page(
            "Check your inbox",
            "If the address can be used, an email is on its way to it with a link to "
            "confirm. Open it within a week; until then nothing is sent.",
            "Nothing arrived? Look in the spam folder, or sign up again.",
        )

    async def confirm(self, request: Request) -> Response:
        token = await _token(request)
        if request.method == "GET":
            await self.blocking(self.readers.check_confirm, token)
            form = Form(f"{self.config.service_url}/confirm", token, "Confirm")
            return self._page("Confirm", "Press the button to confirm.", form=form)
        await self.blocking(self.readers.confirm, token)
        log("confirmed")
        title = self.config.title
        return self._page("Confirmed", f"Thank you. You will hear once, when {title} is out.")

    async def unsubscribe(self, request: Request) -> Response:
        token = await _token(request)
        if request.method == "GET":
            await self.blocking(self.readers.check_own, token, "unsubscribe")
            action = f"{self.config.service_url}/unsubscribe?t={token}"
            form = Form(action, token, "Unsubscribe")
            return self._page("Unsubscribe", "Press the button to leave the list.", form=form)
        one_click = "origin" not in request.headers
        method = "one-click" if one_click else "link"
        await self.blocking(self.readers.unsubscribe, token, method)
        log("unsubscribed", one_click=one_click)
        return self._page(
            "Unsubscribed", "You have left the list, and your address has been deleted."
        )

    async def data(self, request: Request) -> Response:
        token = await _token(request)
        found = await self.blocking(self.readers.data, token)
        form = Form(f"{self.config.service_url}/erase", token, "Erase it")
        return data_page(self.config, found, form)

    async def erase(self, request: Request) -> Response:
        token = await _token(request)
        await self.blocking(self.readers.erase, token)
        log("erased")
        return self._page(
            "Erased",
            "Everything kept about you has been deleted, but for a keyed hash of the address.",
        )

    async def home(self, request: Request) -> Response:
        return self._page("Tell me when it is out", f"Sign up on the site of {self.config.title}.")

    async def health(self, request: Request) -> Response:
        try:
            version = await self.blocking(self.service.health)
        except Exception as exc:  # whatever the database says, the answer is "not healthy"
            return JSONResponse({"ok": False, "error": type(exc).__name__}, status_code=503)
        return JSONResponse({"ok": True, "schema": version})


async def _token(request: Request) -> str:
    """The link's key: in the form of a POST (or its URL, for one-click), else in the URL."""
    if request.method == "POST":
        form = await request.form(max_files=0, max_fields=4, max_part_size=1024)
        token = str(form.get("t") or request.query_params.get("t", ""))
    else:
        token = request.query_params.get("t", "")
    if not token:
        raise TokenError("this link is missing its key")
    return token


class ErrorPages:
    """What each refusal looks like: a page of the service, with its status code."""

    def __init__(self, service: Service):
        self.service = service
        self.config = service.config

    def handlers(self) -> dict[Any, Callable[..., Any]]:
        handlers: dict[Any, Callable[..., Any]] = {
            TokenError: self.token_error,
            LinkGone: self.gone,
            RateLimited: self.limited,
            HTTPException: self.http_error,
            ClientDisconnect: self.cut_short,
            DatabaseError: self.unavailable,
        }
        for error in self.service.database_errors:
            handlers[error] = self.unavailable
        return handlers

    async def token_error(self, request: Request, exc: Exception) -> Response:
        status = 410 if isinstance(exc, TokenExpired) else 400
        return self._link_page(exc, status)

    async def gone(self, request: Request, exc: Exception) -> Response:
        return self._link_page(exc, 410)

    def _link_page(self, exc: Exception, status: int) -> Response:
        lines = [f"{str(exc).capitalize()}."]
        return page(self.config, "This link does not work", lines, status)

    async def limited(self, request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RateLimited)
        log("rate-limited", level="warning")
        lines = ["Too many sign-ups came from your network. Try again later."]
        return page(
            self.config, "Too many", lines, 429, headers={"Retry-After": str(exc.retry_after)}
        )

    async def http_error(self, request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        titles = {404: "Not found", 405: "Not allowed", 413: "Too much"}
        title = titles.get(exc.status_code, "Refused")
        return page(self.config, title, ["There is nothing for that here."], exc.status_code)

    async def cut_short(self, request: Request, exc: Exception) -> Response:
        """A body that ended before its Content-Length: the client went away mid-request."""
        request.scope[LOG_NOTE] = "the body ended before its Content-Length"
        lines = ["The form arrived cut short, so it was not accepted. Send it again."]
        return page(self.config, "Cut short", lines, 400)

    async def unavailable(self, request: Request, exc: Exception) -> Response:
        log("database-error", level="error", error=type(exc).__name__, detail=first_line(exc))
        lines = ["The service cannot take this just now. Nothing was lost: try again later."]
        return page(self.config, "Try again later", lines, 503, headers={"Retry-After": "30"})
