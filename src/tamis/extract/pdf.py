"""PDF bytes to text with pypdf, page by page in reading order, with page markers.

Runs inside the bounded worker process (``worker``): a hostile PDF (a page-count bomb, a
decompression bomb, a loop in its object tree) can only exhaust that process's limits.
Here the work is bounded too: at most ``max_pages`` pages are read and at most
``max_chars`` characters kept. Statuses (``PdfError.kind``, shown as ``failed:<kind>``):

- ``PdfEncrypted``: a password is needed (an empty user password is tried first);
- ``PdfNoText``: no page has extractable text (a scan: image-only pages);
- ``PdfBroken``: not a PDF pypdf can read (truncated, corrupt).
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass

from tamis.errors import PdfError


@dataclass
class PdfText:
    text: str
    title: str
    pages_read: int
    pages_total: int


def page_marker(number: int, total: int) -> str:
    return f"[page {number} of {total}]"


def read_pdf(body: bytes, max_pages: int = 50, max_chars: int = 2_000_000) -> PdfText:
    """The text of the first ``max_pages`` pages. Raises ``PdfError``."""
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its warnings are not our output
    import pypdf
    from pypdf.errors import PdfReadError, PyPdfError

    try:
        reader = pypdf.PdfReader(io.BytesIO(body), strict=False)
        if reader.is_encrypted:
            try:
                opened = reader.decrypt("")
            except (PyPdfError, NotImplementedError, ValueError) as exc:
                raise PdfError("PdfEncrypted", f"encrypted PDF: {exc}") from None
            if not opened:
                raise PdfError("PdfEncrypted", "encrypted PDF: a password is needed")
        total = len(reader.pages)
        blocks: list[str] = []
        size = 0
        read = 0
        for index in range(min(total, max_pages)):
            text = (reader.pages[index].extract_text() or "").strip()
            read += 1
            if text:
                blocks.append(f"{page_marker(index + 1, total)}\n\n{text}")
                size += len(text)
            if size >= max_chars:
                break
        title = ""
        try:
            meta = reader.metadata
            title = " ".join(str(meta.title).split()) if meta and meta.title else ""
        except (PyPdfError, ValueError, TypeError, KeyError):
            title = ""
    except PdfError:
        raise
    except (PdfReadError, PyPdfError, ValueError, KeyError, TypeError, AttributeError,
            IndexError, AssertionError, RecursionError, OSError) as exc:
        raise PdfError("PdfBroken", f"unreadable PDF: {type(exc).__name__}: {exc}"[:300]) from None
    if not blocks:
        raise PdfError("PdfNoText", f"no extractable text in {read} of {total} pages"
                       " (a scanned or image-only PDF?)")
    return PdfText("\n\n".join(blocks)[:max_chars], title, read, total)
