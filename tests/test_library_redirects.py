"""Fetching stays where the author pointed: `library add` (and `library.fetch`, which
whatever visits sources later calls) follows a redirect within the origin it was given,
and refuses, on one line, one that leads to another origin at a loopback, private or
otherwise special address, or to another scheme.

Every server is on 127.0.0.1: the author's own (whose address must still work), and an
"internal" one on another port that no refused redirect may reach.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from library_server import Server, add, reply, serving, snapshot

from sourcebook.library import fetch as fetching
from sourcebook.library.fetch import Budget, FetchError, Validators, fetch
from sourcebook.library.origins import special

SOURCE = "---\ntitle: A page\ncategory: press\n---\n"
PAGE = b"<!doctype html><html><head><title>Plain</title></head><body><p>Plain.</p></body></html>"
SECRET = b"<!doctype html><title>Internal</title><p>The internal answer.</p>"


@pytest.fixture
def record(make_record) -> Path:
    return make_record({"sources/a-page.md": SOURCE})


@pytest.fixture(scope="module")
def internal() -> Iterator[Server]:
    """A server no refused redirect may reach: it counts every request."""
    with serving() as started:
        started.route("/secret", reply(SECRET))
        yield started


def moved_to(location: str, status: int = 302) -> Any:
    def answer(handler) -> None:
        handler.send_response(status)
        handler.send_header("Location", location)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return answer


def add_around(record: Path, *args: str):
    """`library add ARGS` on `record`, the folder around it compared before and after."""
    around = record.parent
    before = snapshot(around)
    run = add(*args, "--record", str(record))
    return run, snapshot(around) == before


def _port(server: Server) -> int:
    return int(server.url.rsplit(":", 1)[1])


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1:{port}",
        "localhost:{port}",
        "0.0.0.0:{port}",
        "2130706433:{port}",
        "0x7f000001:{port}",
        "127.1:{port}",
        "[::ffff:127.0.0.1]:{port}",
    ],
)
def test_a_redirect_to_another_origin_at_an_internal_address_is_refused(
    server, internal, record, host
) -> None:
    location = "http://" + host.format(port=_port(internal)) + "/secret"
    path = f"/away-{abs(hash(host))}"
    url = server.route(path, moved_to(location))
    requests = len(internal.seen)
    run, unchanged = add_around(record, url)
    assert run.returncode == 1, run.stdout
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error Q103 "), run.stderr
    assert "not followed" in lines[0]
    assert "Traceback" not in run.stderr
    assert len(internal.seen) == requests, "the internal server was reached"
    assert unchanged, "the refused run changed the folder around the record"


def test_a_redirect_carrying_a_user_name_is_refused(server, internal, record) -> None:
    own = _port(server)
    location = f"http://127.0.0.1:{own}@127.0.0.1:{_port(internal)}/secret"
    url = server.route("/away-user", moved_to(location))
    requests = len(internal.seen)
    run, unchanged = add_around(record, url)
    assert run.returncode == 1
    assert run.stderr.startswith("error Q103 ") and "user name" in run.stderr
    assert len(run.stderr.splitlines()) == 1
    assert len(internal.seen) == requests and unchanged


def test_a_redirect_to_another_scheme_is_refused(server, record) -> None:
    own = _port(server)
    url = server.route("/to-https", moved_to(f"https://127.0.0.1:{own}/plain.html"))
    run, unchanged = add_around(record, url)
    assert run.returncode == 1
    assert run.stderr.startswith("error Q103 ") and "a loopback address" in run.stderr
    assert unchanged
    url = server.route("/to-ftp", moved_to(f"ftp://127.0.0.1:{own}/plain.html"))
    run, unchanged = add_around(record, url)
    assert run.stderr.startswith("error Q103 ") and "redirected to a ftp: address" in run.stderr
    assert unchanged


def test_a_redirect_within_the_origin_given_is_followed(server, record) -> None:
    server.route("/plain.html", reply(PAGE))
    url = server.route("/here", moved_to(f"{server.url}/plain.html", status=301))
    run = add(url, "--record", str(record), "--source", "a-page")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("S1 added: html, plain.html")
    held = (record / "library" / "S1.yaml").read_text(encoding="utf-8")
    assert f"url: {server.url}/plain.html" in held


def test_the_authors_own_internal_address_is_fetched_as_given(internal, record) -> None:
    run = add(f"http://localhost:{_port(internal)}/secret", "--record", str(record))
    assert run.returncode == 0, run.stderr
    assert "S1 added: html" in run.stdout
    assert (record / "library" / "S1.txt").read_text(encoding="utf-8").strip() == (
        "The internal answer."
    )


# -- the function itself, as whatever visits sources later calls it ----------------------


class Resolver:
    """Answers from a table, counting the questions."""

    def __init__(self, table: dict[str, list[list[str]]]):
        self.table = table
        self.asked: list[str] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.asked.append(host)
        answers = self.table[host]
        return list(answers.pop(0) if len(answers) > 1 else answers[0])


def test_a_name_is_resolved_once_and_connected_to_where_it_resolved(server) -> None:
    """DNS rebinding: the second answer for the same name would be elsewhere; the fetch
    keeps to the address it resolved first, sending the name as the Host."""
    server.route("/pinned.html", reply(PAGE))
    server.route("/pin-start", moved_to("/pinned.html"))
    resolver = Resolver({"rebind.test": [["127.0.0.1"], ["192.0.2.1"]]})
    seen = len(server.seen)
    url = f"http://rebind.test:{_port(server)}/pin-start"
    fetched = fetch(url, Budget(seconds=10), resolve=resolver)
    assert fetched.status == 200 and fetched.body == PAGE
    assert resolver.asked == ["rebind.test"]
    assert fetched.url == f"http://rebind.test:{_port(server)}/pinned.html"
    assert fetched.redirects == (url,)
    hosts = [host for _path, host in server.seen[seen:]]
    assert hosts == [f"rebind.test:{_port(server)}"] * 2


@pytest.mark.parametrize(
    "addresses", [["127.0.0.1"], ["10.1.2.3"], ["93.184.216.34", "169.254.169.254"]]
)
def test_another_origin_is_judged_by_every_address_its_name_resolves_to(
    server, internal, addresses
) -> None:
    target = f"http://elsewhere.test:{_port(internal)}/secret"
    url = server.route(f"/to-name-{len(addresses)}-{addresses[-1]}", moved_to(target))
    resolver = Resolver({"127.0.0.1": [["127.0.0.1"]], "elsewhere.test": [addresses]})
    requests = len(internal.seen)
    with pytest.raises(FetchError) as refused:
        fetch(url, Budget(seconds=10), resolve=resolver)
    assert refused.value.code == "Q103"
    assert f"whose host is {addresses[-1]}" in str(refused.value)
    assert len(internal.seen) == requests


def test_another_origin_at_a_public_address_is_followed_and_pinned(
    server, internal, monkeypatch
) -> None:
    """Here 127.0.0.1 stands for a public address (the tests reach nothing else)."""
    monkeypatch.setattr(fetching, "special", lambda address: None)
    target = f"http://public.test:{_port(internal)}/secret"
    url = server.route("/to-public", moved_to(target))
    resolver = Resolver({"127.0.0.1": [["127.0.0.1"]], "public.test": [["127.0.0.1"]]})
    fetched = fetch(url, Budget(seconds=10), resolve=resolver)
    assert fetched.body == SECRET and fetched.url == target
    assert internal.seen[-1] == ("/secret", f"public.test:{_port(internal)}")


def test_a_conditional_fetch_of_an_unchanged_page_is_a_304(server) -> None:
    def versioned(handler) -> None:
        if handler.headers.get("If-None-Match") == '"v1"':
            handler.send_response(304)
            handler.send_header("ETag", '"v1"')
            handler.end_headers()
            return
        reply(PAGE, ETag='"v1"', Last_Modified="Sat, 07 Nov 2026 10:00:00 GMT")(handler)

    url = server.route("/versioned.html", versioned)
    first = fetch(url, Budget(seconds=10))
    assert first.status == 200 and not first.unchanged
    assert first.validators == Validators('"v1"', "Sat, 07 Nov 2026 10:00:00 GMT")
    again = fetch(url, Budget(seconds=10), since=first.validators)
    assert again.unchanged and again.body == b""
    assert ("If-None-Match", '"v1"') in [(k.title(), v) for k, v in again.request.headers]


def test_an_answer_of_any_status_is_returned_to_the_caller(server) -> None:
    url = server.route("/gone.html", reply(b"gone", status=410))
    fetched = fetch(url, Budget(seconds=10))
    assert fetched.status == 410 and fetched.body == b"gone"


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("0.0.0.0", "unspecified"),
        ("10.0.0.1", "private"),
        ("172.16.5.4", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("fc00::1", "private"),
        ("100.64.0.1", "special-purpose"),
        ("224.0.0.1", "multicast"),
        ("::ffff:127.0.0.1", "loopback"),
        ("2002:7f00:1::", "loopback"),
        ("240.0.0.1", "reserved"),
    ],
)
def test_special_addresses_are_named(address: str, reason: str) -> None:
    assert reason in (special(address) or "")


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111"])
def test_public_addresses_are_not_special(address: str) -> None:
    assert special(address) is None
