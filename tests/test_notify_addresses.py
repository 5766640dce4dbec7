"""One function decides which addresses the form accepts and which the sender can send to;
fuzzed, every address it accepts is written into an email and an SMTP envelope that read
back as that address, and every one it refuses is refused in one line a reader can act on."""

from __future__ import annotations

import email
import email.policy
import smtplib
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from notify_fixtures import Mailbox, Smtp, make_service

from sourcebook.notify.addresses import InvalidAddress, Recipient, deliverable
from sourcebook.notify.mail import Letter, Links, compose

ATEXT = "abcxyzABCXYZ0189!#$%&'*+-/=?^_`{|}~."
DOMAINS = ["example.org", "bücher.de", "mail.example.co.uk", "x" * 63 + ".example.org"]

local_parts = st.one_of(
    st.text(st.sampled_from(ATEXT), min_size=1, max_size=70),
    st.text(st.sampled_from(ATEXT) | st.characters(codec="utf-8"), min_size=1, max_size=20),
    st.builds(
        lambda charset, encoding, text, rest: f"=?{charset}?{encoding}?{text}?={rest}",
        st.sampled_from(["utf-8", "iso-8859-1", "x", ""]),
        st.sampled_from("qQbBx"),
        st.text(st.sampled_from(ATEXT), max_size=8),
        st.text(st.sampled_from(ATEXT), max_size=4),
    ),
)
typed = st.one_of(
    st.emails(),
    st.builds(lambda local, domain: f"{local}@{domain}", local_parts, st.sampled_from(DOMAINS)),
    st.text(max_size=40),
)


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The configuration every fuzzed email is composed with (no database is touched)."""
    from sourcebook.notify.setup import open_migrated

    folder = tmp_path_factory.mktemp("addresses")
    database = open_migrated(str(folder / "notify.sqlite3"))
    try:
        return make_service(folder / "record", database, Smtp(2525, Mailbox())).config
    finally:
        database.close()


def composed(recipient: Recipient, config: Any) -> bytes:
    """The email to `recipient` as the sender composes it, in the bytes SMTP carries."""
    links = Links("https://n.example/confirm?t=a", "https://n.example/unsubscribe?t=b", "")
    letter = Letter("confirm", recipient.ascii, "<1.tag@dryburgh.test>", links, 1_800_000_000)
    message = compose(letter, config)
    return message.as_bytes(policy=message.policy.clone(linesep="\r\n"))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=typed)
def test_what_the_form_accepts_the_sender_can_send(text: str, config: Any) -> None:
    try:
        recipient = deliverable(text)
    except InvalidAddress as refused:
        event("refused")
        reason = str(refused)
        assert reason and "\n" not in reason, "a refusal is one line a reader can act on"
        return
    event("accepted")
    assert deliverable(recipient.address) == recipient, "the kept address is accepted again"
    assert recipient.ascii.isascii()
    assert smtplib.quoteaddr(recipient.ascii) == f"<{recipient.ascii}>"
    raw = composed(recipient, config)
    assert raw.isascii(), "the email needs no SMTPUTF8"
    read = email.message_from_bytes(raw, policy=email.policy.default)
    assert [found.addr_spec for found in read["To"].addresses] == [recipient.ascii]
    assert not read["To"].defects


@pytest.mark.parametrize(
    ("typed", "kept", "sent"),
    [
        ("Ada@Example.ORG", "Ada@example.org", "Ada@example.org"),
        ("ada@bücher.de", "ada@bücher.de", "ada@xn--bcher-kva.de"),
        ("o'brien+news@example.org", "o'brien+news@example.org", "o'brien+news@example.org"),
        ("x=?y?=z@example.org", "x=?y?=z@example.org", "x=?y?=z@example.org"),
    ],
)
def test_an_address_is_kept_as_typed_and_sent_in_ascii(typed: str, kept: str, sent: str) -> None:
    assert deliverable(typed) == Recipient(kept, sent)


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("é@example.com", "cannot reach an address with 'é' before the @-sign"),
        ("ÀÉ@exämple.com", "'À', 'É' before the @-sign"),
        ("=?utf-8?q?a?=@example.com", "encoded word"),
        ("=?utf-8?b?YQ==?=@example.org", "encoded word"),
        ("=?x?q?a?=.b@example.com", "encoded word"),
    ],
)
def test_an_address_the_sender_cannot_write_is_refused(typed: str, reason: str) -> None:
    with pytest.raises(InvalidAddress, match=reason.replace("?", r"\?")):
        deliverable(typed)
