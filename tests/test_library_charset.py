"""Pages decoded as a browser would: HTTP charset, then <meta charset>, then detection."""

from __future__ import annotations

import pytest

from sourcebook.library.charset import codec, decode_page, http_charset, meta_charset

RUSSIAN = "Дата-центр мощностью один гигаватт будет построен в Подмосковье к 2027 году."
JAPANESE = "富岳の後継機は、二〇三〇年までに理化学研究所で稼働する予定です。電力は四十メガワット。"


def page(text: str, head: str = "") -> str:
    return (
        f"<!DOCTYPE html><html><head>{head}<title>t</title></head>"
        f"<body><article><p>{text}</p><p>{text}</p></article></body></html>"
    )


@pytest.mark.parametrize(
    ("text", "encoding", "codec_name"),
    [
        (RUSSIAN, "windows-1251", "cp1251"),
        (JAPANESE, "Shift_JIS", "cp932"),
        (RUSSIAN, "utf-8", "utf-8"),
    ],
)
def test_the_http_charset_comes_first(text: str, encoding: str, codec_name: str) -> None:
    data = page(text, '<meta charset="iso-8859-1">').encode(codec_name)
    decoded = decode_page(data, f"text/html; charset={encoding}")
    assert decoded.by == "http" and decoded.encoding == codec_name
    assert text in decoded.text


@pytest.mark.parametrize(
    ("text", "head", "codec_name"),
    [
        (RUSSIAN, '<meta charset="windows-1251">', "cp1251"),
        (
            JAPANESE,
            '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">',
            "cp932",
        ),
        (RUSSIAN, "<meta charset='UTF-8'>", "utf-8"),
    ],
)
def test_without_a_header_the_page_says(text: str, head: str, codec_name: str) -> None:
    decoded = decode_page(page(text, head).encode(codec_name), "text/html")
    assert decoded.by == "meta" and decoded.encoding == codec_name
    assert text in decoded.text


@pytest.mark.parametrize(
    ("text", "codec_name"), [(RUSSIAN, "cp1251"), (JAPANESE, "cp932"), (JAPANESE, "utf-8")]
)
def test_with_neither_the_charset_is_detected(text: str, codec_name: str) -> None:
    decoded = decode_page(page(text).encode(codec_name), None)
    assert decoded.by == "detected"
    assert text in decoded.text


def test_a_header_that_does_not_fit_the_bytes_gives_way() -> None:
    data = page(JAPANESE, '<meta charset="shift_jis">').encode("cp932")
    decoded = decode_page(data, "text/html; charset=utf-8")
    assert decoded.by == "meta" and JAPANESE in decoded.text


def test_a_byte_order_mark_wins() -> None:
    data = "\ufeff".encode() + page(RUSSIAN).encode()
    decoded = decode_page(data, "text/html; charset=windows-1251")
    assert decoded.by == "bom" and RUSSIAN in decoded.text


def test_labels_read_as_browsers_read_them() -> None:
    assert codec("ISO-8859-1") == "cp1252"
    assert codec("Shift_JIS") == "cp932"
    assert codec("no-such-thing") is None
    assert http_charset('text/html; charset="UTF-8"') == "UTF-8"
    assert http_charset("text/html") is None
    assert meta_charset(b"<html><head><meta charset=utf-8>") == "utf-8"
