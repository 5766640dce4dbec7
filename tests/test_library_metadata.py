"""A page's own metadata read from its bytes: title, authors, site, days."""

from __future__ import annotations

import json

from sourcebook.library.metadata import page_metadata

ARTICLE = "<p>Microsoft opened Fairwater Atlanta on Wednesday, the second of many sites.</p>" * 3


def page(head: str, body: str = ARTICLE) -> str:
    return (
        f"<!DOCTYPE html><html lang='en'><head>{head}</head>"
        f"<body><article>{body}</article></body></html>"
    )


def test_meta_and_open_graph_tags() -> None:
    head = (
        "<title>Microsoft opens Fairwater Atlanta | Example News</title>"
        '<meta property="og:title" content="Microsoft opens Fairwater Atlanta">'
        '<meta property="og:site_name" content="Example News">'
        '<meta name="author" content="Tabby Kinder; Ursula K. Le Guin">'
        '<meta name="description" content="The second Fairwater site.">'
        '<meta property="article:published_time" content="2025-11-12T08:00:00Z">'
        '<meta property="article:modified_time" content="2025-11-14T10:00:00Z">'
    )
    found = page_metadata(page(head).encode(), "https://news.example.com/2025/fairwater")
    assert found.title == "Microsoft opens Fairwater Atlanta"
    assert found.authors == ("Tabby Kinder", "Ursula K Le Guin")
    assert found.site == "Example News"
    assert found.published == "2025-11-12"
    assert found.updated == "2025-11-14"
    assert found.description == "The second Fairwater site."


def test_json_ld() -> None:
    data = {
        "@context": "https://schema.org",
        "@type": "NewsArticle",
        "headline": "Stargate UAE goes live",
        "datePublished": "2026-03-02",
        "author": [{"@type": "Person", "name": "Jane Doe"}],
        "publisher": {"@type": "Organization", "name": "Gulf Wire"},
    }
    script = f'<script type="application/ld+json">{json.dumps(data)}</script>'
    head = f"<title>Stargate UAE goes live</title>{script}"
    found = page_metadata(page(head).encode(), "https://gulfwire.example/stargate")
    assert found.title == "Stargate UAE goes live"
    assert found.authors == ("Jane Doe",)
    assert found.published == "2026-03-02"


def test_a_page_in_windows_1251_without_a_header() -> None:
    title = "Дата-центр в Подмосковье"
    head = f'<meta charset="windows-1251"><title>{title}</title>'
    body = "<p>Дата-центр мощностью один гигаватт будет построен к 2027 году.</p>" * 3
    found = page_metadata(page(head, body).encode("cp1251"), "https://ru.example/dc")
    assert found.title == title


def test_a_page_that_says_little() -> None:
    found = page_metadata(b"<html><body><p>Nothing dated here.</p></body></html>")
    assert found.authors == ()
    assert found.published is None
