"""PDFs: read in the bounded worker process; every hostile shape gets a clear status.

The PDFs are written here, byte by byte (``make_pdf``), or with pypdf (encryption)."""

from __future__ import annotations

import io
import json
import zlib

import pytest
from click.testing import CliRunner
from extract_support import PageServer, result, run

from tamis.extract import extract_results, read_url
from tamis.extract.pdf import read_pdf
from tamis.interfaces.cli_read import read
from tamis.policy.schema import ExtractionConfig

PDF = {"Content-Type": "application/pdf"}


def _stream(data: bytes, compress: bool = False) -> bytes:
    if compress:
        data = zlib.compress(data, 9)
        return (b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data)) + data + \
            b"\nendstream"
    return (b"<< /Length %d >>\nstream\n" % len(data)) + data + b"\nendstream"


def make_pdf(pages: list[str | None], *, content: bytes | None = None,
             kids_repeat: int = 1) -> bytes:
    """A PDF with one Helvetica text line per page (None: a page with no text at all).
    ``content`` replaces every page's content stream; ``kids_repeat`` lists the pages that
    many times in the page tree (a page-count bomb with a small file)."""
    objects: list[bytes] = []
    font = 3
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(b"")  # pages, filled below
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    kids = []
    for text in pages:
        if content is not None:
            body = content
        elif text is None:
            body = _stream(b"q 0 0 0 rg 72 72 100 100 re f Q")
        else:
            escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            body = _stream(f"BT /F1 12 Tf 72 720 Td ({escaped}) Tj ET".encode("latin-1"))
        objects.append(body)
        contents = len(objects)
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources"
                       b" << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>" % (font, contents))
        kids.append(len(objects))
    refs = b" ".join(b"%d 0 R" % k for k in kids) * 1
    refs = b" ".join([refs] * kids_repeat)
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (refs, len(kids) * kids_repeat)
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, obj in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + obj + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
              % (len(objects) + 1, xref))
    return out.getvalue()


def read_one(server: PageServer, config: ExtractionConfig, path: str, body: bytes,
             headers: dict[str, str] | None = None, max_chars: int = 12000):
    url = server.add(path, body, headers=headers or PDF)
    return run(lambda client: read_url(url, config=config, client=client, max_chars=max_chars))


def test_a_small_text_pdf(server: PageServer, config: ExtractionConfig) -> None:
    body = make_pdf(["Thin pool metadata recovery with lvconvert.", "Second page words."])
    answer = read_one(server, config, "/pdf/small.pdf", body)
    assert answer.status == "ok", answer
    assert answer.page_type == "pdf" and "2 of 2 pages read" in (answer.detail or "")
    assert answer.content.index("[page 1 of 2]") < answer.content.index("lvconvert")
    assert answer.content.index("lvconvert") < answer.content.index("[page 2 of 2]")


def test_a_pdf_by_its_magic_bytes_whatever_the_header(server: PageServer,
                                                      config: ExtractionConfig) -> None:
    body = make_pdf(["Served as text/html but a PDF all the same."])
    answer = read_one(server, config, "/pdf/as-html", body, {"Content-Type": "text/html"})
    assert answer.status == "ok" and "all the same" in answer.content


def test_a_long_pdf_is_cut_by_the_budget(server: PageServer, config: ExtractionConfig) -> None:
    pages = [f"Page {n} says something about storage pools and their metadata." for n in
             range(1, 41)]
    config.pdf_max_pages = 30
    answer = read_one(server, config, "/pdf/long.pdf", make_pdf(pages), max_chars=800)
    assert answer.status == "truncated" and answer.next_start and answer.chars <= 800
    assert "30 of 40 pages read (extraction.pdf_max_pages)" in (answer.detail or "")
    assert answer.total_chars < 30 * 120


