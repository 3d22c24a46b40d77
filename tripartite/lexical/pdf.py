"""PDF text with pypdf. Sections come from the PDF's outline (bookmarks) when it has one,
else one section per page."""
from __future__ import annotations

import io
import logging
from pathlib import Path

from tripartite.lexical.model import IngestError, ParsedSection


def pdf_sections(path: Path, data: bytes) -> tuple[str, list[ParsedSection]]:
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError

    # pypdf logs its own warnings about damaged files; the one line below says what matters.
    logging.getLogger("pypdf").setLevel(logging.ERROR)

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            # Many PDFs are encrypted only against editing, with an empty user password.
            try:
                if not reader.decrypt(""):
                    raise FileNotDecryptedError("password required")
            except (FileNotDecryptedError, NotImplementedError, Exception):
                raise IngestError(f"{path}: encrypted PDF that needs a password; decrypt it first "
                                  "(e.g. qpdf --decrypt --password=... in.pdf out.pdf)") from None
        pages = [_page_text(page) for page in reader.pages]
        outline = _flat_outline(reader)
        metadata_title = (reader.metadata.title if reader.metadata else None) or None
    except IngestError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, IndexError, OSError) as exc:
        raise IngestError(f"{path}: broken or unreadable PDF ({type(exc).__name__}: {str(exc)[:80]}); "
                          "re-export or repair it") from None
    if not any(p.strip() for p in pages):
        raise IngestError(f"{path}: PDF has no text layer (scanned?); run OCR on it first")
    title = (metadata_title or "").strip() or path.stem
    if outline:
        return title, _outline_sections(pages, outline)
    return title, [ParsedSection(f"Page {i + 1}", 1, (f"Page {i + 1}",), None, text)
                   for i, text in enumerate(pages) if text.strip()]


def _page_text(page) -> str:
    try:
        return page.extract_text() or ""
    except Exception:  # one damaged page should not lose the rest of the document
        return ""


def _flat_outline(reader) -> list[tuple[int, str, int]]:
    """(level, title, page index) for each outline entry, in order."""
    flat: list[tuple[int, str, int]] = []

    def walk(items, level: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, level + 1)
                continue
            try:
                page = reader.get_destination_page_number(item)
            except Exception:
                continue
            if page is not None and page >= 0:
                flat.append((min(level, 6), str(item.title).strip() or "(untitled)", page))

    try:
        walk(reader.outline, 1)
    except Exception:
        return []
    return flat


def _outline_sections(pages: list[str], outline: list[tuple[int, str, int]]) -> list[ParsedSection]:
    """Each outline entry owns the pages from its own to the next entry's (page granularity)."""
    sections: list[ParsedSection] = []
    stack: list[int] = []
    first_page = outline[0][2]
    if first_page > 0 and any(p.strip() for p in pages[:first_page]):
        sections.append(ParsedSection("Front matter", 1, ("Front matter",), None, "\n".join(pages[:first_page])))
    for n, (level, title, page) in enumerate(outline):
        next_page = outline[n + 1][2] if n + 1 < len(outline) else len(pages)
        body = "\n".join(pages[page:next_page]) if next_page > page else ""
        while stack and sections[stack[-1]].level >= level:
            stack.pop()
        parent = stack[-1] if stack else None
        path = (sections[parent].path if parent is not None else ()) + (title,)
        sections.append(ParsedSection(title, level, path, parent, body))
        stack.append(len(sections) - 1)
    return sections
