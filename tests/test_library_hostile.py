"""`library add` against hostile servers and files: each ends in one line, `error CODE
message`, within seconds and a bounded address space, leaving the record as it was."""

from __future__ import annotations

import gzip
import time
from pathlib import Path

import pytest
from corpus.library.minipdf import build_pdf
from library_server import Run, add, bomb, reply, snapshot

from sourcebook.files import write_atomic

SOURCE = "---\ntitle: A page\ncategory: press\n---\n"
PAGE = (
    b"<!doctype html><html><head><title>Plain</title></head><body><p>Plain words.</p></body></html>"
)
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64)


@pytest.fixture
def record(make_record) -> Path:
    return make_record({"sources/a-page.md": SOURCE})


def refused(run: Run, code: str, status: int = 1) -> str:
    """The run ended in one line naming `code`, with `status`, in under 10 seconds."""
    assert "Traceback" not in run.stderr, run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith(f"error {code} "), lines[0]
    assert run.stdout == ""
    assert run.returncode == status
    assert run.seconds < 10, run.seconds
    return lines[0]


def add_leaving_nothing(record: Path, *args: str) -> Run:
    before = snapshot(record)
    run = add(*args, "--record", str(record))
    assert snapshot(record) == before, "the refused run left files in the record"
    return run


# -- downloads: bytes and time ------------------------------------------------------------


def test_gzip_bomb_over_a_url_stops_at_the_byte_cap(server, record) -> None:
    url = server.route("/bomb.html", reply(bomb(2048), content_encoding="gzip"))
    line = refused(add_leaving_nothing(record, url), "Q101")
    assert "decompresses to more than 67,108,864 bytes" in line


def test_deflate_bomb_over_a_url_stops_at_the_byte_cap(server, record) -> None:
    url = server.route("/deflate.html", reply(bomb(2048, wbits=15), content_encoding="deflate"))
    refused(add_leaving_nothing(record, url), "Q101")


def test_a_body_past_max_bytes_is_refused_as_it_streams(server, record) -> None:
    def endless(handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/plain")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        chunk = b"x" * 65536
        for _ in range(64):
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))

    url = server.route("/endless.txt", endless)
    line = refused(add_leaving_nothing(record, url, "--max-bytes", "100000"), "Q101")
    assert "more than 100,000 bytes (--max-bytes)" in line


