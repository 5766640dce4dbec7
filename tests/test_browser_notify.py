"""The sign-up form as a reader uses it, in headless Chromium, with JavaScript and without:
from the built site's footer to the form, the email, the confirmation, the unsubscribe."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from notify_fixtures import SECRET, Smtp, link, rows
from site_fixtures import ARTIFACTS, SETTINGS, build, write_record

pytestmark = pytest.mark.browser


@dataclass
class Site:
    origin: str
    service: Any


@pytest.fixture
def site(
    tmp_path: Path, db_target: str, smtp: Smtp, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Site]:
    from sourcebook.notify.server import InThread, bound_socket
    from sourcebook.notify.service import Service
    from sourcebook.notify.setup import open_migrated, record_settings, service_config
    from sourcebook.publish.site.serving.serve import make_server

    sock = bound_socket("127.0.0.1", 0)
    notify_url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    static = make_server(tmp_path / "site", "127.0.0.1", 0, "/vol1")
    settings = SETTINGS.replace('https://dryburgh.com"\nbase_path', f'{static.url}"\nbase_path')
    settings += (
        f'\n[notify]\nurl = "{notify_url}"\nsender = "DRYBURGH <news@dryburgh.test>"\n'
        f'smtp_host = "127.0.0.1"\nsmtp_port = {smtp.port}\nsmtp_security = "none"\n'
    )
    record = write_record(tmp_path / "record", settings=settings)
    build(record, tmp_path / "site")
    monkeypatch.setenv("SOURCEBOOK_NOTIFY_SECRET", SECRET)
    db = open_migrated(db_target)
    service = InThread(
        Service(service_config(record, record_settings(record), dev=False), db), sock
    )
    service.start()
    threading.Thread(target=static.serve_forever, daemon=True).start()
    try:
        yield Site(static.url, service.service)
    finally:
        static.shutdown()
        static.server_close()
        service.stop()
        db.close()


@pytest.mark.parametrize("javascript", [True, False], ids=["javascript", "no-javascript"])
def test_a_reader_signs_up_confirms_and_unsubscribes(
    browser: Any, site: Site, smtp: Smtp, javascript: bool
) -> None:
    address = f"reader-{'js' if javascript else 'nojs'}@example.org"
    context = browser.new_context(java_script_enabled=javascript)
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: m.type == "error" and problems.append(m.text))
    page.on("pageerror", lambda error: problems.append(str(error)))

    page.goto(f"{site.origin}/vol1/glossary/cluster")
    page.get_by_role("link", name="Tell me when it is out").click()
    assert page.url == f"{site.origin}/vol1/#notify"
    page.get_by_label("Your email address").fill(address)
    page.get_by_label("Email me once").check()
    page.screenshot(path=str(ARTIFACTS / f"notify-form-{'js' if javascript else 'nojs'}.png"))
    page.get_by_role("button", name="Tell me").click()
    if javascript:  # sent from the page, which stays where it is and says so
        page.wait_for_selector(".notify-status:text-matches('^Sent\\.')")
        assert page.url == f"{site.origin}/vol1/#notify"
    else:
        page.wait_for_selector("h1:text-is('Check your inbox')")
        assert page.url == f"{site.service.config.service_url}/signed-up"

    message = smtp.mailbox.wait_for(address)[0]
    page.goto(link(message, "confirm"))
    page.get_by_role("button", name="Confirm").click()
    page.wait_for_selector("h1:text-is('Confirmed')")
    db = site.service.db
    assert rows(db, "SELECT state FROM readers WHERE address = ?", (address,)) == [("confirmed",)]

    page.goto(link(message, "unsubscribe"))
    page.get_by_role("button", name="Unsubscribe").click()
    page.wait_for_selector("h1:text-is('Unsubscribed')")
    page.get_by_role("link", name="Back to The AI Compute Race").click()
    assert page.url == f"{site.origin}/vol1/"
    events = rows(db, "SELECT event, method FROM consent_events ORDER BY id")
    assert events == [("asked", "form"), ("confirmed", "link"), ("unsubscribed", "link")]
    assert rows(db, "SELECT address, state FROM readers") == [(None, "unsubscribed")]
    assert problems == [], "no error and no refusal by the content security policy"
    context.close()


def test_the_consent_page_says_what_the_service_keeps(browser: Any, site: Site) -> None:
    from sourcebook.notify.policy import STORED

    page = browser.new_page()
    page.goto(f"{site.origin}/vol1/consent")
    statement = site.service.config.statement
    assert page.locator("blockquote").inner_text() == statement.text
    assert statement.sha256 in page.locator("main").inner_text()
    for table in STORED:
        shown = page.locator(f"#kept-{table.name} + p + .table-wrap td code").all_inner_texts()
        assert shown == [column.name for column in table.columns]
    page.screenshot(path=str(ARTIFACTS / "notify-consent.png"), full_page=True)
    page.close()


@pytest.fixture(scope="module")
def unanswered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A site whose sign-up service is configured but not running: its port is free."""
    import socket

    from site_fixtures import serving

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = SETTINGS + f'\n[notify]\nurl = "http://127.0.0.1:{port}"\n'
    root = tmp_path_factory.mktemp("unanswered")
    site = build(write_record(root / "record", settings=settings), root / "site")
    with serving(site) as origin:
        yield origin


@pytest.mark.parametrize("width", [1280, 390])
def test_with_no_service_answering_the_reader_is_told_and_keeps_what_they_typed(
    browser: Any, unanswered: str, width: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    page.goto(f"{unanswered}/vol1/#notify")
    page.get_by_label("Your email address").fill("reader@example.org")
    page.get_by_label("Email me once").check()
    page.get_by_role("button", name="Tell me").click()
    status = page.locator(".notify-status")
    status.filter(has_text="cannot be reached").wait_for()
    assert "nothing was sent" in status.inner_text()
    assert page.url == f"{unanswered}/vol1/#notify"  # no browser error page
    assert page.get_by_label("Your email address").input_value() == "reader@example.org"
    assert page.get_by_label("Email me once").is_checked()
    assert page.get_by_role("button", name="Tell me").is_enabled()  # to try again
    label = page.locator("label[for=notify-consent]").bounding_box()
    box = page.locator("#notify-consent").bounding_box()
    assert label["x"] <= box["x"] and box["y"] <= label["y"] + label["height"]  # side by side
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#notify").screenshot(path=str(ARTIFACTS / f"notify-unanswered-{width}.png"))
    context.close()


def test_without_javascript_the_form_posts_to_the_service_only_where_one_is_set(
    browser: Any, unanswered: str, tmp_path: Path
) -> None:
    from site_fixtures import serving

    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{unanswered}/vol1/")
    form = page.locator("form.notify-form")
    assert form.get_attribute("action").endswith("/signup")
    assert form.get_attribute("method") == "post"
    assert not page.locator(".notify-consent").inner_text().rstrip().endswith(" .")
    site = build(write_record(tmp_path / "record"), tmp_path / "site")  # no [notify]
    with serving(site) as origin:
        page.goto(f"{origin}/vol1/")
        assert page.locator("form.notify-form").count() == 0
        assert page.locator("#notify").count() == 0
    context.close()
