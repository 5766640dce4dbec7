"""`library add URL --source ID` as an author uses it: pages in UTF-8, windows-1251 and
Shift_JIS (with and without a charset header), a PDF and an image, fetched from a server
on 127.0.0.1; the page's metadata fills the source's empty fields; quotes are proved."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
import yaml
from conftest import run
from corpus.library.minipdf import build_pdf
from library_server import add, reply

RUSSIAN = "Дата-центр мощностью один гигаватт будет построен в Подмосковье к 2027 году."
JAPANESE = "富岳の後継機は、二〇三〇年までに理化学研究所で稼働する予定です。電力は四十メガワット。"
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64)


def source(title: str, extra: str = "", annotation: str = "") -> str:
    return f"---\ntitle: {title}\ncategory: press\n{extra}annotation: {annotation}\n---\n"


def page(text: str, head: str = "", title: str = "A page") -> str:
    return (
        f"<!DOCTYPE html><html><head>{head}<title>{title}</title></head><body>"
        f"<nav>Home | World</nav><article><p>{text}</p><p>{text}</p></article></body></html>"
    )


def front_matter(path: Path) -> dict:
    return yaml.load(path.read_text(encoding="utf-8").split("---\n")[1], Loader=yaml.BaseLoader)


def quotes_of(root: Path) -> list[dict]:
    import json

    done = run("check", str(root), "--quotes", "--list", "--format", "json")
    return json.loads(done.stdout)["quote_list"]


ARTICLE_HEAD = (
    '<meta property="og:title" content="Fairwater Atlanta opens">'
    '<meta property="og:site_name" content="Example News">'
    '<meta name="author" content="Tabby Kinder; Jane Roe">'
    '<meta property="article:published_time" content="2025-11-12T08:00:00Z">'
    '<meta property="article:modified_time" content="2025-11-14T10:00:00Z">'
)
ARTICLE = "Microsoft opened Fairwater Atlanta on Wednesday, the second of many sites."


def test_a_page_fills_the_sources_empty_fields_and_its_quote_is_proved(server, make_record) -> None:
    root = make_record(
        {
            "sources/fairwater.md": source(
                "Fairwater Atlanta", annotation="It calls it “the second of many sites”."
            ),
            "people/jane-roe.md": "---\ntitle: Jane Roe\nrole: Reporter.\n---\n",
        }
    )
    body = gzip.compress(page(ARTICLE, ARTICLE_HEAD).encode())
    url = server.route(
        "/2025/fairwater.html", reply(body, "text/html; charset=utf-8", content_encoding="gzip")
    )
    done = add(url, "--source", "fairwater", "--record", str(root), "--captured", "2026-10-12")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "S1 added: html, fairwater.html, captured 2026-10-12"
    assert lines[2].startswith("filled in sources/fairwater.md from the page: ")
    assert "authors: [tabby-kinder, jane-roe]" in lines[2]
    assert "publisher: example-news; date: 2025-11-12; updated: 2025-11-14" in lines[2]
    assert "  new person people/tabby-kinder.md" in lines
    assert "  new party parties/example-news.md" in lines
    assert "kept title of sources/fairwater.md: Fairwater Atlanta (the page says " in done.stdout
    fields = front_matter(root / "sources" / "fairwater.md")
    assert fields["title"] == "Fairwater Atlanta"  # the author's, not the page's
    assert fields["authors"] == ["tabby-kinder", "jane-roe"]  # Jane Roe matched, not doubled
    assert fields["publisher"] == "example-news"
    assert (fields["date"], fields["updated"]) == ("2025-11-12", "2025-11-14")
    assert fields["urls"] == [url] and fields["library"] == ["S1"]
    assert front_matter(root / "people" / "tabby-kinder.md") == {
        "title": "Tabby Kinder",
        "given": "Tabby",
        "family": "Kinder",
    }
    item = yaml.safe_load((root / "library" / "S1.yaml").read_text(encoding="utf-8"))
    assert item["published"] == "2025-11-12"
    (quote,) = quotes_of(root)
    assert quote["verdict"] == "exact"
    check = run("check", str(root))
    assert check.returncode == 0, check.stdout


def test_the_warc_keeps_the_bytes_as_received_with_their_headers(server, make_record) -> None:
    from warcio.archiveiterator import ArchiveIterator

    root = make_record({"sources/fairwater.md": source("Fairwater")})
    html = page(ARTICLE).encode()
    sent = gzip.compress(html)
    url = server.route("/warc.html", reply(sent, "text/html", content_encoding="gzip"))
    assert add(url, "--record", str(root)).returncode == 0
    responses = []
    with open(root / "library" / "S1.warc.gz", "rb") as stream:
        for record in ArchiveIterator(stream):
            if record.rec_type == "response":
                responses.append((record.http_headers, record.raw_stream.read()))
    ((headers, body),) = responses
    assert headers.get_header("Content-Encoding") == "gzip"
    assert headers.get_header("Content-Length") == str(len(sent))
    assert body == sent
    item = yaml.safe_load((root / "library" / "S1.yaml").read_text(encoding="utf-8"))
    object_path = root / "library" / "objects" / item["sha256"][:2] / item["sha256"]
    assert object_path.read_bytes() == html


def test_the_authors_fields_are_kept_and_the_page_shown_beside_them(server, make_record) -> None:
    extra = "authors: [someone]\ndate: 2025-11-11\n"
    root = make_record(
        {
            "sources/fairwater.md": source("Fairwater", extra),
            "people/someone.md": "---\ntitle: Some One\n---\n",
        }
    )
    before = (root / "sources" / "fairwater.md").read_text(encoding="utf-8")
    url = server.route("/kept.html", reply(page(ARTICLE, ARTICLE_HEAD).encode()))
    done = add(url, "--source", "fairwater", "--record", str(root))
    assert done.returncode == 0, done.stderr
    assert (
        "kept authors of sources/fairwater.md: [someone] (the page says [Tabby Kinder, Jane Roe])"
        in done.stdout
    )
    assert "kept date of sources/fairwater.md: 2025-11-11 (the page says 2025-11-12)" in done.stdout
    after = (root / "sources" / "fairwater.md").read_text(encoding="utf-8")
    for line in before.splitlines():  # every line the author wrote is there as written
        assert line in after.splitlines()
    fields = front_matter(root / "sources" / "fairwater.md")
    assert fields["authors"] == ["someone"] and fields["date"] == "2025-11-11"
    assert not (root / "people" / "tabby-kinder.md").exists()
    assert fields["publisher"] == "example-news"  # empty, so filled
    assert (root / "parties" / "example-news.md").is_file()


def test_no_fill_shows_what_it_would_fill_and_writes_none_of_it(server, make_record) -> None:
    root = make_record({"sources/fairwater.md": source("Fairwater")})
    url = server.route("/nofill.html", reply(page(ARTICLE, ARTICLE_HEAD).encode()))
    done = add(url, "--source", "fairwater", "--record", str(root), "--no-fill")
    assert done.returncode == 0, done.stderr
    assert "would fill (--no-fill) in sources/fairwater.md from the page: " in done.stdout
    assert "  would write person people/tabby-kinder.md" in done.stdout
    fields = front_matter(root / "sources" / "fairwater.md")
    assert fields.get("authors") is None and fields["library"] == ["S1"]
    assert not (root / "people").exists()


@pytest.mark.parametrize(
    ("text", "codec", "content_type", "head"),
    [
        pytest.param(RUSSIAN, "cp1251", "text/html; charset=windows-1251", "", id="1251-header"),
        pytest.param(
            RUSSIAN, "cp1251", "text/html", '<meta charset="windows-1251">', id="1251-meta"
        ),
        pytest.param(RUSSIAN, "cp1251", "text/html", "", id="1251-detected"),
        pytest.param(JAPANESE, "cp932", "text/html; charset=Shift_JIS", "", id="sjis-header"),
        pytest.param(JAPANESE, "cp932", "text/html", '<meta charset="Shift_JIS">', id="sjis-meta"),
        pytest.param(JAPANESE, "cp932", "text/html", "", id="sjis-detected"),
        pytest.param(RUSSIAN, "utf-8", "text/html", "", id="utf8-bare"),
    ],
)
def test_a_page_in_its_own_charset_is_read_right_and_its_quote_proved(
    server, make_record, request, text, codec, content_type, head
) -> None:
    words = text.split("、")[0] if codec == "cp932" else text.split(" к ")[0]
    root = make_record({"sources/dc.md": source("Data centre", annotation=f"“{words}”")})
    path = f"/{request.node.callspec.id}.html"
    url = server.route(path, reply(page(text, head).encode(codec), content_type))
    done = add(url, "--source", "dc", "--record", str(root))
    assert done.returncode == 0, done.stderr
    held = (root / "library" / "S1.txt").read_text(encoding="utf-8")
    assert held.splitlines() == [text, text]
    (quote,) = quotes_of(root)
    assert quote["verdict"] == "exact", quote


def test_a_pdf_url_is_held_with_its_pages(server, make_record) -> None:
    root = make_record(
        {"sources/essay.md": source("An essay", annotation="“the grid was the limit”")}
    )
    pdf = build_pdf([["The first page."], ["In the end the grid was the limit."]], "An Essay")
    url = server.route("/papers/essay.pdf", reply(pdf, "application/pdf"))
    done = add(url, "--source", "essay", "--record", str(root))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("S1 added: pdf, essay.pdf")
    assert "filled" not in done.stdout  # a PDF offers no page metadata
    item = yaml.safe_load((root / "library" / "S1.yaml").read_text(encoding="utf-8"))
    assert (item["pages"], item["title"], item["url"]) == (2, "An Essay", url)
    (quote,) = quotes_of(root)
    assert (quote["verdict"], quote["locator"]) == ("exact", "p. 2")


def test_an_image_url_is_held_with_its_transcription(server, make_record, tmp_path) -> None:
    root = make_record({"sources/chart.md": source("A chart", annotation="“About 75 GW”")})
    transcription = tmp_path / "chart.txt"
    transcription.write_text("Datacenters Have Booked About 75 GW of Onsite Generation\n")
    url = server.route("/charts/gw.png", reply(PNG, "image/png"))
    done = add(
        url, "--source", "chart", "--transcription", str(transcription), "--record", str(root)
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("S1 added: image, gw.png")
    item = yaml.safe_load((root / "library" / "S1.yaml").read_text(encoding="utf-8"))
    assert (item["media_type"], item["url"]) == ("image/png", url)
    (quote,) = quotes_of(root)
    assert (quote["verdict"], quote["locator"]) == ("exact", "read as an image")


def test_a_page_that_agrees_with_the_source_is_not_said_to_be_kept(server, make_record) -> None:
    extra = "authors: [tabby-kinder, jane-roe]\npublisher: example\ndate: 2025-11-12\n"
    root = make_record(
        {
            "sources/fairwater.md": source("Fairwater  atlanta OPENS", extra),
            "people/tabby-kinder.md": "---\ntitle: Tabby Kinder\n---\n",
            "people/jane-roe.md": "---\ntitle: Jane Roe\n---\n",
            "parties/example.md": "---\ntitle: Example News\ntype: publisher\n---\n",
        }
    )
    url = server.route("/agrees.html", reply(page(ARTICLE, ARTICLE_HEAD).encode()))
    done = add(url, "--source", "fairwater", str(root))
    assert done.returncode == 0, done.stderr
    assert "kept" not in done.stdout
    assert done.stdout.splitlines()[2] == (
        "filled in sources/fairwater.md from the page: updated: 2025-11-14; urls: [" + url + "]"
    )
    assert not (root / "people" / "tabby-kinder-2.md").exists()
