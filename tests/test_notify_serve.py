"""`sourcebook serve` runs the sign-up service beside the local site: the local build's form
posts to it, and its emails are written as files into the record's own folder."""

from __future__ import annotations

import email
import email.policy
import time
from pathlib import Path

import httpx
import pytest
from site_fixtures import SETTINGS, page, write_record

from sourcebook.live import LiveSite
from sourcebook.notify.local import LocalService

NOTIFY = (
    '\n[notify]\nurl = "https://notify.dryburgh.com"\nsender = "DRYBURGH <news@dryburgh.com>"\n'
)


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("SOURCEBOOK_NOTIFY_SECRET", raising=False)
    return write_record(tmp_path / "record", settings=SETTINGS + NOTIFY)


def test_the_local_form_posts_to_the_local_service(record: Path) -> None:
    service = LocalService.for_record(record, "127.0.0.1", 8000)
    assert service is not None
    service.start()
    live = LiveSite(record, notify_url=service.url)
    try:
        live.rebuild()
        assert not live.broken, live.failure
        home = page(live.site, "/vol1/")
        assert f'action="{service.url}/signup"' in home
        assert f"form-action 'self' {service.url}" in home
        statement = service._server.service.config.statement.sha256
        answer = httpx.post(
            f"{service.url}/signup",
            data={"email": "ada@example.org", "consent": "yes", "statement": statement},
            headers={"Origin": "http://localhost:8000"},
        )
        assert answer.status_code == 303
        deadline = time.monotonic() + 10
        while not list(service.mail.glob("*.eml")) and time.monotonic() < deadline:
            time.sleep(0.05)
        (written,) = service.mail.glob("*.eml")
        message = email.message_from_bytes(written.read_bytes(), policy=email.policy.default)
        assert message["To"] == "ada@example.org"
        assert f"{service.url}/confirm?t=" in message.get_body(("plain",)).get_content()
        assert (record / ".sourcebook-notify" / "dev.sqlite3").is_file()
    finally:
        live.close()
        service.stop()


def test_a_record_without_a_service_has_no_form(tmp_path: Path) -> None:
    record = write_record(tmp_path / "record")
    assert LocalService.for_record(record, "127.0.0.1", 8000) is None
    live = LiveSite(record)
    try:
        live.rebuild()
        home = page(live.site, "/vol1/")
        assert 'id="notify"' not in home and "form-action 'self'\">" in home
        assert "this site keeps nothing about you" in page(live.site, "/vol1/consent")
    finally:
        live.close()