def test_an_encrypted_pdf(server: PageServer, config: ExtractionConfig) -> None:
    pypdf = pytest.importorskip("pypdf")
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(make_pdf(["A secret page."])))
    writer.encrypt(user_password="secret", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    answer = read_one(server, config, "/pdf/encrypted.pdf", out.getvalue())
    assert answer.status == "failed:PdfEncrypted" and "password" in (answer.detail or "")
    assert answer.exit_code == 2


def test_an_image_only_pdf(server: PageServer, config: ExtractionConfig) -> None:
    answer = read_one(server, config, "/pdf/scan.pdf", make_pdf([None, None]))
    assert answer.status == "failed:PdfNoText" and "image-only" in (answer.detail or "")


def test_a_truncated_pdf(server: PageServer, config: ExtractionConfig) -> None:
    body = make_pdf(["Words on a page that will be cut off."])
    answer = read_one(server, config, "/pdf/truncated.pdf", body[:60])
    assert answer.status in ("failed:PdfBroken", "failed:PdfNoText"), answer


def test_a_page_count_bomb_is_bounded(server: PageServer, config: ExtractionConfig) -> None:
    body = make_pdf(["One page listed many times in the page tree."], kids_repeat=200_000)
    config.pdf_max_pages = 5
    answer = read_one(server, config, "/pdf/count-bomb.pdf", body)
    # pypdf refuses a page tree that lists one page again and again, or we read 5 pages
    assert answer.status in ("ok", "failed:PdfBroken"), answer
    if answer.status == "ok":
        assert "5 of 200000 pages read" in (answer.detail or "")


def test_a_decompression_bomb_is_bounded(server: PageServer, config: ExtractionConfig) -> None:
    # ~1 GB of spaces inside BT ... ET, compressed to about 1 MB
    bomb = _stream(b"BT /F1 12 Tf 72 720 Td (x) Tj " + b" " * 1_000_000_000 + b" ET",
                   compress=True)
    config.worker_memory_mb = 512
    answer = read_one(server, config, "/pdf/zip-bomb.pdf", make_pdf(["x"], content=bomb))
    assert answer.status.startswith("failed:Pdf") or answer.status == "failed:Timeout", answer
    assert "Traceback" not in (answer.detail or "")


def test_read_pdf_in_process_statuses() -> None:
    assert "Hello there" in read_pdf(make_pdf(["Hello there"])).text
    from tamis.extract.pdf import PdfError
    with pytest.raises(PdfError) as caught:
        read_pdf(b"%PDF-1.4\nnothing else")
    assert caught.value.kind == "PdfBroken"


def test_pdf_in_search_extraction_and_cli(server: PageServer, config: ExtractionConfig,
                                          tmp_path) -> None:
    url = server.add("/pdf/result.pdf", make_pdf(["Datasheet: the part runs at 5 volts."]),
                     headers=PDF)
    results, _summary = run(lambda client: extract_results(
        [result(url, 1)], "volts", config, client=client))
    assert results[0].extraction == "ok" and "5 volts" in results[0].excerpt
    path = tmp_path / "config.yaml"
    path.write_text("cache: {enabled: false}\nextraction: {allow_private_hosts: ['127.0.0.1']}\n")
    outcome = CliRunner().invoke(read, [url, "--config", str(path)])
    assert outcome.exit_code == 0 and "5 volts" in json.loads(outcome.stdout)["content"]


@pytest.mark.anyio
async def test_pdf_through_mcp_read_url(server: PageServer) -> None:
    from mcp import Client

    from tamis.core import Tamis
    from tamis.interfaces.mcp_server import build_server
    from tamis.settings import load_config
    url = server.add("/pdf/mcp.pdf", make_pdf(["Manual: hold the reset button for ten s."]),
                     headers=PDF)
    config = load_config(None, overrides={"store": {"url": "memory:"}, "extraction": {
        "allow_private_hosts": ["127.0.0.1"]}}).config
    async with Client(build_server(layer=Tamis(config))) as client:
        answer = await client.call_tool("read_url", {"url": url})
    assert not answer.is_error and answer.structured_content["status"] == "ok"
    assert "reset button" in answer.content[0].text
