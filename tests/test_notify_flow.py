"""A reader's whole way through the service, over HTTP and real SMTP, on both databases:
sign up, confirm, sign up again, see the data, unsubscribe in one click, be erased."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from notify_fixtures import (
    SITE_ORIGIN,
    Running,
    Smtp,
    link,
    one_click_link,
    rows,
    running_service,
    sign_up_form,
    token,
)

ADDRESS = "ada@example.org"


@pytest.fixture
def running(tmp_path: Path, db_target: str, smtp: Smtp) -> Iterator[Running]:
    with running_service(tmp_path / "record", db_target, smtp) as service:
        yield service


def sign_up(running: Running, address: str = ADDRESS) -> httpx.Response:
    statement = running.service.config.statement.sha256
    return httpx.post(
        f"{running.url}/signup",
        data=sign_up_form(address, statement),
        headers={"Origin": SITE_ORIGIN},
    )


def test_a_reader_signs_up_confirms_and_leaves(running: Running) -> None:
    answer = sign_up(running)
    assert answer.status_code == 303
    assert answer.headers["location"] == f"{running.url}/signed-up"
    db = running.db
    assert rows(db, "SELECT address, state FROM readers") == [(ADDRESS, "pending")]
    statement = running.service.config.statement
    assert rows(db, "SELECT event, statement_version, statement_sha256, method FROM consent_events")
    assert rows(db, "SELECT event, statement_sha256, method FROM consent_events") == [
        ("asked", statement.sha256, "form")
    ]

    message = running.mailbox.wait_for(ADDRESS)[0]
    assert message["Subject"] == "Confirm: tell me when The AI Compute Race is out"
    assert message["From"] == "DRYBURGH <news@dryburgh.test>"
    unsubscribe = one_click_link(running.mailbox.raw_to(ADDRESS)[0])
    assert unsubscribe == link(message, "unsubscribe")

    confirm = link(message, "confirm")
    shown = httpx.get(confirm)
    assert shown.status_code == 200 and "Confirm</button>" in shown.text
    assert rows(db, "SELECT state FROM readers") == [("pending",)], "a GET confirms nobody"
    done = httpx.post(
        f"{running.url}/confirm", data={"t": token(confirm)}, headers={"Origin": running.url}
    )
    assert done.status_code == 200 and "Confirmed" in done.text
    assert rows(db, "SELECT state FROM readers") == [("confirmed",)]
    events = rows(db, "SELECT event, method FROM consent_events ORDER BY id")
    assert events == [("asked", "form"), ("confirmed", "link")]

    # One click from the mail provider: a POST without an Origin, the token in the URL.
    left = httpx.post(unsubscribe, data={"List-Unsubscribe": "One-Click"})
    assert left.status_code == 200 and "Unsubscribed" in left.text
    assert rows(db, "SELECT address, state FROM readers") == [(None, "unsubscribed")]
    assert rows(db, "SELECT event, method FROM consent_events ORDER BY id")[-1] == (
        "unsubscribed",
        "one-click",
    )


def test_signing_up_again_says_the_same_and_mails_the_links(running: Running) -> None:
    first, second = sign_up(running), sign_up(running)
    assert (first.status_code, first.headers["location"]) == (
        second.status_code,
        second.headers["location"],
    )
    confirm = link(running.mailbox.wait_for(ADDRESS, 2)[-1], "confirm")
    httpx.post(
        f"{running.url}/confirm", data={"t": token(confirm)}, headers={"Origin": running.url}
    )
    third = sign_up(running)
    assert (third.status_code, third.headers["location"]) == (
        first.status_code,
        first.headers["location"],
    )
    already = running.mailbox.wait_for(ADDRESS, 3)[-1]
    assert already["Subject"] == "You are on the list for The AI Compute Race"
    assert rows(running.db, "SELECT count(*) FROM readers") == [(1,)]


def test_an_accepted_address_arrives_as_it_was_typed(running: Running) -> None:
    typed_and_sent = {
        "Ada@Bücher.DE": "Ada@xn--bcher-kva.de",
        "o'brien+{news}@example.org": "o'brien+{news}@example.org",
        "x=?y?=z@example.org": "x=?y?=z@example.org",
    }
    for typed, sent in typed_and_sent.items():
        assert sign_up(running, typed).status_code == 303
        message = running.mailbox.wait_for(sent)[0]
        assert message["To"].addresses[0].addr_spec == sent
        assert len(running.mailbox.raw_to(sent)) == 1, "the envelope names it as written"
    kept = {address for (address,) in rows(running.db, "SELECT address FROM readers")}
    assert kept == {"Ada@bücher.de", *list(typed_and_sent.values())[1:]}


def test_the_data_link_shows_everything_and_erases_it(running: Running) -> None:
    sign_up(running)
    message = running.mailbox.wait_for(ADDRESS)[0]
    data = link(message, "data")
    page = httpx.get(data)
    assert page.status_code == 200
    assert ADDRESS in page.text and "asked" in page.text
    assert running.service.config.statement.sha256 in page.text
    erased = httpx.post(
        f"{running.url}/erase", data={"t": token(data)}, headers={"Origin": running.url}
    )
    assert erased.status_code == 200 and "Erased" in erased.text
    db = running.db
    for table in ("readers", "consent_events", "outbox"):
        assert rows(db, f"SELECT count(*) FROM {table}") == [(0,)], table
    hashes = rows(db, "SELECT address_hash FROM erasures")
    assert len(hashes) == 1 and ADDRESS not in hashes[0][0]
    assert httpx.get(data).status_code == 410


def test_health(running: Running) -> None:
    answer = httpx.get(f"{running.url}/healthz")
    assert answer.status_code == 200 and answer.json() == {"ok": True, "schema": 1}
    assert "default-src 'none'" in answer.headers["content-security-policy"]


def test_health_and_answers_say_when_the_database_is_away(
    running: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    def away(*args: object) -> None:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(running.service, "health", away)
    monkeypatch.setattr(running.service.readers, "sign_up", away)
    assert httpx.get(f"{running.url}/healthz").status_code == 503
    answer = sign_up(running)
    assert answer.status_code == 503 and "Nothing was lost" in answer.text
    assert answer.headers["retry-after"] == "30"