def test_a_declared_length_past_max_bytes_is_refused_before_reading(server, record) -> None:
    def huge(handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Length", str(10**12))
        handler.end_headers()
        handler.wfile.write(b"<p>")

    url = server.route("/huge.html", huge)
    assert "says it is more than" in refused(add_leaving_nothing(record, url), "Q101")


def test_a_server_dripping_a_byte_a_second_is_cut_at_the_timeout(server, record) -> None:
    def drip(handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Length", "1000")
        handler.end_headers()
        for _ in range(1000):
            handler.wfile.write(b"x")
            handler.wfile.flush()
            time.sleep(1)

    url = server.route("/drip.html", drip)
    run = add_leaving_nothing(record, url, "--timeout", "2")
    assert "no whole answer within 2 seconds (--timeout)" in refused(run, "Q102")
    assert run.seconds < 6


def test_a_server_dripping_its_headers_is_cut_at_the_timeout(server, record) -> None:
    def drip_headers(handler) -> None:
        handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
        for _ in range(1000):
            handler.wfile.write(b"X-Slow: y\r\n")
            handler.wfile.flush()
            time.sleep(1)

    url = server.route("/slow-headers.html", drip_headers)
    run = add_leaving_nothing(record, url, "--timeout", "2")
    refused(run, "Q102")
    assert run.seconds < 6


def test_a_redirect_with_a_bomb_for_a_body_is_followed_unread(server, record) -> None:
    server.route("/plain.html", reply(PAGE))

    def moved(handler) -> None:
        body = bomb(2048)
        handler.send_response(302)
        handler.send_header("Location", "/plain.html")
        handler.send_header("Content-Encoding", "gzip")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    run = add(server.route("/moved", moved), "--record", str(record))
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("S1 added: html, plain.html")
    assert run.seconds < 10


def test_redirects_that_never_end_are_refused(server, record) -> None:
    def loop(handler) -> None:
        handler.send_response(302)
        handler.send_header("Location", "/loop")
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    url = server.route("/loop", loop)
    assert "more than 10 redirects" in refused(add_leaving_nothing(record, url), "Q103")


def test_a_redirect_to_a_file_address_is_refused(server, record) -> None:
    def to_file(handler) -> None:
        handler.send_response(301)
        handler.send_header("Location", "file:///etc/passwd")
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    url = server.route("/to-file", to_file)
    assert "redirected to a file: address" in refused(add_leaving_nothing(record, url), "Q103")


def test_a_content_encoding_not_asked_for_is_refused(server, record) -> None:
    url = server.route("/brotli.html", reply(b"\x1b\x03\x00", content_encoding="br"))
    assert "a body in 'br', which was not asked for" in refused(
        add_leaving_nothing(record, url), "Q103"
    )


def test_a_damaged_gzip_body_is_refused(server, record) -> None:
    url = server.route(
        "/damaged.html",
        reply(b"\x1f\x8b\x08\x00" + bytes(6) + b"\xff" * 20, content_encoding="gzip"),
    )
    assert "the gzip body is damaged" in refused(add_leaving_nothing(record, url), "Q103")


def test_an_error_status_is_refused(server, record) -> None:
    url = server.route("/gone.html", reply(b"gone", status=410))
    assert "the server answered 410" in refused(add_leaving_nothing(record, url), "Q103")


# -- originals that cannot be read --------------------------------------------------------


def pdf_bomb(expanded_mib: int) -> bytes:
    """A one-page PDF whose content stream inflates to `expanded_mib` MiB."""
    stream = bomb(expanded_mib, wbits=15)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 5\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def test_a_pdf_flate_bomb_is_refused_at_the_file(record, tmp_path) -> None:
    path = tmp_path / "bomb.pdf"
    path.write_bytes(pdf_bomb(3072))
    line = refused(add_leaving_nothing(record, str(path)), "Q104")
    assert "the PDF passes pypdf's limits" in line


def test_a_pdf_flate_bomb_over_a_url_is_refused(server, record) -> None:
    url = server.route("/bomb.pdf", reply(pdf_bomb(3072), "application/pdf"))
    refused(add_leaving_nothing(record, url), "Q104")


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda pdf: pdf[: len(pdf) // 2], id="cut-in-half"),
        pytest.param(lambda pdf: pdf.replace(b"/Pages 2 0 R", b"/Pages 9 0 R"), id="no-pages"),
        pytest.param(lambda pdf: b"%PDF-1.4\n" + bytes(range(256)) * 40, id="noise"),
    ],
)
def test_a_damaged_pdf_is_refused_in_one_line(record, tmp_path, damage) -> None:
    path = tmp_path / "damaged.pdf"
    path.write_bytes(damage(build_pdf([["Some words."], ["More words."]])))
    run = add_leaving_nothing(record, str(path))
    if run.returncode == 0:  # pypdf recovers what it can; then the words are there
        pytest.fail("a damaged PDF was taken in whole: " + run.stdout)
    refused(run, "Q104")


def test_html_nested_200000_deep_is_flattened_and_read_in_seconds(server, record) -> None:
    depth = 200_000
    page = (
        b"<html><body>" + b"<div>" * depth + b"deep words" + b"</div>" * depth + b"</body></html>"
    )
    run = add(server.route("/deep.html", reply(page)), "--record", str(record))
    assert run.returncode == 0, run.stderr
    assert run.seconds < 10, run.seconds
    assert (record / "library" / "S1.txt").read_text(encoding="utf-8") == "deep words"


# -- bytes that are not what they say -----------------------------------------------------


def test_html_named_pdf_is_refused(record, tmp_path) -> None:
    path = tmp_path / "report.pdf"
    path.write_bytes(PAGE)
    line = refused(add_leaving_nothing(record, str(path)), "Q105")
    assert "its name says a PDF, but its bytes are HTML or text" in line


def test_an_image_named_txt_is_refused(record, tmp_path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(PNG)
    assert "its bytes are a PNG image" in refused(add_leaving_nothing(record, str(path)), "Q105")


def test_a_pdf_served_as_html_is_refused(server, record) -> None:
    url = server.route("/page", reply(build_pdf([["Words."]]), "text/html"))
    line = refused(add_leaving_nothing(record, url), "Q105")
    assert "its media type says an HTML page, but its bytes are a PDF" in line


def test_binary_bytes_are_refused_as_text(record, tmp_path) -> None:
    path = tmp_path / "data"
    path.write_bytes(gzip.compress(b"words"))
    assert "its bytes are gzip data" in refused(add_leaving_nothing(record, str(path)), "Q105")


def test_kind_speaks_over_the_name_but_not_over_the_bytes(record, tmp_path) -> None:
    path = tmp_path / "report.pdf"
    path.write_bytes(PAGE)
    line = refused(add_leaving_nothing(record, str(path), "--kind", "pdf"), "Q105")
    assert "--kind says a PDF" in line
    run = add(str(path), "--kind", "html", "--record", str(record))
    assert run.returncode == 0 and run.stdout.startswith("S1 added: html, report.pdf"), run.stderr


# -- the command line ---------------------------------------------------------------------


def test_kind_image_needs_a_transcription(record, tmp_path) -> None:
    path = tmp_path / "chart.png"
    path.write_bytes(PNG)
    line = refused(add_leaving_nothing(record, str(path), "--kind", "image"), "Q106", 2)
    assert "--kind image needs --transcription FILE" in line


def test_an_image_needs_a_transcription_even_unasked(record, tmp_path) -> None:
    path = tmp_path / "chart.png"
    path.write_bytes(PNG)
    assert "give --transcription FILE" in refused(add_leaving_nothing(record, str(path)), "Q106", 2)


def test_a_record_that_does_not_exist_is_not_made(tmp_path) -> None:
    page = tmp_path / "page.txt"
    page.write_text("Words.\n", encoding="utf-8")
    run = add(str(page), "--record", str(tmp_path / "nowhere"))
    assert refused(run, "Q107", 2).endswith("/nowhere: no such folder")
    assert not (tmp_path / "nowhere").exists()


def test_a_folder_that_is_not_a_record_is_refused(tmp_path) -> None:
    page = tmp_path / "page.txt"
    page.write_text("Words.\n", encoding="utf-8")
    folder = tmp_path / "folder"
    folder.mkdir()
    run = add(str(page), "--record", str(folder))
    refused(run, "Q107", 2)
    assert list(folder.iterdir()) == []


def test_an_unknown_source_is_refused(record, tmp_path) -> None:
    page = tmp_path / "page.txt"
    page.write_text("Words.\n", encoding="utf-8")
    run = add_leaving_nothing(record, str(page), "--source", "no-such-source")
    assert "no source 'no-such-source'" in refused(run, "Q107", 2)


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("--captured", "2026-02-30", "--captured '2026-02-30' is not a day"),
        ("--captured", "yesterday", "--captured 'yesterday' is not a day"),
        ("--captured", "2026-1-5", "--captured '2026-1-5' is not a day"),
        ("--timeout", "nan", "--timeout must be a number of seconds above 0"),
        ("--timeout", "-1", "--timeout must be a number of seconds above 0"),
        ("--timeout", "soon", "--timeout 'soon' is not a number of seconds"),
        ("--max-bytes", "0", "--max-bytes must be above 0"),
        ("--max-bytes", "1e9", "--max-bytes '1e9' is not a whole number of bytes"),
        ("--url", "java\tscript:alert(1)", "holds a control character"),
        ("--url", "ftp://example.com/a", "is a ftp: address"),
    ],
)
def test_a_bad_option_value_is_one_line(record, tmp_path, option, value, words) -> None:
    page = tmp_path / "page.txt"
    page.write_text("Words.\n", encoding="utf-8")
    run = add_leaving_nothing(record, str(page), option, value)
    assert words in refused(run, "Q108", 2)


