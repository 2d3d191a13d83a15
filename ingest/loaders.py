"""Turn files (PDF, Word .docx, Markdown, plain text, HTML, CSV) into text pages with a title.

Each loader raises IngestError with a reason a person can act on; the caller carries on with
the rest of the batch. PDFs keep their page numbers so answers can cite them.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from kgrag.core.errors import IngestError
from kgrag.core.text import ANY_CONTROL, CONTROL, heading_line
from kgrag.core.types import LoadedDocument, Page

SUPPORTED_SUFFIXES: dict[str, str] = {
    ".pdf": "application/pdf",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".txt": "text/plain",
    ".text": "text/plain",
    ".html": "text/html",
    ".htm": "text/html",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".csv": "text/csv",
}


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def clean_text(text: str) -> str:
    """Drop control characters (Postgres refuses NUL; ESC sequences drive terminals) and normalise line endings."""
    return CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def clean_title(text: str) -> str:
    """A title is one line shown in tables and terminals: whitespace folded, controls dropped."""
    return " ".join(ANY_CONTROL.sub("", " ".join(text.split())).split())


def escape_controls(text: str) -> str:
    """Every C0/C1 control spelled out as ``\\xNN``: printable, and distinct names stay distinct."""
    return ANY_CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def decode_text(data: bytes, source: str) -> tuple[str, dict[str, str]]:
    """UTF-8 (with or without BOM); anything else is decoded with replacement and flagged."""
    # The whole file, not a prefix: a text header over binary content (NULs from byte 8193 on) was
    # accepted with the NULs silently dropped. One memchr over the bytes, cheap next to embedding.
    if (at := data.find(b"\x00")) >= 0:
        raise IngestError(
            f"{source} looks binary (it contains NUL bytes, the first at byte {at}), not text",
            fix=f"check the file type; only {', '.join(sorted(SUPPORTED_SUFFIXES))} files are ingested",
        )
    try:
        return data.decode("utf-8-sig"), {}
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), {"encoding_note": "not valid UTF-8; decoded with replacement"}


def load_file(path: Path, *, max_bytes: int | None = None) -> LoadedDocument:
    suffix = path.suffix.lower()
    mime = SUPPORTED_SUFFIXES.get(suffix)
    if mime is None:
        raise IngestError(
            f"{path} has an unsupported type {suffix or '(no extension)'}",
            fix=f"convert it to one of {', '.join(sorted(SUPPORTED_SUFFIXES))}",
        )
    try:
        size = path.stat().st_size
        if max_bytes is not None and size > max_bytes:
            raise IngestError(
                f"{path} is {size / 1e6:.0f} MB, above the {max_bytes / 1e6:.0f} MB limit per file",
                fix="split it into smaller files, or raise KGRAG_INGEST__MAX_FILE_BYTES",
            )
        data = path.read_bytes()
    except OSError as exc:
        raise IngestError(f"cannot read {path} ({exc.strerror or exc})", fix="check the path and permissions") from exc
    # The path becomes the source, shown in every listing: its controls are spelled out (still one
    # source per file, the same on every run), never stored raw.
    return load_bytes(data, source=escape_controls(str(path.resolve())), suffix=suffix, default_title=path.stem)


HEADED_TYPES = frozenset({"text/plain", "application/pdf"})
"""Types with no title field of their own whose first line is often their title (a CSV's is its header row)."""


def load_bytes(data: bytes, *, source: str, suffix: str, default_title: str) -> LoadedDocument:
    """``default_title`` (the file stem) is the last resort: a title field, then a heading first line, win."""
    suffix = suffix.lower()
    mime = SUPPORTED_SUFFIXES.get(suffix)
    if mime is None:
        raise IngestError(f"{source} has an unsupported type {suffix!r}",
                          fix=f"use one of {', '.join(sorted(SUPPORTED_SUFFIXES))}")
    if not data.strip():
        raise IngestError(f"{source} is empty", fix="nothing to ingest; add text to the file")
    loader = _LOADERS[mime]
    title, pages, meta = loader(data, source)
    pages = tuple(p for p in (Page(clean_text(pg.text).strip(), pg.number) for pg in pages) if p.text)
    if not pages:
        raise IngestError(f"{source} has no extractable text", fix="check the file has text content")
    if not title and mime in HEADED_TYPES:
        title = heading_line(pages[0].text)
    return LoadedDocument(
        source=source, title=clean_title(title or "")[:500] or clean_title(default_title) or source, mime_type=mime,
        pages=pages, content_hash=content_hash(data), metadata=meta,
    )


def load_text(text: str, *, source: str, title: str, metadata: dict[str, object] | None = None) -> LoadedDocument:
    """A document given as text (API uploads of JSON, eval corpora): hashed like a file."""
    cleaned = clean_text(text).strip()
    if not cleaned:
        raise IngestError(f"{source} is empty", fix="nothing to ingest; send some text")
    return LoadedDocument(
        source=source, title=clean_title(title) or source, mime_type="text/plain", pages=(Page(cleaned, None),),
        content_hash=content_hash((title + "\x1f" + cleaned).encode()), metadata=dict(metadata or {}),
    )


_Loaded = tuple[str | None, list[Page], dict[str, object]]


def _load_text(data: bytes, source: str) -> _Loaded:
    text, meta = decode_text(data, source)
    return None, [Page(text)], dict(meta)


_MD_HEADING = re.compile(r"^\s{0,3}#\s+(.+?)\s*#*\s*$", re.MULTILINE)


def _load_markdown(data: bytes, source: str) -> _Loaded:
    """YAML front matter (between ``---`` lines) becomes the document's metadata, so `--filter
    ticker=2330` finds it; its ``title`` wins over the first heading."""
    import frontmatter
    import yaml

    text, meta = decode_text(data, source)
    out: dict[str, object] = dict(meta)
    try:
        post = frontmatter.loads(text)
    except (yaml.YAMLError, ValueError) as exc:  # kept whole as text: a broken header must not lose the file
        out["front_matter_note"] = f"front matter could not be parsed ({type(exc).__name__}); kept as text"
        body, fields = text, {}
    else:
        body, fields = post.content, _json_safe(post.metadata)
    title = fields.get("title") if isinstance(fields.get("title"), str) else None
    heading = _MD_HEADING.search(body)
    return title or (heading.group(1) if heading else None), [Page(body)], {**fields, **out}


def _json_safe(value: dict[str, object]) -> dict[str, object]:
    """YAML gives dates and other non-JSON values; metadata is jsonb, and filters compare text."""
    import json

    return dict(json.loads(json.dumps(value, default=str)))


def _load_html(data: bytes, source: str) -> _Loaded:
    from bs4 import BeautifulSoup

    text, meta = decode_text(data, source)
    try:
        soup = BeautifulSoup(text, "lxml")
    except RecursionError as exc:  # pathologically nested markup
        raise IngestError(f"{source} is nested too deeply to parse", fix="simplify the HTML") from exc
    for tag in soup(["script", "style", "noscript", "template"]):
        tag.decompose()
    title = soup.title.get_text(strip=True) if soup.title else None
    if not title and (h1 := soup.find("h1")):
        title = h1.get_text(" ", strip=True)
    main = _main_content(text)
    if main:
        return title, [Page(main)], {**meta, "html_extraction": "main content"}
    try:
        body = soup.get_text("\n")
    except RecursionError as exc:
        raise IngestError(f"{source} is nested too deeply to parse", fix="simplify the HTML") from exc
    body = re.sub(r"\n\s*\n+", "\n\n", body)
    return title, [Page(body)], {**meta, "html_extraction": "all text (no main content found)"}


def _main_content(html: str) -> str | None:
    """The page's main text by trafilatura, without navigation, headers, footers and cookie banners (whose
    "Home", "Careers" would otherwise be indexed and become graph entities). None when it finds none."""
    import trafilatura

    try:
        text = trafilatura.extract(html, include_comments=False, include_tables=True, deduplicate=False)
    except Exception:  # a page it cannot handle (deep nesting, odd markup): the caller keeps all text
        return None
    return text if text and text.strip() else None


def _load_docx(data: bytes, source: str) -> _Loaded:
    """Paragraphs and table rows in document order; the title from the file's properties or a Title paragraph."""
    import io
    import zipfile

    from docx import Document
    from docx.opc.exceptions import PackageNotFoundError
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        document = Document(io.BytesIO(data))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise IngestError(f"{source} is not a readable Word .docx file ({type(exc).__name__})",
                          fix="check the file opens in a word processor; save older .doc files as .docx") from exc
    lines: list[str] = []
    title = (document.core_properties.title or "").strip() or None
    for block in document.element.body.iterchildren():
        tag = block.tag.rsplit("}", 1)[-1]
        if tag == "p":
            paragraph = Paragraph(block, document)
            if paragraph.text.strip():
                lines.append(paragraph.text)
                if title is None and paragraph.style is not None and paragraph.style.name in ("Title", "Heading 1"):
                    title = paragraph.text.strip()
        elif tag == "tbl":
            for row in Table(block, document).rows:
                cells = [c.text.strip() for c in row.cells]
                if any(cells):
                    lines.append(" | ".join(cells))
    return title, [Page("\n".join(lines))], {}


def _load_csv(data: bytes, source: str) -> _Loaded:
    """Each row as one line of ``column: value`` pairs, so a row reads as a statement a chunk can carry."""
    import csv
    import io

    text, meta = decode_text(data, source)
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(text[:8192], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    try:
        rows = [r for r in csv.reader(io.StringIO(text), dialect) if any(c.strip() for c in r)]
    except csv.Error as exc:
        raise IngestError(f"{source} is not a readable CSV file ({exc})",
                          fix="check its quoting and delimiter") from exc
    if not rows:
        return None, [], dict(meta)
    header = [h.strip() or f"column {i + 1}" for i, h in enumerate(rows[0])]
    lines = []
    for row in rows[1:]:
        pairs = [f"{header[i] if i < len(header) else f'column {i + 1}'}: {v.strip()}"
                 for i, v in enumerate(row) if v.strip()]
        lines.append("; ".join(pairs))
    return None, [Page("\n".join(lines))], {**meta, "csv_rows": len(rows) - 1, "csv_columns": header}


def _load_pdf(data: bytes, source: str) -> _Loaded:
    with _pypdf_messages() as said:
        return _read_pdf(data, source, said)


@contextmanager
def _pypdf_messages() -> Iterator[list[str]]:
    """pypdf's log warnings from this thread ("invalid pdf header: …"), kept for the file's reason instead of
    going raw to stderr, where they interleave with the CLI's progress and name no file."""
    said: list[str] = []
    me = threading.get_ident()

    class _Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.thread == me:
                said.append(record.getMessage().strip())

    logger = logging.getLogger("pypdf")
    handler = _Collect(level=logging.WARNING)
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield said
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def _read_pdf(data: bytes, source: str, said: list[str]) -> _Loaded:
    import io

    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise IngestError(f"{source} is an encrypted PDF", fix="decrypt it (e.g. qpdf --decrypt) and ingest again")
        pages = [Page(page.extract_text() or "", number=i) for i, page in enumerate(reader.pages, start=1)]
        title = None
        if reader.metadata and reader.metadata.title:
            title = str(reader.metadata.title)
    except IngestError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        detail = "; ".join([str(exc), *dict.fromkeys(m for m in said if m)])
        raise IngestError(f"{source} is not a readable PDF ({detail})", fix="check the file is a valid PDF") from exc
    if not any(p.text.strip() for p in pages):
        raise IngestError(f"{source} has no text layer (scanned PDF?)", fix="run OCR on it first, e.g. ocrmypdf")
    return title, pages, {"page_count": len(pages)}


_LOADERS: dict[str, Callable[[bytes, str], _Loaded]] = {
    "application/pdf": _load_pdf,
    "text/markdown": _load_markdown,
    "text/plain": _load_text,
    "text/html": _load_html,
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": _load_docx,
    "text/csv": _load_csv,
}


OUTSIDE_LINK_FLAG = "--follow-outside-links"


def discover(paths: list[Path], *, follow_outside_links: bool = False
             ) -> tuple[list[Path], list[tuple[str, str]], list[tuple[str, str]]]:
    """Expand folders into supported files (sorted, recursive, hidden entries left out).

    Returns files, (path, reason) misses, and (path, reason) for what a folder holds but is not
    ingested, so none is passed over without a word: files of a type kgrag does not read, and links
    that resolve outside the folder being ingested: `kgrag ingest DIR` must not pick up /etc/passwd through a
    link someone left in DIR. ``follow_outside_links`` (the CLI's --follow-outside-links) follows
    them, folders included, each real folder once. A path named explicitly is always taken.
    """
    files: list[Path] = []
    missing: list[tuple[str, str]] = []
    skipped: list[tuple[str, str]] = []
    for p in paths:
        if p.is_dir():
            found: list[Path] = []
            _walk(p, follow_outside_links, found, skipped)
            files.extend(sorted(found))
        elif p.is_file() and p.suffix.lower() not in SUPPORTED_SUFFIXES:
            # skipped as it would be inside a folder: a type kgrag cannot read is no failed document to keep
            skipped.append((str(p.resolve()), unsupported_reason(p.suffix)))
        elif p.is_file():
            files.append(p)
        else:
            missing.append((str(p), "no such file or folder"))
    return files, missing, skipped


def unsupported_reason(suffix: str) -> str:
    return (f"{suffix.lower() or '(no extension)'} files are not ingested; "
            f"supported: {', '.join(sorted(SUPPORTED_SUFFIXES))}")


def _walk(root: Path, follow_outside: bool, files: list[Path], skipped: list[tuple[str, str]]) -> None:
    base = root.resolve()
    seen = {base}
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            link = entry.is_symlink()
            real = entry.resolve() if link else None
            outside = real is not None and real != base and base not in real.parents
            if entry.is_dir():
                if outside and not follow_outside:
                    skipped.append((str(entry), f"a link to a folder outside {root}: not followed "
                                                f"(pass {OUTSIDE_LINK_FLAG} to follow it)"))
                elif (real or entry.resolve()) not in seen:
                    seen.add(real or entry.resolve())
                    stack.append(entry)
            elif entry.is_file() and entry.suffix.lower() not in SUPPORTED_SUFFIXES:
                skipped.append((str(entry.resolve()), unsupported_reason(entry.suffix)))
            elif entry.is_file():
                if outside and not follow_outside:
                    skipped.append((str(entry), f"a link to a file outside {root}: skipped "
                                                f"(pass {OUTSIDE_LINK_FLAG} to ingest it)"))
                else:
                    files.append(entry)
