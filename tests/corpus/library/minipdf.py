"""Write a small, valid PDF of text pages, so that tests need no PDF library to make one.

Each page is a list of lines set in Helvetica with WinAnsiEncoding, which carries the
curly quotes, dashes and soft hyphen of real typesetting.
"""

from __future__ import annotations


def build_pdf(pages: list[list[str]], title: str = "") -> bytes:
    objects: list[bytes] = []
    page_ids = [4 + 2 * i for i in range(len(pages))]
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    kids = " ".join(f"{i} 0 R" for i in page_ids)
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    objects.append(
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
    )
    for index, lines in enumerate(pages):
        content = _content(lines)
        resources = "/Resources << /Font << /F1 3 0 R >> >>"
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] {resources} "
            f"/Contents {page_ids[index] + 1} 0 R >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    info = len(objects) + 1
    objects.append(b"<< /Title (" + _escape(title) + b") >>")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\n" % (len(objects) + 1, info)
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def _content(lines: list[str]) -> bytes:
    body = b"BT /F1 11 Tf 14 TL 72 740 Td\n"
    for line in lines:
        body += b"(" + _escape(line) + b") Tj T*\n"
    return body + b"ET"


def _escape(text: str) -> bytes:
    raw = text.encode("cp1252")
    return raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