def test_a_missing_file_is_one_line(record) -> None:
    run = add_leaving_nothing(record, "no-such-file.txt")
    assert "no-such-file.txt: no such file" in refused(run, "Q108", 2)


# -- leftovers ----------------------------------------------------------------------------


def _check(record: Path) -> list[str]:
    from conftest import run

    return [line for line in run("check", str(record)).stdout.splitlines() if "Q010" in line]


def test_partial_files_of_a_killed_add_are_reported_then_swept(record, tmp_path) -> None:
    page = tmp_path / "page.txt"
    page.write_text("Words.\n", encoding="utf-8")
    assert add(str(page), "--record", str(record)).returncode == 0
    library = record / "library"
    # What a run killed between writing and renaming leaves: write_atomic's own names.
    left = [library / ".S2.yaml.k1ll3d.partial", library / "objects" / "ab" / ".abc.x1.partial"]
    for path in left:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"half a file")
    reported = _check(record)
    assert len(reported) == 2
    assert all("a partial file left by a killed 'library add'" in line for line in reported)
    other = tmp_path / "other.txt"
    other.write_text("Other words.\n", encoding="utf-8")
    run = add(str(other), "--record", str(record))
    assert run.returncode == 0 and run.stdout.startswith("S2 added"), run.stderr
    assert not any(path.exists() for path in left)
    assert _check(record) == []


def test_an_original_no_item_holds_is_reported(record, tmp_path) -> None:
    page = tmp_path / "page.txt"
    page.write_text("Words.\n", encoding="utf-8")
    assert add(str(page), "--record", str(record)).returncode == 0
    stray = record / "library" / "objects" / "00" / ("0" * 64)
    write_atomic(stray, b"an original whose item was deleted")
    (line,) = _check(record)
    assert f"library/objects/00/{'0' * 64}" in line
    assert "warning Q010 an original that no library item holds" in line
