"""`sourcebook watch` against servers on 127.0.0.1, and what check makes of its log.

One record cites a page of every kind a watch meets: one that answers (and answers 304 to
a conditional request), ones that die (404, 410, 500, a refused connection, a time-out, a
host that drips bytes), move (a 301, a chain of 308 and 301, a loop), soft-die (a parked
domain, a login wall, a not-found page), change under a quote, redirect to another origin
on a loopback address (refused), and one robots.txt forbids. It is watched twice, four
days apart, and each verdict is read where an author reads it: in check's warnings at
the source's address, and in the log.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest
from library_server import Server, reply, serving
from watch_fixtures import (
    FILLER,
    Cited,
    article,
    changing,
    check_json,
    diagnostics_of,
    log_of,
    redirect,
    watch,
    watched_record,
)

QUOTE = "the first hall was energized in the autumn"
PAGE = article("Campus opens", FILLER, "Power arrived late.")
REWRITTEN = article(
    "Campus opens",
    FILLER.replace("the first hall was energized in the autumn", "work went on"),
    "Power arrived late.",
)
PARKED = article("example.com", "This domain is for sale! Buy this domain today.")
NOT_FOUND = article("Page not found", "Sorry, the page you are looking for is not here.")
LOGIN = (
    b"<!doctype html><html><head><title>Sign in</title></head><body><main>"
    b"<h1>Please sign in to continue</h1><form><input type='email' name='e'>"
    b"<input type='password' name='p'></form></main></body></html>"
)
TIMEOUT = "1"
FIRST, SECOND = "2026-11-01", "2026-11-05"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _sleeping(handler) -> None:
    time.sleep(3)


def _dripping(handler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html")
    handler.send_header("Content-Length", "100000")
    handler.end_headers()
    for _ in range(60):
        handler.wfile.write(b"<")
        handler.wfile.flush()
        time.sleep(0.1)


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Server]]:
    with serving() as web, serving() as slow, serving() as drip, serving() as guarded:
        yield {"web": web, "slow": slow, "drip": drip, "guarded": guarded}


@pytest.fixture(scope="module")
def watched(servers, tmp_path_factory) -> Iterator[dict]:
    """The record watched twice, four days apart; what each watch and check said."""
    web, guarded = servers["web"], servers["guarded"]
    live, _ = changing([PAGE], etag=True)
    changed, turn = changing([PAGE, REWRITTEN])
    conditional: list[str | None] = []

    def counted(handler) -> None:
        conditional.append(handler.headers.get("If-None-Match"))
        live(handler)

    agents: list[str] = []

    def robots(handler) -> None:
        agents.append(handler.headers.get("User-Agent", ""))
        reply(b"User-agent: *\nDisallow: /private\n", "text/plain")(handler)

    routes = {
        "/live": counted,
        "/gone404": reply(b"gone", status=404),
        "/gone410": reply(b"gone", status=410),
        "/err500": reply(b"oops", status=500),
        "/old301": redirect("/new301"),
        "/new301": reply(PAGE),
        "/a308": redirect("/b308", 308),
        "/b308": redirect("/c308", 301),
        "/c308": reply(PAGE),
        "/loop1": redirect("/loop2", 302),
        "/loop2": redirect("/loop1", 302),
        "/parked": reply(PARKED),
        "/notfound": reply(NOT_FOUND),
        "/login": reply(LOGIN),
        "/changed": changed,
        "/away": redirect(f"http://localhost:{guarded.url.rsplit(':', 1)[1]}/x", 302),
    }
    for path, answer in routes.items():
        web.route(path, answer)
    servers["slow"].route("/slow", _sleeping)
    servers["drip"].route("/drip", _dripping)
    guarded.route("/robots.txt", robots)
    guarded.route("/private/page", reply(PAGE))
    guarded.route("/open", reply(PAGE))
    addresses = {
        "live": f"{web.url}/live",
        "gone-404": f"{web.url}/gone404",
        "gone-410": f"{web.url}/gone410",
        "error-500": f"{web.url}/err500",
        "no-connection": f"http://127.0.0.1:{_closed_port()}/page",
        "timed-out": f"{servers['slow'].url}/slow",
        "dripping": f"{servers['drip'].url}/drip",
        "moved": f"{web.url}/old301",
        "moved-twice": f"{web.url}/a308",
        "looping": f"{web.url}/loop1",
        "parked": f"{web.url}/parked",
        "not-found": f"{web.url}/notfound",
        "login": f"{web.url}/login",
        "changed": f"{web.url}/changed",
        "away": f"{web.url}/away",
        "forbidden": f"{guarded.url}/private/page",
        "allowed": f"{guarded.url}/open",
    }
    record = watched_record(
        tmp_path_factory.mktemp("watched") / "record",
        [Cited(source, url, PAGE, QUOTE) for source, url in addresses.items()],
    )
    args = ("--timeout", TIMEOUT, "--per-host", "2")
    started = time.monotonic()
    first = watch(record, "--day", FIRST, *args)
    first_seconds = time.monotonic() - started
    turn(1)
    second = watch(record, "--day", SECOND, *args)
    yield {
        "record": record,
        "first": first,
        "first_seconds": first_seconds,
        "second": second,
        "check": check_json(record),
        "conditional": conditional,
        "agents": agents,
        "addresses": addresses,
        "servers": servers,
    }


def _codes(watched: dict, source: str) -> list[str]:
    return sorted(d["code"] for d in diagnostics_of(watched["check"], source))


def test_both_watches_run_and_check_has_no_error(watched) -> None:
    assert watched["first"].returncode == 0, watched["first"].stderr
    assert watched["second"].returncode == 0, watched["second"].stderr
    assert watched["check"]["errors"] == 0
    assert "watched 17 of 17 addresses" in watched["second"].stdout


def test_a_page_that_answers_is_live_and_a_conditional_request_costs_a_304(watched) -> None:
    assert _codes(watched, "live") == []
    assert watched["conditional"] == [None, '"v0"']  # the second watch asked as of the first
    first, second = log_of(watched["record"], "live")
    assert first["status"] == 200 and second["status"] == 304
    assert second["sha256"] == first["sha256"]  # the page the first visit read
    assert second["quotes"] == [{"quote": QUOTE, "held": True}]


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("gone-404", "answered 404"),
        ("gone-410", "answered 410"),
        ("error-500", "answered 500"),
        ("no-connection", "gave no answer"),
        ("timed-out", "gave no answer"),
        ("dripping", "gave no answer"),
        ("looping", "gave no answer"),
    ],
)
def test_a_page_that_fails_on_two_visits_days_apart_is_dead(watched, source, said) -> None:
    [dead] = diagnostics_of(watched["check"], source)
    assert dead["code"] == "W001" and dead["severity"] == "warning"
    assert said in dead["message"]
    assert f"on 2 visits since {FIRST}, the last on {SECOND}" in dead["message"]
    assert dead["line"] == 5  # the source's urls line
    assert "Library's copy (S" in dead["hint"]


def test_time_outs_and_drips_are_cut_at_the_budget(watched) -> None:
    for source in ("timed-out", "dripping"):
        visit = log_of(watched["record"], source)[0]
        assert visit["failure"] == "no answer"
        assert "no whole answer within 1 seconds" in visit["note"]
    # both hosts wait at once, each for its one second; nothing waits for the drip to end
    assert watched["first_seconds"] < 30


def test_a_loop_is_no_answer(watched) -> None:
    visit = log_of(watched["record"], "looping")[0]
    assert "more than 10 redirects" in visit["note"]


def test_a_permanent_redirect_offers_the_new_address(watched) -> None:
    web = watched["servers"]["web"].url
    [moved] = diagnostics_of(watched["check"], "moved")
    assert moved["code"] == "W002"
    assert f"redirects permanently to {web}/new301" in moved["message"]
    assert moved["hint"] == f"write {web}/new301 in 'urls' in place of {web}/old301"
    [twice] = diagnostics_of(watched["check"], "moved-twice")
    assert f"to {web}/c308" in twice["message"]
    visit = log_of(watched["record"], "moved-twice")[-1]
    assert visit["redirects"] == [[f"{web}/a308", 308], [f"{web}/b308", 301]]
    assert visit["final"] == f"{web}/c308"


@pytest.mark.parametrize(
    ("source", "kind"),
    [("parked", "parked domain"), ("login", "login wall"), ("not-found", "not-found page")],
)
def test_a_page_that_answers_but_is_not_the_page_is_soft_dead(watched, source, kind) -> None:
    [soft] = diagnostics_of(watched["check"], source)
    assert soft["code"] == "W003"
    assert f"answers with a {kind}" in soft["message"]
    assert "% like the Library's copy" in soft["message"]
    assert log_of(watched["record"], source)[-1]["similarity"] < 0.3


def test_a_page_that_loses_a_quote_is_changed_since_the_day_it_lost_it(watched) -> None:
    [changed] = diagnostics_of(watched["check"], "changed")
    assert changed["code"] == "W004"
    assert f"gone since {SECOND}" in changed["message"]
    assert QUOTE in changed["message"]
    first, second = log_of(watched["record"], "changed")
    assert first["quotes"][0]["held"] is True and second["quotes"][0]["held"] is False
    # the quote still stands proved by the copy: no Q001
    assert not [d for d in watched["check"]["diagnostics"] if d["code"] == "Q001"]


def test_a_redirect_to_another_origin_on_a_loopback_address_is_refused(watched) -> None:
    [refused] = diagnostics_of(watched["check"], "away")
    assert refused["code"] == "W005"
    assert "loopback" in refused["message"]
    assert not [path for path, _host in watched["servers"]["guarded"].seen if path == "/x"]


def test_robots_txt_is_obeyed_and_asked_once_per_watch(watched) -> None:
    [forbidden] = diagnostics_of(watched["check"], "forbidden")
    assert forbidden["code"] == "W006"
    assert "robots.txt forbids it" in forbidden["message"]
    seen = [path for path, _host in watched["servers"]["guarded"].seen]
    assert "/private/page" not in seen
    assert seen.count("/robots.txt") == 2 and seen.count("/open") == 2
    assert _codes(watched, "allowed") == []


def test_the_user_agent_names_the_tool_and_the_site(watched) -> None:
    agent = watched["agents"][0]
    assert agent.startswith("sourcebook/")
    assert "+https://watched.example" in agent


def test_the_watch_prints_the_verdicts(watched) -> None:
    out = watched["second"].stdout
    for code in ("W001", "W002", "W003", "W004", "W005", "W006"):
        assert f"warning {code}" in out
    assert "17 addresses: 2 live, 2 moved, 1 changed, 10 dead, 2 unsure" in out


def test_one_failure_is_not_yet_death(tmp_path, servers) -> None:
    web = servers["web"]
    web.route("/once", reply(b"gone", status=404))
    record = watched_record(tmp_path / "record", [Cited("once", f"{web.url}/once", PAGE, QUOTE)])
    assert watch(record, "--day", FIRST).returncode == 0
    assert watch(record, "--day", "2026-11-02").returncode == 0  # a day later: too soon
    assert diagnostics_of(check_json(record), "once") == []
