"""Bad input gets a clear page and a status code, and stores nothing it should not."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from notify_fixtures import (
    SITE_ORIGIN,
    Running,
    Smtp,
    count,
    link,
    rows,
    running_service,
    sign_up_form,
    token,
)

from sourcebook.notify import guards

ADDRESS = "ada@example.org"
FLOOD_LIMIT = 5


@pytest.fixture
def running(tmp_path: Path, db_target: str, smtp: Smtp) -> Iterator[Running]:
    with running_service(tmp_path / "record", db_target, smtp, per_client=FLOOD_LIMIT) as service:
        yield service


def post(
    running: Running, form: dict[str, str], origin: str | None = SITE_ORIGIN
) -> httpx.Response:
    headers = {"Origin": origin} if origin else {}
    return httpx.post(f"{running.url}/signup", data=form, headers=headers)


def form(running: Running, address: str = ADDRESS, **options: str | None) -> dict[str, str]:
    return sign_up_form(address, running.service.config.statement.sha256, **options)  # type: ignore[arg-type]


def nothing_stored(running: Running) -> None:
    for table in ("readers", "consent_events", "outbox", "announcements", "erasures"):
        assert count(running.db, table) == 0, f"{table} has rows"


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("not-an-address", "That address cannot be used"),
        ("a" * 250 + "@example.org", "at most 254 characters"),
        ("ada@example.org\r\nBcc: eve@example.org", "one line"),
        ("ada@example.org\nSubject: hello", "one line"),
        ("", "write your email address"),
        ("é@example.com", "cannot reach an address with &#39;é&#39; before the @-sign"),
        ("=?utf-8?q?a?=@example.com", "it looks like an encoded word"),
    ],
    ids=["invalid", "too-long", "crlf-header", "lf-header", "empty", "non-ascii", "encoded"],
)
def test_a_bad_address_is_refused_and_nothing_kept(running: Running, address: str, reason: str):
    answer = post(running, form(running, address))
    assert answer.status_code == 400
    assert reason in answer.text and "Nothing was kept" in answer.text
    nothing_stored(running)
    time.sleep(0.3)
    assert running.mailbox.messages == []


def test_markup_in_an_address_comes_back_escaped(running: Running) -> None:
    answer = post(running, form(running, "<script>alert(1)</script>@example.org"))
    assert answer.status_code == 400
    assert "<script>" not in answer.text
    nothing_stored(running)


def test_without_consent_nothing_is_kept(running: Running) -> None:
    answer = post(running, form(running, consent=None))
    assert answer.status_code == 400 and "Tick the box" in answer.text
    nothing_stored(running)


def test_a_form_with_an_old_statement_is_refused(running: Running) -> None:
    stale = sign_up_form(ADDRESS, "0" * 64)
    answer = post(running, stale)
    assert answer.status_code == 409 and "out of date" in answer.text
    nothing_stored(running)


def test_the_honeypot_is_thanked_and_forgotten(running: Running) -> None:
    answer = post(running, form(running, honeypot="https://spam.example"))
    assert answer.status_code == 303
    nothing_stored(running)


@pytest.mark.parametrize("origin", ["https://evil.example", None, "null"])
def test_a_post_from_elsewhere_is_refused(running: Running, origin: str | None) -> None:
    answer = post(running, form(running), origin=origin)
    assert answer.status_code == 403 and "another site" in answer.text
    nothing_stored(running)


def test_an_oversized_body_is_refused(running: Running) -> None:
    answer = post(running, {**form(running), "padding": "x" * 5000})
    assert answer.status_code == 413
    nothing_stored(running)


def test_a_body_cut_short_is_a_400_in_one_log_line(
    running: Running, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    statement = running.service.config.statement.sha256
    body = f"email=ada%40example.org&consent=yes&statement={statement}"
    head = (
        "POST /signup HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Origin: {SITE_ORIGIN}\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        f"Content-Length: {len(body) + 100}\r\n\r\n"
    )
    host, port = running.url.removeprefix("http://").split(":")
    # The requests' log lines are waited for as the service logs them, and what it wrote
    # is read once, at the end: a capture read while another thread writes may lose a line.
    paths: list[str] = []
    logged_by_guards = guards.log

    def noted(event: str, level: str = "info", **fields: object) -> None:
        logged_by_guards(event, level, **fields)
        paths.append(str(fields.get("path")))

    monkeypatch.setattr(guards, "log", noted)
    capfd.readouterr()
    for half in (True, False):  # the client stops writing, or hangs up
        with socket.create_connection((host, int(port)), timeout=10) as client:
            client.sendall((head + body).encode())
            if half:
                client.shutdown(socket.SHUT_WR)
                client.recv(4096)
    deadline = time.monotonic() + 10
    while paths.count("/signup") < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    httpx.get(f"{running.url}/healthz")  # served after whatever the server had to say
    while "/healthz" not in paths and time.monotonic() < deadline:
        time.sleep(0.05)
    logged = capfd.readouterr().err
    assert "Traceback" not in logged
    logs = [json.loads(line) for line in logged.splitlines()]  # one JSON object a line
    requests = [(r["status"], r.get("note")) for r in logs if r.get("path") == "/signup"]
    assert requests == [(400, "the body ended before its Content-Length")] * 2
    assert [r["event"] for r in logs if r.get("path") != "/healthz"] == ["request"] * 2
    nothing_stored(running)


def test_a_flood_from_one_client_is_stopped(running: Running) -> None:
    answers = [post(running, form(running, f"reader{i}@example.org")) for i in range(8)]
    statuses = [a.status_code for a in answers]
    assert statuses == [303] * FLOOD_LIMIT + [429] * 3
    assert int(answers[-1].headers["retry-after"]) > 0
    assert "Too many" in answers[-1].text
    assert count(running.db, "readers") == FLOOD_LIMIT
    buckets = rows(running.db, "SELECT bucket FROM rate_limits")
    assert all("127.0.0" not in bucket for (bucket,) in buckets), "no IP address is stored"


def test_one_address_gets_at_most_its_emails_a_day(running: Running) -> None:
    answers = [post(running, form(running)) for _ in range(4)]
    assert {a.status_code for a in answers} == {303}
    assert count(running.db, "readers") == 1
    assert count(running.db, "outbox") == 3


def confirm_link(running: Running) -> str:
    assert post(running, form(running)).status_code == 303
    return link(running.mailbox.wait_for(ADDRESS)[0], "confirm")


def test_a_tampered_link_does_not_work(running: Running) -> None:
    confirm = confirm_link(running)
    body, mac = token(confirm).split(".")
    forged = f"{body[:-2]}{'A' if body[-2] != 'A' else 'B'}{body[-1]}.{mac}"
    for bad in (forged, f"{body}.{mac[::-1]}", "nonsense", f"{body}."):
        answer = httpx.post(
            f"{running.url}/confirm", data={"t": bad}, headers={"Origin": running.url}
        )
        assert answer.status_code == 400, bad
        assert "does not work" in answer.text
    assert rows(running.db, "SELECT state FROM readers") == [("pending",)]


def test_an_expired_link_does_not_work(running: Running) -> None:
    confirm = confirm_link(running)
    readers = running.service.readers
    readers.clock = lambda: time.time() + 8 * 86_400
    try:
        answer = httpx.get(confirm)
        assert answer.status_code == 410 and "expired" in answer.text
        posted = httpx.post(
            f"{running.url}/confirm", data={"t": token(confirm)}, headers={"Origin": running.url}
        )
        assert posted.status_code == 410
    finally:
        readers.clock = time.time
    assert rows(running.db, "SELECT state FROM readers") == [("pending",)]


def test_a_confirmation_replayed_changes_nothing(running: Running) -> None:
    confirm = confirm_link(running)
    data, headers = {"t": token(confirm)}, {"Origin": running.url}
    assert httpx.post(f"{running.url}/confirm", data=data, headers=headers).status_code == 200
    again = httpx.post(f"{running.url}/confirm", data=data, headers=headers)
    assert again.status_code == 410 and "used already" in again.text
    events = rows(running.db, "SELECT event FROM consent_events ORDER BY id")
    assert events == [("asked",), ("confirmed",)]


def test_an_unsubscribe_link_cannot_confirm(running: Running) -> None:
    post(running, form(running))
    unsubscribe = link(running.mailbox.wait_for(ADDRESS)[0], "unsubscribe")
    answer = httpx.post(
        f"{running.url}/confirm", data={"t": token(unsubscribe)}, headers={"Origin": running.url}
    )
    assert answer.status_code == 400 and "not for this page" in answer.text
    assert rows(running.db, "SELECT state FROM readers") == [("pending",)]


def test_unknown_pages_and_methods_are_pages_too(running: Running) -> None:
    missing = httpx.get(f"{running.url}/nothing-here")
    assert missing.status_code == 404 and "<h1>Not found</h1>" in missing.text
    assert httpx.get(f"{running.url}/signup").status_code == 405
    assert "default-src 'none'" in missing.headers["content-security-policy"]
