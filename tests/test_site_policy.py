"""The content security policy is the site's: put into each page after its template, and
sent by `serve` as `_headers` says, as Netlify and Cloudflare Pages send it."""

from __future__ import annotations

import urllib.error
import urllib.request
from email.message import Message
from pathlib import Path

import pytest
from host_fixtures import sourcebook_serve
from site_fixtures import write_record

from sourcebook.publish.site.serving.policy import (
    headers_for,
    headers_text,
    page_policy,
    read_rules,
    site_rules,
    with_policy,
)

POLICY = page_policy()
META = f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">'


@pytest.mark.parametrize(
    ("page", "shown"),
    [
        (
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>x',
            f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n{META}\n<title>x',
        ),
        ("<!doctype html><title>x", f"<!doctype html>\n{META}<title>x"),
        ("<script>x()</script><!DOCTYPE html>", f"{META}\n<script>x()</script><!DOCTYPE html>"),
        ("<html onload=x()><head>", f"{META}\n<html onload=x()><head>"),
        ("<!DOCTYPE html><html><base href=//e.com><head>", f"<!DOCTYPE html><html>\n{META}<base"),
        ("<!-- a note --><!DOCTYPE html><p>", f"<!-- a note --><!DOCTYPE html>\n{META}<p>"),
        ("<!-- never closed <script>x()</script>", f"{META}\n<!-- never closed <script>"),
        ("", f"{META}\n"),
    ],
)
def test_the_policy_comes_before_anything_a_template_writes(page: str, shown: str) -> None:
    assert with_policy(page, POLICY).startswith(shown)


def test_the_policy_allows_only_the_site_and_an_origin_it_posts_to() -> None:
    assert page_policy(forms=["https://notify.example.com"]).endswith(
        "form-action 'self' https://notify.example.com; "
        "connect-src 'self' https://notify.example.com"
    )
    for slipped in ["https://a.com; script-src *", "https://a.com 'unsafe-inline'", "*"]:
        assert page_policy(forms=[slipped]).endswith("form-action 'self'")  # and no connect-src
    assert "'wasm-unsafe-eval'" in page_policy(wasm=True)
    assert "'unsafe" not in page_policy() and "*" not in page_policy()


def test_headers_are_read_back_as_written() -> None:
    rules = site_rules(["https://n.example.com"], ["/vol1/data/releases/v1/"])
    assert read_rules(headers_text(rules)) == rules
    page = dict(headers_for(rules, "/vol1/glossary/"))
    assert page["X-Content-Type-Options"] == "nosniff"
    assert page["Content-Security-Policy"] == page_policy(
        wasm=True, forms=["https://n.example.com"]
    )
    data = dict(headers_for(rules, "/vol1/data/releases/v1/csv/terms.csv"))
    assert data["Content-Disposition"] == "attachment"
    assert data["Content-Security-Policy"].endswith(", default-src 'none'; sandbox")
    assert "Content-Disposition" not in dict(headers_for(rules, "/vol1/data/releases/"))


def test_serve_sends_the_policy_with_every_answer(tmp_path: Path) -> None:
    root = write_record(tmp_path / "record")
    (root / "templates").mkdir()
    (root / "templates" / "base.html").write_text(
        "<!DOCTYPE html><script>window.ran = 1</script>{% block main %}{% endblock %}"
    )
    with sourcebook_serve(root, "--no-notify", "--no-watch") as origin:
        for path in ("/vol1/", "/vol1/glossary/", "/vol1/static/site.css", "/vol1/nowhere"):
            status, headers, _ = _get(origin + path)
            policy = headers.get("Content-Security-Policy", "")
            assert policy.startswith("default-src 'self'; script-src 'self'"), path
            assert headers.get("X-Content-Type-Options") == "nosniff", path
        assert _get(origin + "/_headers")[0] == 404
        page = _get(origin + "/vol1/")[2].decode()
        assert page.index("Content-Security-Policy") < page.index("window.ran")


def _get(url: str) -> tuple[int, Message, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=20) as answer:  # noqa: S310
            return answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def test_a_house_serves_every_volume_with_its_headers(tmp_path: Path) -> None:
    from house_fixtures import write_house

    from sourcebook.pipeline import build_house, check_house

    folder = write_house(tmp_path / "house")
    checked = check_house(folder)
    assert checked.ok
    build_house(checked, folder / "_site")
    rules = read_rules((folder / "_site" / "_headers").read_text(encoding="utf-8"))
    assert [r.pattern for r in rules] == ["/*", "/vol1/data/releases/2026-11-08/*"]
    policy = dict(headers_for(rules, "/vol2/"))["Content-Security-Policy"]
    assert policy.endswith(
        "form-action 'self' https://notify.dryburgh.com; "
        "connect-src 'self' https://notify.dryburgh.com"
    )
    for volume in ("vol1", "vol2"):
        html = (folder / "_site" / volume / "index.html").read_text(encoding="utf-8")
        assert html.count('<meta http-equiv="Content-Security-Policy"') == 1
    assert not (folder / "_site" / "vol1" / "_headers").exists()
