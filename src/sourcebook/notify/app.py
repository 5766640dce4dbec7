"""The web service: the sign-up form's target, the links of the emails, and /healthz.

Every answer works without JavaScript: a POST is answered with a 303 to a page, or with
a page saying what was wrong and its status code. A link from an email first shows a
button (GET changes nothing, so a mail scanner that opens links confirms nobody).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from sourcebook.notify.addresses import InvalidAddress
from sourcebook.notify.database import DatabaseError
from sourcebook.notify.guards import Guards
from sourcebook.notify.limits import RateLimited
from sourcebook.notify.logs import log
from sourcebook.notify.pages import Form, data_page, page
from sourcebook.notify.readers import LinkGone
from sourcebook.notify.service import Service
from sourcebook.notify.tokens import TokenError, TokenExpired

T = TypeVar("T")
Handler = Callable[[Request], Awaitable[Response]]
HONEYPOT = "website"
DATABASE_THREADS = 8
"""Threads that may work on the database at once: as many as PostgreSQL's pool has
connections (SQLite writes one at a time in any case); more would only wait there."""


def create_app(service: Service) -> Any:
    config = service.config
    readers = service.readers
    limiter = anyio.CapacityLimiter(DATABASE_THREADS)

    async def blocking(function: Callable[..., T], *args: Any) -> T:
        return await anyio.to_thread.run_sync(function, *args, limiter=limiter)

    def back_to_form(reason: str, status: int) -> Response:
        return page(
            config,
            "Not signed up",
            [reason, "Nothing was kept. Go back to the form and try again."],
            status=status,
        )

    async def sign_up(request: Request) -> Response:
        form = await request.form(max_files=0, max_fields=8, max_part_size=1024)
        client = request.client.host if request.client else "unknown"
        if str(form.get(HONEYPOT, "")):
            log("signup-honeypot")
            return RedirectResponse(f"{config.service_url}/signed-up", status_code=303)
        if str(form.get("statement", "")) != config.statement.sha256:
            await blocking(readers.count_client, client)
            return back_to_form(
                "The page you signed up from is out of date: reload it, read the consent "
                "statement again and sign up.",
                409,
            )
        if form.get("consent") != "yes":
            await blocking(readers.count_client, client)
            return back_to_form("Tick the box to say that you agree.", 400)
        try:
            await blocking(readers.sign_up, str(form.get("email", "")), client)
        except InvalidAddress as exc:
            await blocking(readers.count_client, client)
            return back_to_form(f"That address cannot be used: {exc}", 400)
        service.wake.set()
        log("signup")
        return RedirectResponse(f"{config.service_url}/signed-up", status_code=303)

    async def signed_up(request: Request) -> Response:
        return page(
            config,
            "Check your inbox",
            [
                "If the address can be used, an email is on its way to it with a link to "
                "confirm. Open it within a week; until then nothing is sent.",
                "Nothing arrived? Look in the spam folder, or sign up again.",
            ],
        )

    async def confirm(request: Request) -> Response:
        token = await _token(request)
        if request.method == "GET":
            await blocking(readers.check_confirm, token)
            form = Form(f"{config.service_url}/confirm", token, "Confirm")
            return page(config, "Confirm", ["Press the button to confirm."], form=form)
        await blocking(readers.confirm, token)
        log("confirmed")
        return page(
            config,
            "Confirmed",
            [f"Thank you. You will hear once, when {config.title} is out."],
        )

    async def unsubscribe(request: Request) -> Response:
        token = await _token(request)
        if request.method == "GET":
            await blocking(readers.check_own, token, "unsubscribe")
            form = Form(f"{config.service_url}/unsubscribe?t={token}", token, "Unsubscribe")
            return page(config, "Unsubscribe", ["Press the button to leave the list."], form=form)
        one_click = "origin" not in request.headers
        await blocking(readers.unsubscribe, token, "one-click" if one_click else "link")
        log("unsubscribed", one_click=one_click)
        return page(
            config,
            "Unsubscribed",
            ["You have left the list, and your address has been deleted."],
        )

    async def data(request: Request) -> Response:
        token = await _token(request)
        found = await blocking(readers.data, token)
        return data_page(config, found, Form(f"{config.service_url}/erase", token, "Erase it"))

    async def erase(request: Request) -> Response:
        token = await _token(request)
        await blocking(readers.erase, token)
        log("erased")
        return page(
            config,
            "Erased",
            ["Everything kept about you has been deleted, but for a keyed hash of the address."],
        )

    async def home(request: Request) -> Response:
        return page(config, "Tell me when it is out", [f"Sign up on the site of {config.title}."])

    async def health(request: Request) -> Response:
        try:
            version = await blocking(service.health)
        except Exception as exc:  # whatever the database says, the answer is "not healthy"
            return JSONResponse({"ok": False, "error": type(exc).__name__}, status_code=503)
        return JSONResponse({"ok": True, "schema": version})

    routes = [
        Route("/", home),
        Route("/signup", sign_up, methods=["POST"]),
        Route("/signed-up", signed_up),
        Route("/confirm", confirm, methods=["GET", "POST"]),
        Route("/unsubscribe", unsubscribe, methods=["GET", "POST"]),
        Route("/data", data),
        Route("/erase", erase, methods=["POST"]),
        Route("/healthz", health),
    ]
    app = Starlette(routes=routes, exception_handlers=_error_pages(service))
    return Guards(app, config)


async def _token(request: Request) -> str:
    if request.method == "POST":
        form = await request.form(max_files=0, max_fields=4, max_part_size=1024)
        token = str(form.get("t") or request.query_params.get("t", ""))
    else:
        token = request.query_params.get("t", "")
    if not token:
        raise TokenError("this link is missing its key")
    return token


def _error_pages(service: Service) -> dict[Any, Any]:
    config = service.config

    async def token_error(request: Request, exc: Exception) -> Response:
        status = 410 if isinstance(exc, TokenExpired) else 400
        return page(config, "This link does not work", [f"{str(exc).capitalize()}."], status)

    async def gone(request: Request, exc: Exception) -> Response:
        return page(config, "This link does not work", [f"{str(exc).capitalize()}."], 410)

    async def limited(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RateLimited)
        log("rate-limited", level="warning")
        headers = {"Retry-After": str(exc.retry_after)}
        lines = ["Too many sign-ups came from your network. Try again later."]
        return page(config, "Too many", lines, 429, headers=headers)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        titles = {404: "Not found", 405: "Not allowed", 413: "Too much"}
        title = titles.get(exc.status_code, "Refused")
        return page(config, title, ["There is nothing for that here."], exc.status_code)

    async def unavailable(request: Request, exc: Exception) -> Response:
        log("database-error", level="error", error=type(exc).__name__, detail=str(exc)[:200])
        lines = ["The service cannot take this just now. Nothing was lost: try again later."]
        return page(config, "Try again later", lines, 503, headers={"Retry-After": "30"})

    handlers: dict[Any, Any] = {
        TokenError: token_error,
        LinkGone: gone,
        RateLimited: limited,
        HTTPException: http_error,
        DatabaseError: unavailable,
    }
    for error in service.database_errors:
        handlers[error] = unavailable
    return handlers
